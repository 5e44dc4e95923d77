internal import CTesseract
import Foundation

/// The pages of a TIFF file, read one after another with leptonica (a scanner's or a fax's multi-page
/// document), each as 8-bit grey no larger than `largestSide` a side. Only the page being read is in memory.
/// One thread at a time.
public final class TiffPages {
    public let path: String
    /// How many pages the file holds.
    public let count: Int
    /// Where the next page begins in the file (leptonica's offset; 0 once the last was read).
    private var offset = 0
    private var read = 0
    /// Where each page reached so far begins (`starts[i]` for page i), so that an earlier page can be read again.
    private var starts: [Int] = []

    /// True when the file at `path` begins as a TIFF does ("II*\0" or "MM\0*").
    public static func isTIFF(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        let head = (try? file.read(upToCount: 4)).map([UInt8].init) ?? []
        return head == [0x49, 0x49, 0x2A, 0x00] || head == [0x4D, 0x4D, 0x00, 0x2A]
    }

    /// How many pages the TIFF at `path` holds; nil when it is not a TIFF or cannot be read.
    public static func pageCount(_ path: String) -> Int? {
        guard isTIFF(path) else { return nil }
        LeptonicaMessages.silence()
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var pages: Int32 = 0
        guard LeptonicaMessages.quietly({ tiffGetCount(file, &pages) }) == 0, pages > 0 else { return nil }
        return Int(pages)
    }

    /// Opens the TIFF at `path`; throws the reason when it is not one or has no page.
    public init(path: String) throws(OCRError) {
        guard let count = Self.pageCount(path) else {
            throw OCRError.badImage(path, reason: "it is not a TIFF file leptonica can read, or it is damaged")
        }
        self.path = path
        self.count = count
    }

    /// Makes page `index` (from 0) the next one read, when it was reached before (or is the next); false otherwise.
    public func seek(to index: Int) -> Bool {
        guard starts.indices.contains(index) else { return index == read }
        offset = starts[index]
        read = index
        return true
    }

    /// The next page in grey, at most `largestSide` a side; nil after the last page or when it cannot be read.
    public func next(largestSide: Int = 4_000) -> (width: Int, height: Int, pixels: [UInt8])? {
        guard read < count, read == 0 || offset != 0 else { return nil }
        if starts.count == read { starts.append(offset) }
        var at = offset
        var pix = LeptonicaMessages.quietly { pixReadFromMultipageTiff(path, &at) }
        defer { pixDestroy(&pix) }
        offset = at
        read += 1
        guard let page = pix, Int(pixGetWidth(page)) * Int(pixGetHeight(page)) <= TesseractEngine.largestPixelCount
        else { return nil }
        var grey = pixConvertTo8(page, 0)
        defer { pixDestroy(&grey) }
        guard let converted = grey else { return nil }
        return try? TesseractEngine.packedPixels(of: converted, largestSide: largestSide, path: path)
    }
}

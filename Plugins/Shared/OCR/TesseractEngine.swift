internal import CTesseract
import Foundation

/// One warm tesseract handle (LSTM engine, OEM 1) for a language set, reused frame after frame with
/// `TessBaseAPIClear` in between. Owns the handle and ends it in `deinit`. Use it on one thread only: the
/// thread that created it.
public final class TesseractEngine {
    private let api: OpaquePointer
    /// The tesseract language string ("eng", "rus+eng").
    public let languages: String

    /// Page segmentation modes used by Assist.
    public enum SegmentationMode: Int32, Sendable {
        /// Automatic page layout (pages and whole frames).
        case auto = 3
        /// One uniform block of text (streamed blocks).
        case block = 6
        /// Sparse text (scene text for find-text).
        case sparse = 11
    }

    /// Binarisation before recognition (tesseract's `thresholding_method`).
    public enum Thresholding: Int, Sendable {
        /// Global Otsu: clean scans.
        case otsu = 0
        /// Leptonica's tiled Otsu.
        case tiledOtsu = 1
        /// Sauvola, adaptive per pixel: photographed pages with uneven light or sensor noise. Measured here on
        /// rendered pages: clean text for both a radially darkened page and the same page with Gaussian noise,
        /// where tiled Otsu lost words on the first and everything on the second.
        case sauvola = 2
    }

    /// Creates and initialises the engine. Wraps `TessBaseAPICreate`, `TessBaseAPIInit2` (OEM 1) and
    /// `TessBaseAPISetVariable` (`thresholding_method`, `user_defined_dpi=300`). Throws naming the Debian
    /// package when a language is missing.
    public init(languages: String, dataPath: String? = nil, thresholding: Thresholding = .sauvola) throws {
        LeptonicaMessages.silence()
        guard let api = TessBaseAPICreate() else { throw OCRError.missingLanguage(languages) }
        // Tesseract prints a warning for each missing file; Assist reports that itself, in plain words.
        TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        guard TessBaseAPIInit2(api, dataPath, languages, OEM_LSTM_ONLY) == 0 else {
            TessBaseAPIDelete(api)
            throw OCRError.missingLanguage(languages)
        }
        TessBaseAPISetVariable(api, "thresholding_method", String(thresholding.rawValue))
        TessBaseAPISetVariable(api, "user_defined_dpi", "300")
        self.api = api
        self.languages = languages
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
        if let osd {
            TessBaseAPIEnd(osd)
            TessBaseAPIDelete(osd)
        }
    }

    /// A second handle for orientation and script detection (the `osd` model), made on first use.
    private var osd: OpaquePointer?
    private var osdUnavailable = false

    /// Which way up the text of an 8-bit grey picture is: how many degrees to turn it clockwise to read it (0,
    /// 90, 180 or 270) and tesseract's confidence (above 2 is usually right). Nil when it cannot tell or the
    /// `osd` model (package tesseract-ocr-osd) is missing. Wraps `TessBaseAPIDetectOrientationScript`.
    public func orientation(gray: UnsafeRawPointer, width: Int, height: Int, stride: Int) -> (
        clockwiseTurn: Int, confidence: Double
    )? {
        if osd == nil && !osdUnavailable {
            let handle = TessBaseAPICreate()
            TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
            if let handle, TessBaseAPIInit3(handle, nil, "osd") == 0 {
                osd = handle
            } else {
                if let handle { TessBaseAPIDelete(handle) }
                osdUnavailable = true
            }
        }
        guard let osd else { return nil }
        TessBaseAPIClear(osd)
        TessBaseAPISetPageSegMode(osd, PSM_OSD_ONLY)
        TessBaseAPISetImage(
            osd, gray.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), 1, Int32(stride))
        TessBaseAPISetSourceResolution(osd, 300)
        var degrees: Int32 = 0
        var confidence: Float = 0
        var script: UnsafePointer<CChar>?
        var scriptConfidence: Float = 0
        guard TessBaseAPIDetectOrientationScript(osd, &degrees, &confidence, &script, &scriptConfidence) != 0 else {
            return nil
        }
        // tesseract reports the page turned that far counter-clockwise (a page ImageMagick turned 90° clockwise
        // gives 270), so a clockwise turn of the rest of the circle puts it upright.
        return ((360 - Int(degrees)) % 360, Double(confidence))
    }

    /// Recognises an 8-bit grey picture (`stride` bytes per row). Lines shorter than `minimumLineHeight` of the
    /// picture's height are dropped. Wraps `TessBaseAPISetImage`, `TessBaseAPIRecognize` and the result
    /// iterator.
    public func recognize(
        gray: UnsafeRawPointer, width: Int, height: Int, stride: Int, mode: SegmentationMode = .auto,
        region: (left: Int, top: Int, width: Int, height: Int)? = nil, minimumLineHeight: Double = 0.012
    ) -> [TextObservation] {
        TessBaseAPIClear(api)
        TessBaseAPISetPageSegMode(api, TessPageSegMode(rawValue: UInt32(mode.rawValue)))
        TessBaseAPISetImage(
            api, gray.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), 1, Int32(stride))
        TessBaseAPISetSourceResolution(api, 300)
        if let region {
            TessBaseAPISetRectangle(
                api, Int32(region.left), Int32(region.top), Int32(region.width), Int32(region.height))
        }
        return observations(width: width, height: height, minimumLineHeight: minimumLineHeight)
    }

    /// The longest side `loadGray` returns by default: large print stays large, a page photographed at 12
    /// megapixels keeps its small print, and a 20000-pixel picture no longer takes gigabytes and seconds.
    public static let largestSide = 4_096
    /// Pictures larger than this (width × height) are refused before decoding, unless JPEG can shrink them
    /// while it decodes.
    public static let largestPixelCount = 150_000_000

    /// Reads a picture file with Leptonica, converts it to 8-bit grey, shrinks it so that its longer side is at
    /// most `largestSide` (a large JPEG is decoded at 1/2, 1/4 or 1/8 size, never whole), and returns its size
    /// and pixels (tightly packed rows). Leptonica's and libpng's own messages never reach the terminal: the
    /// error says what is wrong in one sentence.
    public static func loadGray(_ url: URL, largestSide: Int = largestSide) throws -> (
        width: Int, height: Int, pixels: [UInt8]
    ) {
        try load(url, largestSide: largestSide, colour: false)
    }

    /// `loadGray`'s picture in colour: three bytes a pixel, red, green and blue (colour's `--image`).
    public static func loadColour(_ url: URL, largestSide: Int = largestSide) throws -> (
        width: Int, height: Int, pixels: [UInt8]
    ) {
        try load(url, largestSide: largestSide, colour: true)
    }

    private static func load(_ url: URL, largestSide: Int, colour: Bool) throws -> (
        width: Int, height: Int, pixels: [UInt8]
    ) {
        LeptonicaMessages.silence()
        var format: Int32 = 0
        var width: Int32 = 0
        var height: Int32 = 0
        var bitsPerSample: Int32 = 0
        var samples: Int32 = 0
        var colormap: Int32 = 0
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw OCRError.badImage(url.path, reason: "it is a folder; give the path of one photo")
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw OCRError.badImage(url.path, reason: "it does not exist or cannot be read")
        }
        // libjpeg prints its warnings ("Corrupt JPEG data") while the header is read, too.
        let header = LeptonicaMessages.quietly {
            pixReadHeader(url.path, &format, &width, &height, &bitsPerSample, &samples, &colormap)
        }
        guard header == 0, width > 0, height > 0 else {
            throw FileKind.named(url.path).map { OCRError.notAPicture(url.path, $0) } ?? OCRError.badImage(url.path)
        }
        if format == Int32(IFF_PNG), !PNGChunks.fit(url) {
            throw OCRError.badImage(url.path, reason: "it is damaged or cut short")
        }
        let longer = Int(max(width, height))
        let isJPEG = format == Int32(IFF_JFIF_JPEG)
        // JPEG decodes at 1/2, 1/4 or 1/8 size for a fraction of the memory and time.
        let reduction = isJPEG ? [8, 4, 2].first { longer / $0 >= largestSide } ?? 1 : 1
        let decodedPixels = Int(width) / reduction * (Int(height) / reduction)
        guard decodedPixels <= largestPixelCount else {
            throw OCRError.badImage(
                url.path,
                reason: "it is \(width) by \(height) pixels, too large to read; save it at most 10000 pixels a side")
        }
        var pix = LeptonicaMessages.quietly {
            isJPEG ? pixReadJpeg(url.path, 0, Int32(reduction), nil, 0) : pixRead(url.path)
        }
        defer { pixDestroy(&pix) }
        var converted = pix.flatMap { colour ? pixConvertTo32($0) : pixConvertTo8($0, 0) }
        defer { pixDestroy(&converted) }
        guard let decoded = converted else {
            throw OCRError.badImage(url.path, reason: "it is damaged or cut short")
        }
        return try packedPixels(of: decoded, largestSide: largestSide, path: url.path)
    }

    /// The pixels of `pix` made at most `largestSide` a side, tightly packed (`packedPixels(of:path:)`).
    static func packedPixels(of pix: UnsafeMutablePointer<Pix>, largestSide: Int, path: String) throws -> (
        width: Int, height: Int, pixels: [UInt8]
    ) {
        let longer = Int(max(pixGetWidth(pix), pixGetHeight(pix)))
        var scaled: UnsafeMutablePointer<Pix>?
        if longer > largestSide {
            let factor = Float(largestSide) / Float(longer)
            scaled = pixScale(pix, factor, factor)
        }
        defer { pixDestroy(&scaled) }
        return try packedPixels(of: scaled ?? pix, path: path)
    }

    /// The pixels of `pix` (8-bit grey, or 32-bit colour as red, green and blue bytes), tightly packed.
    static func packedPixels(of pix: UnsafeMutablePointer<Pix>, path: String) throws -> (
        width: Int, height: Int, pixels: [UInt8]
    ) {
        let width = Int(pixGetWidth(pix))
        let height = Int(pixGetHeight(pix))
        let wordsPerLine = Int(pixGetWpl(pix))
        let depth = pixGetDepth(pix)
        guard width > 0, height > 0, depth == 8 || depth == 32, let data = pixGetData(pix) else {
            throw OCRError.badImage(path)
        }
        let channels = depth == 32 ? 3 : 1
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            let line = data + y * wordsPerLine
            for x in 0..<width {
                if channels == 3 {
                    // A 32-bit pixel is one word, red in its top byte, then green and blue.
                    let word = line[x]
                    let at = (y * width + x) * 3
                    pixels[at] = UInt8(truncatingIfNeeded: word >> 24)
                    pixels[at + 1] = UInt8(truncatingIfNeeded: word >> 16)
                    pixels[at + 2] = UInt8(truncatingIfNeeded: word >> 8)
                } else {
                    // Leptonica packs 8-bit pixels big-endian within 32-bit words.
                    let word = line[x / 4]
                    pixels[y * width + x] = UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * (x % 4)))
                }
            }
        }
        return (width, height, pixels)
    }

    /// Text-line boxes from layout analysis alone (no recognition), in pixels, top-left origin. Wraps
    /// `TessBaseAPIAnalyseLayout`.
    public func layoutLines(gray: UnsafeRawPointer, width: Int, height: Int, stride: Int)
        -> [(left: Int, top: Int, right: Int, bottom: Int)]
    {
        TessBaseAPIClear(api)
        TessBaseAPISetPageSegMode(api, PSM_AUTO)
        TessBaseAPISetImage(
            api, gray.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), 1, Int32(stride))
        TessBaseAPISetSourceResolution(api, 300)
        guard let iterator = TessBaseAPIAnalyseLayout(api) else { return [] }
        defer { TessPageIteratorDelete(iterator) }
        var boxes: [(Int, Int, Int, Int)] = []
        repeat {
            var left: Int32 = 0
            var top: Int32 = 0
            var right: Int32 = 0
            var bottom: Int32 = 0
            if TessPageIteratorBoundingBox(iterator, RIL_TEXTLINE, &left, &top, &right, &bottom) != 0 {
                boxes.append((Int(left), Int(top), Int(right), Int(bottom)))
            }
        } while TessPageIteratorNext(iterator, RIL_TEXTLINE) != 0
        return boxes.map { (left: $0.0, top: $0.1, right: $0.2, bottom: $0.3) }
    }

    /// Walks the result at word level: a word that begins a text line starts a new observation with the
    /// line's text and box; each word's text and box are kept, and word confidences (skipping −1) are averaged
    /// per line.
    private func observations(width: Int, height: Int, minimumLineHeight: Double) -> [TextObservation] {
        guard TessBaseAPIRecognize(api, nil) == 0, let iterator = TessBaseAPIGetIterator(api) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        let page = TessResultIteratorGetPageIteratorConst(iterator)
        var lines: [(text: String, box: NormalizedBox, confidences: [Double], words: [TextWord])] = []
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                guard let box = box(of: page, RIL_TEXTLINE, width: width, height: height) else { continue }
                let text = Self.text(of: iterator, RIL_TEXTLINE)
                lines.append((text.trimmingCharacters(in: .whitespacesAndNewlines), box, [], []))
            }
            guard !lines.isEmpty else { continue }
            let confidence = Double(TessResultIteratorConfidence(iterator, RIL_WORD))
            if confidence >= 0 { lines[lines.count - 1].confidences.append(confidence) }
            let word = Self.text(of: iterator, RIL_WORD)
            if !word.isEmpty, let box = box(of: page, RIL_WORD, width: width, height: height) {
                lines[lines.count - 1].words.append(TextWord(text: word, box: box))
            }
        } while TessResultIteratorNext(iterator, RIL_WORD) != 0
        return lines.compactMap { line in
            guard !line.text.isEmpty, line.box.height >= minimumLineHeight else { return nil }
            let mean = line.confidences.isEmpty ? 0 : line.confidences.reduce(0, +) / Double(line.confidences.count)
            return TextObservation(text: line.text, box: line.box, confidence: mean, words: line.words)
        }
    }

    private func box(of page: OpaquePointer?, _ level: TessPageIteratorLevel, width: Int, height: Int)
        -> NormalizedBox?
    {
        var left: Int32 = 0
        var top: Int32 = 0
        var right: Int32 = 0
        var bottom: Int32 = 0
        guard TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else { return nil }
        return NormalizedBox(
            left: Int(left), top: Int(top), right: Int(right), bottom: Int(bottom), width: width, height: height)
    }

    private static func text(of iterator: OpaquePointer?, _ level: TessPageIteratorLevel) -> String {
        TessResultIteratorGetUTF8Text(iterator, level).map { pointer in
            defer { TessDeleteText(pointer) }
            return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
        } ?? ""
    }
}

/// Leptonica prints its errors ("Error in pixSauvolaBinarizeTiled") and libpng its own ("libpng error: Read
/// Error") to standard error, ahead of Assist's one sentence. Leptonica's are turned off for the process;
/// libpng's default handler cannot be, so standard error is parked while a file is decoded.
package enum LeptonicaMessages {
    private static let silenced: Void = { _ = setMsgSeverity(Int32(L_SEVERITY_NONE)) }()

    static func silence() { _ = silenced }

    /// Standard error as it was, while parked; how many decodings are under way.
    private static let parking = NSLock()
    nonisolated(unsafe) private static var saved: Int32 = -1
    nonisolated(unsafe) private static var parked = 0

    /// Runs `body` with file descriptor 2 pointing at /dev/null; other threads' messages written meanwhile are
    /// lost, so it wraps only the decoding of one file. Decodings on several threads at once (a document's
    /// pages, two sessions in one process) share one parking: the first parks standard error and the last
    /// gives it back. (Each swapping it for itself, one could keep the null device another had put there, and
    /// every later line of the process, a data command's spoken lines among them, was lost.)
    package static func quietly<T>(_ body: () -> T) -> T {
        park()
        defer { unpark() }
        return body()
    }

    /// A new descriptor for standard error as the process has it: fd 2, or while decodings are under way the
    /// one they give back when they end. For tests that check the parking from beside other decodings.
    package static func standardErrorCopy() -> Int32 {
        parking.withLock { fcntl(parked > 0 && saved >= 0 ? saved : 2, F_DUPFD_CLOEXEC, 0) }
    }

    private static func park() {
        parking.withLock {
            parked += 1
            guard parked == 1 else { return }
            fflush(nil)
            let kept = fcntl(2, F_DUPFD_CLOEXEC, 0)
            let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
            if kept >= 0, null >= 0, dup2(null, 2) >= 0 {
                saved = kept
            } else if kept >= 0 {
                close(kept)
            }
            if null >= 0 { close(null) }
        }
    }

    private static func unpark() {
        parking.withLock {
            parked -= 1
            guard parked == 0, saved >= 0 else { return }
            fflush(nil)
            dup2(saved, 2)
            close(saved)
            saved = -1
        }
    }
}

/// libpng allocates whatever an ancillary chunk's length field claims before it reads the chunk: a 276-byte
/// file claiming 1.9 GB took that much memory and a second (found by the `photo` fuzz target). Leptonica sets
/// no limit, so the chunk lengths are checked against the file first.
enum PNGChunks {
    /// True when every chunk's declared length fits in what is left of the file, up to IEND.
    static func fit(_ url: URL) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), (try? handle.seek(toOffset: 8)) != nil else { return false }
        var offset: UInt64 = 8  // after the signature
        while offset + 12 <= size {
            guard let header = try? handle.read(upToCount: 8), header.count == 8 else { return false }
            let length = header.prefix(4).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard length < 0x8000_0000, offset + 12 + length <= size else { return false }
            if header.suffix(4) == Data("IEND".utf8) { return true }
            offset += 12 + length
            guard (try? handle.seek(toOffset: offset)) != nil else { return false }
        }
        return false
    }
}

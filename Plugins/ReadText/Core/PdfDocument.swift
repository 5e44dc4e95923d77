import CPdf
import Foundation
import OCR

/// A PDF document read page by page (docs/read-text.md, "Documents"): each page's text layer, or, for a page
/// without one (a scan), the page drawn at 300 dpi for the same recognition as a photographed page. Poppler and
/// cairo are opened on first use (Sources/CPdf). One thread at a time.
public final class PdfDocument {
    private let handle: OpaquePointer
    public let pageCount: Int

    /// Opens the PDF at `path` with `password` (nil: none); the reason in a sentence when it cannot be read, and
    /// `locked` set when it is encrypted and the password (or none) does not open it.
    public init(path: String, password: String? = nil) throws(ReadTextError) {
        var error = [CChar](repeating: 0, count: 256)
        var locked: Int32 = 0
        guard let opened = assist_pdf_open(path, password, &locked, &error, error.count) else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ReadTextError("The document \(path) cannot be read: \(reason).", locked: locked != 0)
        }
        handle = opened
        pageCount = Int(assist_pdf_page_count(opened))
    }

    deinit { assist_pdf_close(handle) }

    /// True when the file at `path` begins as a PDF does ("%PDF-").
    public static func isPDF(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        return (try? file.read(upToCount: 5)) == Data("%PDF-".utf8)
    }

    /// The text layer of page `index` (from 0) as lines, each with its font's size and weight; empty for a page
    /// without one; nil when it cannot be read.
    public func lines(page index: Int) -> [DocumentLine]? {
        guard let text = assist_pdf_page_styled_text(handle, Int32(index)) else { return nil }
        defer { free(text) }
        // Each line is "SIZE BOLD LEFT TOP RIGHT BOTTOM TEXT" (Sources/CPdf).
        return String(cString: text).split(separator: "\n", omittingEmptySubsequences: true).compactMap { row in
            let parts = row.split(separator: " ", maxSplits: 6, omittingEmptySubsequences: false)
            guard parts.count == 7 else { return nil }
            let line = parts[6].trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { return nil }
            let edges = parts[2...5].map { Double($0) ?? 0 }
            let box =
                edges[2] > edges[0] && edges[3] > edges[1]
                ? DocumentBox(left: edges[0], top: edges[1], right: edges[2], bottom: edges[3]) : nil
            return DocumentLine(line, size: Double(parts[0]) ?? 0, bold: parts[1] == "1", box: box)
        }
    }

    /// Page `index` drawn at `dpi`, in 8-bit grey; nil when it cannot be drawn.
    public func render(page index: Int, dpi: Double = 300) -> (width: Int, height: Int, pixels: [UInt8])? {
        var width: Int32 = 0
        var height: Int32 = 0
        guard let gray = assist_pdf_render_gray(handle, Int32(index), dpi, &width, &height) else { return nil }
        defer { free(gray) }
        let pixels = Array(UnsafeBufferPointer(start: gray, count: Int(width) * Int(height)))
        return (Int(width), Int(height), pixels)
    }

    /// Whether a page's text layer holds text to read: at least 20 letters or digits (a scan's layer is empty,
    /// or holds a page number).
    public static func hasText(_ lines: [String]) -> Bool {
        lines.joined().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.count >= 20
    }

    /// A text layer's lines as the sentence builder takes them: one column, evenly spaced, so sentences end
    /// where their words end them.
    public static func orderedLines(_ lines: [String]) -> [OrderedLine] {
        lines.enumerated().map { index, text in
            let top = 1 - 0.01 * Double(index)
            return OrderedLine(
                observation: TextObservation(
                    text: text, box: NormalizedBox(minX: 0.1, minY: top - 0.008, maxX: 0.9, maxY: top), confidence: 100),
                column: 0)
        }
    }
}

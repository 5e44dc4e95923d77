import Foundation
import OCR

/// A document read page by page (docs/read-text.md, "Documents"): a PDF (`PdfDocument`) or a multi-page TIFF
/// (`TiffDocument`). A page gives its text layer's lines, or, without one, its picture for the same recognition
/// as a photographed page. Pages are asked for in order, from the first. One thread at a time.
public protocol PagedDocument: AnyObject {
    var pageCount: Int { get }
    /// The text layer of page `index` (from 0) as lines with their fonts; empty for a page without one; nil when
    /// it cannot be read.
    func lines(page index: Int) -> [DocumentLine]?
    /// Page `index` in 8-bit grey, for recognition; nil when it cannot be drawn or read.
    func picture(page index: Int) -> (width: Int, height: Int, pixels: [UInt8])?
}

/// Opens documents by what their first bytes say they are.
public enum Documents {
    /// True when `path` is read as a document rather than as one picture: a PDF, or a TIFF of two pages or more (a
    /// TIFF of one page is a picture, read as `--image` reads it, its page straightened first).
    public static func isDocument(_ path: String) -> Bool {
        PdfDocument.isPDF(path) || (TiffPages.pageCount(path) ?? 0) > 1
    }

    /// The document at `path`, a PDF opened with `password` if it is locked; the reason in a sentence when it
    /// cannot be read (`ReadTextError.locked` when the password is wanted).
    public static func open(_ path: String, password: String? = nil) throws(ReadTextError) -> any PagedDocument {
        if TiffPages.isTIFF(path) { return try TiffDocument(path: path) }
        return try PdfDocument(path: path, password: password)
    }
}

extension PdfDocument: PagedDocument {
    public func picture(page index: Int) -> (width: Int, height: Int, pixels: [UInt8])? { render(page: index) }
}

/// A multi-page TIFF (a scanner's or a fax's document): every page is a picture, without a text layer.
public final class TiffDocument: PagedDocument {
    private let pages: TiffPages
    /// The page `pages` reads next (from 0).
    private var next = 0
    public var pageCount: Int { pages.count }

    public init(path: String) throws(ReadTextError) {
        do { pages = try TiffPages(path: path) } catch {
            throw ReadTextError("The document \(path) cannot be read: \(error.cause ?? "it is damaged").")
        }
    }

    public func lines(page index: Int) -> [DocumentLine]? { [] }

    /// Page `index`: the pages are read in order, so an earlier one asked for again is not there any more.
    public func picture(page index: Int) -> (width: Int, height: Int, pixels: [UInt8])? {
        while next < index {
            _ = pages.next()
            next += 1
        }
        guard next == index else { return nil }
        next += 1
        return pages.next()
    }
}

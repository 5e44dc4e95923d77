import Foundation
import OCR

/// A document read page by page (docs/read-text.md, "Documents"): a PDF (`PdfDocument`) or a multi-page TIFF
/// (`TiffDocument`). A page gives its text layer's lines, or, without one, its picture for the same recognition
/// as a photographed page. Pages are asked for in any order (`DocumentPageOrder`). One thread at a time.
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

    /// Page `index`: the pages are read one after another from the file; a page before the last read is found again
    /// where it was seen to begin, one after it by reading the pages between.
    public func picture(page index: Int) -> (width: Int, height: Int, pixels: [UInt8])? {
        if index < next, pages.seek(to: index) { next = index }
        while next < index {
            _ = pages.next()
            next += 1
        }
        guard next == index else { return nil }
        next += 1
        return pages.next()
    }
}

/// The order a document's pages are read in (docs/read-text.md, "Where reading stopped"): from the first, unless
/// a page is wanted sooner (a document opened again at page 30, `/page 30`, Page Up to a page not read yet); then
/// that page and the ones after it, and the pages skipped once those are done. The worker takes pages from it; the
/// main loop says which page is wanted. Thread-safe.
public final class DocumentPageOrder: @unchecked Sendable {
    private let lock = NSLock()
    private var left: IndexSet
    private var wanted = 0

    /// The pages 0..<`pages` (from 0), none read yet.
    public init(pages: Int) { left = IndexSet(integersIn: 0..<max(pages, 0)) }

    /// Page `index` (from 0) and those after it are read next, before any page skipped.
    public func want(_ index: Int) { lock.withLock { wanted = max(index, 0) } }

    /// The next page to read, taken out of those left; nil once every page was taken.
    public func next() -> Int? {
        lock.withLock {
            guard let page = left.integerGreaterThanOrEqualTo(wanted) ?? left.first else { return nil }
            left.remove(page)
            return page
        }
    }
}

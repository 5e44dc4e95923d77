import Foundation
import OCR
import PluginKit

/// A document read page by page (docs/read-text.md, "Documents"), on the worker. [worker]
extension ReadText {
    /// Reads a PDF document page by page (docs/read-text.md, "Documents"): a page's text layer as it is, a page
    /// without one (a scan) drawn at 300 dpi and recognised as a photographed page is. Reading starts with the
    /// first page (or the page reading stopped at, `DocumentPageOrder`) while the others are worked out.
    /// A PDF locked with a password asks for it by a typed line (`unlock`).
    func readDocument(_ url: URL, password: String? = nil) {
        worker.run { [self] in
            let document: any PagedDocument
            do throws(ReadTextError) { document = try Documents.open(url.path, password: password) } catch {
                let message = error.message
                if error.locked {
                    host.onMain { [self] in unlock(url, wrong: password != nil) }
                } else {
                    host.onMain { [self] in fail(message) }
                }
                return
            }
            let pages = document.pageCount
            guard pages > 0 else {
                host.onMain { [self] in fail(phrases.text("document-empty")) }
                return
            }
            // Opened again, where reading stopped last time is asked about before anything is read.
            let key = places == nil ? nil : DocumentPlaces.key(of: url)
            let saved = key.flatMap { places?.place(of: $0) }.flatMap { $0.pages == pages ? $0 : nil }
            // The page reading stopped at is read first, while the question is asked (yes is the likely answer).
            let order = DocumentPageOrder(pages: pages)
            if let saved { order.want(saved.page - 1) }
            host.onMain { [self] in
                navigator?.pages = pages
                navigator?.load([], complete: false)
                documentKey = key
                pageOrder = order
                if let saved { askToGoOn(saved, name: url.lastPathComponent) }
            }
            var found = 0
            var unreadable: Int?
            while let index = order.next() {
                if stopped { return }
                // A page that cannot be read (a file damaged or cut short) is named once, the first such page met;
                // the pages that can be read are read.
                let items = pageItems(document, index, nothingYet: found == 0)
                if items == nil, unreadable == nil {
                    unreadable = index + 1
                    let said = phrases.text(
                        "document-page-unreadable", ["page": String(index + 1), "name": url.lastPathComponent])
                    host.onMain { [self] in status(said, priority: .important) }
                }
                let read = (items ?? []).map { item in
                    var onPage = item
                    onPage.page = index + 1
                    return onPage
                }
                found += read.count
                host.onMain { [self] in appendStreamed(read, first: false, page: index + 1) }
            }
            let any = found > 0
            host.onMain { [self] in if any { navigator?.finishStreaming() } else { noText() } }
        }
    }

    /// The sentences of one page of `document`; nil when the page cannot be read (worker). A page without a text
    /// layer is recognised as a picture (its headings and tables found as `ScannedPage` says), tesseract started for the first such
    /// page, which says "Reading" first when `nothingYet` was read.
    func pageItems(_ document: any PagedDocument, _ index: Int, nothingYet: Bool = false) -> [ReadingItem]? {
        guard let lines = document.lines(page: index) else { return nil }
        if PdfDocument.hasText(lines.map(\.text)) {
            return DocumentHeadings.items(
                lines, builder: pipeline.builder, navigation: options.navigation, tableIntro: tableIntro)
        }
        if nothingYet && !saidReading {
            saidReading = true
            let reading = phrases.text("reading")
            host.onMain { [self] in status(reading) }
        }
        guard let engine = startedEngine() else { return [] }
        guard let page = document.picture(page: index) else { return nil }
        host.log(.info, "page \(index + 1) has no text layer: recognised as a picture")
        return page.pixels.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return [] }
            let observations = engine.recognize(
                gray: base, width: page.width, height: page.height, stride: page.width,
                minimumLineHeight: ReadTextParameters.leastLineHeight(pictureHeight: page.height))
            let scanned = ScannedPage(width: page.width, height: page.height, tableIntro: tableIntro)
            return pipeline.process(observations, scanned: scanned).items
        }
    }

    /// What is said of a table's size before its rows, in the person's language ("Table of 4 rows and 3 columns.").
    var tableIntro: (_ rows: Int, _ columns: Int) -> String {
        { [phrases] rows, columns in
            phrases.text("table-intro", ["rows": String(rows), "columns": String(columns)])
        }
    }
}

import OCR
import Testing

@testable import ReadTextCore

/// Issue 70, item 3: a document's tables, found by where their cells are on the page, read row by row.
@Suite("read-text: tables in a document")
struct DocumentTableTests {
    /// A line of 11-point text whose baseline is `y` points from the top, starting `x` from the left, about
    /// 5.5 points a letter.
    static func line(_ text: String, x: Double, y: Double, width: Double? = nil) -> DocumentLine {
        DocumentLine(
            text, size: 11,
            box: DocumentBox(left: x, top: y - 8, right: x + (width ?? 5.5 * Double(text.count)), bottom: y + 2))
    }

    static let order = [("Item", "Price", "Quantity"), ("Apples", "3.20", "2"), ("Pears", "2.75", "5")]

    /// Cells as Poppler may give them: down each column before across, between two paragraphs. The numbers of
    /// the second column are set to the right, as a bill's are.
    static func page() -> [DocumentLine] {
        var lines = [line("Your order from the market, listed below.", x: 40, y: 40)]
        for (column, x) in [40.0, 200, 300].enumerated() {
            for (row, cells) in order.enumerated() {
                let cell = [cells.0, cells.1, cells.2][column]
                let y = 80 + 18 * Double(row)
                lines.append(
                    column == 1
                        ? line(cell, x: 260 - 5.5 * Double(cell.count), y: y) : line(cell, x: x, y: y))
            }
        }
        lines.append(line("Thank you for shopping with us.", x: 40, y: 160))
        return lines
    }

    @Test func aTableIsPutBackInRowsWhateverOrderItsCellsCameIn() {
        let parts = DocumentTables.parts(Self.page())
        #expect(parts.count == 3, "\(parts)")
        #expect(parts.first == .lines([Self.line("Your order from the market, listed below.", x: 40, y: 40)]))
        #expect(
            parts.dropFirst().first
                == .table(
                    DocumentTable(rows: [
                        ["Item", "Price", "Quantity"], ["Apples", "3.20", "2"], ["Pears", "2.75", "5"],
                    ])),
            "\(parts)")
        #expect(parts.last == .lines([Self.line("Thank you for shopping with us.", x: 40, y: 160)]))
    }

    @Test func theFirstRowIsSaidAfterItsHeadersAndEachRowIsPrintedWithTabs() {
        let items = DocumentHeadings.items(Self.page(), builder: SentenceBuilder(), navigation: .sentences)
        #expect(
            items.map(\.text) == [
                "Your order from the market, listed below.", "Table of 3 rows and 3 columns.",
                "Item: Apples. Price: 3.20. Quantity: 2.", "Pears. 2.75. 5.", "Thank you for shopping with us.",
            ], "\(items.map(\.text))")
        #expect(
            items.map { $0.printed ?? $0.text } == [
                "Your order from the market, listed below.", "Item\tPrice\tQuantity", "Apples\t3.20\t2",
                "Pears\t2.75\t5", "Thank you for shopping with us.",
            ])
    }

    /// Two columns of running text side by side are read as the text layer gives them, never as a table; nor are
    /// lines one under another, a word's space apart, or two rows alone.
    @Test func runningTextInTwoColumnsAndShortListsAreNoTables() {
        let left = ["The council met on Monday to talk about", "the new bus timetable, which starts in", "April."]
        let right = [
            "Buses to the hospital will run every ten", "minutes in the morning and every twenty", "at night.",
        ]
        var columns: [DocumentLine] = []
        for (row, text) in left.enumerated() { columns.append(Self.line(text, x: 40, y: 40 + 14 * Double(row))) }
        for (row, text) in right.enumerated() { columns.append(Self.line(text, x: 300, y: 40 + 14 * Double(row))) }
        #expect(DocumentTables.parts(columns) == [.lines(columns)])
        let close = (0..<4).flatMap { row in
            [Self.line("Bread", x: 40, y: 40 + 14 * Double(row)), Self.line("rolls", x: 72, y: 40 + 14 * Double(row))]
        }
        #expect(DocumentTables.parts(close) == [.lines(close)], "a space apart: one line each")
        let two =
            Array(Self.page()[0...0]) + [
                Self.line("Item", x: 40, y: 80), Self.line("Price", x: 200, y: 80), Self.line("Apples", x: 40, y: 98),
                Self.line("3.20", x: 200, y: 98),
            ]
        #expect(DocumentTables.parts(two) == [.lines(two)], "a header and one row")
        let unplaced = Self.page().map { DocumentLine($0.text, size: 11) }
        #expect(DocumentTables.parts(unplaced) == [.lines(unplaced)], "a document that does not say where")
    }

    /// A form's rows set three lines apart (a scan's often are, to be written on) are still a table, as far apart
    /// as its first two rows are; a line far below whose words happen to stand in its columns is not a row of it.
    @Test func rowsSetFarApartAreATableAndALineFarBelowIsNotItsRow() {
        let rows = [["Name", "Date", "Signed"], ["Ana Ruiz", "3 May", "yes"], ["Bo Li", "4 May", "no"]]
        var lines: [DocumentLine] = []
        for (row, cells) in rows.enumerated() {
            for (cell, x) in zip(cells, [40.0, 200, 300]) {
                lines.append(Self.line(cell, x: x, y: 80 + 40 * Double(row)))
            }
        }
        let footer = [
            Self.line("Page", x: 40, y: 400), Self.line("1 of", x: 200, y: 400), Self.line("2", x: 300, y: 400),
        ]
        let parts = DocumentTables.parts(lines + footer)
        #expect(parts == [.table(DocumentTable(rows: rows)), .lines(footer)], "\(parts)")
        let widened =
            lines + [Self.line("Cy Oh", x: 40, y: 200), Self.line("5 May", x: 200, y: 200)] + [
                Self.line("yes", x: 300, y: 200)
            ]
        #expect(
            DocumentTables.parts(widened) == [.table(DocumentTable(rows: rows + [["Cy Oh", "5 May", "yes"]]))],
            "a row at the table's own spacing goes on it")
    }
}

/// t in a document: on to the next table, and inside one, where reading is in it.
@Suite("read-text: t and tables")
struct TableKeyTests {
    @Test func tMovesToTheNextTableAndKnowsTheRowBeingRead() {
        let voice = FakeVoice()
        let navigator = ReadingNavigator(voice: voice, language: "en")
        let table = DocumentTable(rows: [["Item", "Price"], ["Apples", "3.20"], ["Pears", "2.75"]])
        navigator.load(
            [ReadingItem(text: "First.", column: 0), ReadingItem(text: "Second.", column: 0)]
                + DocumentTables.items(table, intro: "Table of 3 rows and 2 columns.")
                + [ReadingItem(text: "Last.", column: 0)], complete: true)
        navigator.start()
        #expect(navigator.tablePlace == nil && navigator.hasTables)
        #expect(navigator.moveToNextTable() && voice.last.text == "Table of 3 rows and 2 columns.")
        #expect(navigator.tablePlace == TablePlace(row: 0, rows: 3, columns: 2, cells: ["Item", "Price"]))
        navigator.next()
        #expect(voice.last.text == "Item: Apples. Price: 3.20.")
        #expect(
            navigator.tablePlace == TablePlace(row: 1, rows: 3, columns: 2, cells: ["Item: Apples", "Price: 3.20"]))
        navigator.next()
        navigator.next()
        #expect(voice.last.text == "Last." && navigator.tablePlace == nil)
        #expect(!navigator.moveToNextTable() && voice.cues.last == .end, "none after: the end cue, and no move")
        let plain = ReadingNavigator(voice: FakeVoice(), language: "en")
        plain.load([ReadingItem(text: "Only text.", column: 0)], complete: true)
        #expect(!plain.hasTables)
    }

    /// The arrows inside a table: Right and Left move by cell along the row being read, each cell after its
    /// column's header, and pause the row (resume goes on with it); past the row's ends, the end cue and no move.
    /// Outside a table they say there is none to move in (the caller moves by sentence).
    @Test func leftAndRightMoveByCellInsideATableRow() {
        let voice = FakeVoice()
        let navigator = ReadingNavigator(voice: voice, language: "en")
        let table = DocumentTable(rows: [
            ["Item", "Price", "Quantity"], ["Apples", "3.20", "2"], ["Pears", "2.75", "5"],
        ])
        navigator.load(
            [ReadingItem(text: "First.", column: 0)] + DocumentTables.items(table, intro: "Table of 3 rows.")
                + [ReadingItem(text: "Last.", column: 0)], complete: true)
        navigator.start()
        #expect(navigator.moveCell(by: 1) == .outside, "a sentence has no cells")
        navigator.next()
        #expect(navigator.moveCell(by: 1) == .cell("Item"), "at the table's start, the headers")
        navigator.next()
        #expect(voice.last.text == "Item: Apples. Price: 3.20. Quantity: 2.")
        #expect(navigator.moveCell(by: 1) == .cell("Item: Apples"))
        #expect(navigator.state == .paused, "the row's reading waits")
        #expect(navigator.moveCell(by: 1) == .cell("Price: 3.20"))
        #expect(navigator.moveCell(by: 1) == .cell("Quantity: 2"))
        let cues = voice.cues.count
        #expect(navigator.moveCell(by: 1) == .edge(forward: true))
        #expect(voice.cues.count == cues + 1 && voice.cues.last == .end)
        #expect(navigator.moveCell(by: -1) == .cell("Price: 3.20"), "no move past the end")
        navigator.next()
        #expect(voice.last.text == "Pears. 2.75. 5.")
        #expect(navigator.moveCell(by: -1) == .cell("Quantity: 5"), "Left into a new row: its last cell")
        navigator.next()
        #expect(navigator.moveCell(by: -1) == .outside)
        // Another text loaded: the cell moved to before is not where Right goes on from.
        navigator.load(DocumentTables.items(table, intro: "Table of 3 rows."), complete: true)
        navigator.start()
        #expect(navigator.moveCell(by: 1) == .cell("Item"))
        navigator.load(DocumentTables.items(table, intro: "Table of 3 rows."), complete: true)
        navigator.start()
        #expect(navigator.moveCell(by: 1) == .cell("Item"))
    }
}

/// A document opened again where reading stopped (issue 70, item 2): nothing is read while the question is asked;
/// yes goes on from the place once its page has come, a move asked for meanwhile wins, no starts at the start.
@Suite("read-text: going on where reading stopped")
struct GoOnTests {
    static func page(_ number: Int, _ texts: [String]) -> [ReadingItem] {
        texts.map {
            var item = ReadingItem(text: $0, column: 0)
            item.page = number
            return item
        }
    }

    @Test func yesWaitsForItsPageAndNoStartsAtTheStart() {
        let voice = FakeVoice()
        let navigator = ReadingNavigator(voice: voice, language: "en")
        navigator.pages = 3
        navigator.load([], complete: false)
        navigator.hold()
        navigator.append(Self.page(1, ["One.", "Two."]))
        #expect(voice.spoken.isEmpty, "nothing read while it asks")
        navigator.release(at: (page: 2, item: 2))
        #expect(voice.spoken.isEmpty, "page 2 has not come")
        navigator.append(Self.page(2, ["Three.", "Four."]))
        #expect(voice.spoken.map(\.text) == ["Four."])
        navigator.append(Self.page(3, ["Five."]))
        #expect(voice.spoken.map(\.text) == ["Four."], "the place is not taken twice")

        let other = FakeVoice()
        let no = ReadingNavigator(voice: other, language: "en")
        no.pages = 2
        no.load([], complete: false)
        no.hold()
        no.append(Self.page(1, ["One."]))
        no.release(at: nil)
        #expect(other.spoken.map(\.text) == ["One."])

        let gone = FakeVoice()
        let shorter = ReadingNavigator(voice: gone, language: "en")
        shorter.pages = 1
        shorter.load([], complete: false)
        shorter.release(at: (page: 5, item: 1))
        shorter.append(Self.page(1, ["Only."]))
        #expect(gone.spoken.isEmpty)
        shorter.finishStreaming()
        #expect(gone.spoken.map(\.text) == ["Only."], "a place past the end: from the start")
    }
}

/// A scanned document opened again at page 3 reads page 3 first (`DocumentPageOrder`), the pages before it after:
/// reading never passes over a page that has not come, and a move to one waits for it.
@Suite("read-text: pages out of order")
struct PagesOutOfOrderTests {
    typealias Page = GoOnTests

    /// A navigator over a document of `pages` pages, none come yet, and the voice it reads with.
    static func document(pages: Int) -> (FakeVoice, ReadingNavigator) {
        let voice = FakeVoice()
        let navigator = ReadingNavigator(voice: voice, language: "en")
        navigator.pages = pages
        navigator.load([], complete: false)
        return (voice, navigator)
    }

    @Test func thePageAskedForIsReadFirstThenTheOnesAfterItThenTheSkippedOnes() {
        let order = DocumentPageOrder(pages: 5)
        order.want(2)
        #expect([order.next(), order.next()] == [2, 3])
        order.want(0)
        #expect([order.next(), order.next(), order.next(), order.next()] == [0, 1, 4, nil])
        let plain = DocumentPageOrder(pages: 2)
        #expect([plain.next(), plain.next(), plain.next()] == [0, 1, nil])
    }

    @Test func yesReadsItsPageBeforeTheEarlierPagesCome() {
        let (voice, navigator) = Self.document(pages: 4)
        navigator.hold()
        navigator.add(Page.page(3, ["Three."]), page: 3)
        navigator.release(at: (page: 3, item: 1))
        #expect(voice.spoken.map(\.text) == ["Three."], "page 3 is read without pages 1 and 2")
        navigator.add(Page.page(4, ["Four."]), page: 4)
        navigator.finished(voice.last.id)
        #expect(voice.last.text == "Four.")
        navigator.finished(voice.last.id)
        #expect(navigator.state == .waitingForMore, "pages 1 and 2 are still to come: not the end yet")
        navigator.add(Page.page(1, ["One."]), page: 1)
        #expect(voice.spoken.map(\.text) == ["Three.", "Four."], "a page before the place is not read out")
        #expect(navigator.position.page == 4 && navigator.position.item == 3)
        #expect(navigator.pagesToCome(forward: false) && !navigator.pagesToCome(forward: true))
        navigator.add([], page: 2)
        #expect(!navigator.pagesToCome(forward: false), "every page has come")
        navigator.finishStreaming()
        #expect(navigator.state == .ended && voice.cues.last == .end)
        #expect(navigator.movePage(by: -1) == .moved(page: 3) && voice.last.text == "Three.")
        #expect(navigator.movePage(by: -1) == .moved(page: 1) && voice.last.text == "One.", "blank page 2 passed")
    }

    @Test func noWaitsForThePageOneAndNeverPassesOverAPageToCome() {
        let (voice, navigator) = Self.document(pages: 3)
        navigator.hold()
        navigator.add(Page.page(3, ["Three."]), page: 3)
        navigator.release(at: nil)
        #expect(voice.spoken.isEmpty, "page 1 has not come")
        navigator.add(Page.page(1, ["One."]), page: 1)
        #expect(voice.spoken.map(\.text) == ["One."])
        navigator.finished(voice.last.id)
        #expect(navigator.state == .waitingForMore && voice.spoken.count == 1, "page 2 is still to come")
        navigator.next()
        #expect(voice.spoken.count == 1, "next waits for page 2 too")
        navigator.add([], page: 2)
        #expect(voice.spoken.map(\.text) == ["One.", "Three."], "page 2 was blank: on to page 3")
    }

    @Test func aPageThatHasNotComeIsWaitedForAndReadWhenItComes() {
        let (voice, navigator) = Self.document(pages: 4)
        navigator.add(Page.page(1, ["One.", "One again."]), page: 1)
        #expect(voice.last.text == "One.")
        #expect(navigator.goToPage(3) == .notYet(page: 3))
        #expect(voice.stopped == [voice.last.id] && navigator.state == .waitingForMore, "reading stops and waits")
        navigator.add(Page.page(2, ["Two."]), page: 2)
        #expect(voice.last.text == "One.", "page 2 is not where it was asked to go")
        navigator.add(Page.page(3, ["Three."]), page: 3)
        #expect(voice.last.text == "Three.")
        // Opened again at page 4: Page Up waits for page 3, still to come.
        let (again, resumed) = Self.document(pages: 4)
        resumed.hold()
        resumed.add(Page.page(1, ["One."]), page: 1)
        resumed.add(Page.page(4, ["Four."]), page: 4)
        resumed.release(at: (page: 4, item: 1))
        #expect(resumed.pagesToCome(forward: false) && !resumed.pagesToCome(forward: true), "pages 2 and 3 to come")
        #expect(resumed.movePage(by: -1) == .notYet(page: 3))
        resumed.add(Page.page(3, ["Three."]), page: 3)
        #expect(again.spoken.map(\.text) == ["Four.", "Three."])
        resumed.previous()
        #expect(again.cues == [.end] && again.last.text == "Three.", "page 2 has not come: no jump to page 1")
    }

    /// Page Up waits for the page before; when it comes blank, reading goes on back to the page before that with
    /// text (asked for next), not forward to the page it was on.
    @Test func pageUpOntoABlankPageGoesOnBackNotForward() {
        let (voice, navigator) = Self.document(pages: 5)
        var waited: [Int] = []
        navigator.onWaiting = { waited.append($0) }
        navigator.hold()
        navigator.add(Page.page(4, ["Four."]), page: 4)
        navigator.release(at: (page: 4, item: 1))
        #expect(navigator.movePage(by: -1) == .notYet(page: 3))
        navigator.add(Page.page(5, ["Five."]), page: 5)
        navigator.add([], page: 3)
        #expect(voice.spoken.map(\.text) == ["Four."], "page 3 was blank: page 2 is waited for, not page 4 read")
        #expect(waited == [2] && navigator.state == .waitingForMore)
        navigator.add(Page.page(2, ["Two."]), page: 2)
        #expect(voice.spoken.map(\.text) == ["Four.", "Two."])
        // Back again: page 1 comes blank too, and there is nothing before it: the first page with text after it.
        #expect(navigator.movePage(by: -1) == .notYet(page: 1))
        navigator.add([], page: 1)
        #expect(voice.spoken.map(\.text) == ["Four.", "Two.", "Two."] && waited == [2])
    }
}

/// Issue 70: a scanned page's headings, told by the height of its recognised lines (no font to ask).
@Suite("read-text: headings on a scanned page")
struct ScannedHeadingTests {
    static var page: ScannedPage { ScannedPage(aspect: 0.7) { "Table of \($0) rows and \($1) columns." } }

    /// A recognised line `height` tall whose top is `top` (normalised, from the bottom), 0.6 wide.
    static func scanned(_ text: String, top: Double, height: Double) -> TextObservation {
        line(text, 0.1, top - height, 0.7, top)
    }

    @Test func aTallerShortLineIsAHeadingAndTheBodyStaysSentences() {
        let lines = [
            Self.scanned("Your electricity bill", top: 0.95, height: 0.045),
            Self.scanned("This letter explains the amount you owe for the", top: 0.88, height: 0.03),
            Self.scanned("winter months and how it was worked out.", top: 0.84, height: 0.03),
            Self.scanned("How to pay", top: 0.77, height: 0.044),
            Self.scanned("Pay by bank transfer or at any post office.", top: 0.70, height: 0.03),
            Self.scanned("Late payments cost five euros.", top: 0.66, height: 0.031),
        ]
        let pipeline = TextPipeline()
        let items = pipeline.process(lines, scanned: Self.page).items
        #expect(
            items.map(\.text) == [
                "Your electricity bill",
                "This letter explains the amount you owe for the winter months and how it was worked out.",
                "How to pay", "Pay by bank transfer or at any post office.", "Late payments cost five euros.",
            ], "\(items.map(\.text))")
        #expect(items.map(\.heading) == [true, false, true, false, false])
        // A photographed page (no `headings`) reads the same lines as before: no heading.
        #expect(!pipeline.process(lines).items.contains { $0.heading })
        // Too short a page to know its body from its headings; a tall line that ends as a sentence is text.
        #expect(!pipeline.process(Array(lines.prefix(2)), scanned: Self.page).items.contains { $0.heading })
        var loud = lines
        loud[3] = Self.scanned("Pay now.", top: 0.77, height: 0.044)
        #expect(
            pipeline.process(loud, scanned: Self.page).items.filter(\.heading).map(\.text) == ["Your electricity bill"])
    }
}

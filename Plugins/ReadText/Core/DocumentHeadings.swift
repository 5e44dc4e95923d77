import Foundation
import OCR

/// One line of a document's text layer, with the font it is set in.
public struct DocumentLine: Equatable, Sendable {
    public var text: String
    /// The largest size of its letters, in points; 0 when the document does not say.
    public var size: Double
    /// Most of its letters are in a bold font.
    public var bold: Bool
    /// The box around its letters, in points from the page's top left corner; nil when the document does not say.
    public var box: DocumentBox?

    public init(_ text: String, size: Double = 0, bold: Bool = false, box: DocumentBox? = nil) {
        self.text = text
        self.size = size
        self.bold = bold
        self.box = box
    }
}

/// Where a line of a document's text layer is: points from the page's top left corner.
public struct DocumentBox: Equatable, Sendable {
    public var left: Double
    public var top: Double
    public var right: Double
    public var bottom: Double

    public init(left: Double, top: Double, right: Double, bottom: Double) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    var height: Double { bottom - top }
    var middle: Double { (top + bottom) / 2 }
}

/// A document page's headings (issue 70): the lines set larger than the page's body text, or bold where the
/// body is not, short and not ending as a sentence does. Each is an item of its own, read as a heading; the
/// lines between them are made into sentences as before. Pure.
public enum DocumentHeadings {
    /// How much larger than the body a line must be to be a heading.
    static let largerBy = 1.2
    /// The longest heading, in characters: a longer line is body text, whatever its size.
    static let longest = 120

    /// The size most of the page's letters are set in (to the half point), and whether most are bold.
    static func body(_ lines: [DocumentLine]) -> (size: Double, bold: Bool) {
        var letters: [Double: Int] = [:]
        var bold = 0
        var all = 0
        for line in lines where line.size > 0 {
            let count = line.text.filter { !$0.isWhitespace }.count
            letters[(line.size * 2).rounded() / 2, default: 0] += count
            all += count
            if line.bold { bold += count }
        }
        let size = letters.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }?.key ?? 0
        return (size, all > 0 && bold * 2 > all)
    }

    /// Whether `text` ends as a sentence or a clause does (a full stop, a comma, a semicolon): no heading.
    static func endsAsSentence(_ text: String) -> Bool {
        text.last.map { SentenceBuilder.terminators.contains($0) || $0 == "," || $0 == ";" } ?? false
    }

    /// Whether `line` is a heading on a page whose body is `body`.
    static func isHeading(_ line: DocumentLine, body: (size: Double, bold: Bool)) -> Bool {
        let text = line.text.trimmingCharacters(in: .whitespaces)
        guard body.size > 0, line.size > 0, text.count >= 2, text.count <= longest,
            text.contains(where: \.isLetter)
        else { return false }
        if line.size >= body.size * largerBy { return true }
        // Bold at the body's size: a heading when short and not a sentence (a bold warning sentence is text).
        return line.bold && !body.bold && line.size >= body.size * 0.95 && text.count <= 80 && !endsAsSentence(text)
    }

    /// The items of one page: each heading alone, marked; each table row by row (`DocumentTables`, `tableIntro`
    /// saying its rows and columns first); the lines between made into sentences by `builder`.
    public static func items(
        _ lines: [DocumentLine], builder: SentenceBuilder, navigation: SentenceBuilder.Navigation,
        tableIntro: (_ rows: Int, _ columns: Int) -> String = { "Table of \($0) rows and \($1) columns." }
    ) -> [ReadingItem] {
        let body = body(lines)
        var items: [ReadingItem] = []
        var run: [String] = []
        func flush() {
            guard !run.isEmpty else { return }
            items += builder.items(PdfDocument.orderedLines(run), navigation: navigation)
            run = []
        }
        for part in DocumentTables.parts(lines) {
            switch part {
            case .table(let table):
                flush()
                items += DocumentTables.items(table, intro: tableIntro(table.rows.count, table.columns))
            case .lines(let lines):
                for line in lines {
                    if isHeading(line, body: body) {
                        flush()
                        items.append(
                            ReadingItem(text: line.text.trimmingCharacters(in: .whitespaces), column: 0, heading: true))
                    } else {
                        run.append(line.text)
                    }
                }
            }
        }
        flush()
        return items
    }
}

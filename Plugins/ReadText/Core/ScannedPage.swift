import Foundation
import OCR

/// What reading a scanned document page (a PDF page without a text layer, a TIFF's page) or a photographed page
/// needs to find its tables (issue 70): its shape, as a recognised box is a fraction of the picture's width across
/// and of its height down, and what is said before a table; a document's page has its headings found too.
public struct ScannedPage {
    /// The picture's width over its height.
    public var aspect: Double
    /// Whether headings are found (a document's page), or only tables (a photographed page, whose larger lines
    /// are read in its sentences as before).
    public var headings: Bool
    /// What is said of a table's size before its rows ("Table of 4 rows and 3 columns.").
    public var tableIntro: (_ rows: Int, _ columns: Int) -> String

    public init(
        aspect: Double, headings: Bool = true, tableIntro: @escaping (_ rows: Int, _ columns: Int) -> String
    ) {
        self.aspect = aspect
        self.headings = headings
        self.tableIntro = tableIntro
    }

    /// A picture of `width` by `height` pixels.
    public init(
        width: Int, height: Int, headings: Bool = true, tableIntro: @escaping (_ rows: Int, _ columns: Int) -> String
    ) {
        self.init(aspect: Double(width) / Double(max(height, 1)), headings: headings, tableIntro: tableIntro)
    }
}

/// A scanned page's headings and tables, found in its recognised lines with the rules a text layer's are found by
/// (`DocumentHeadings`, `DocumentTables`): the letters' heights stand for a font's size, and a line's words
/// set far apart for a table's cells. Pure.
extension TextPipeline {
    /// How much taller than the body's lines a recognised line must be to be a heading: more than a text layer's
    /// 1.2 (`DocumentHeadings.largerBy`), as a word's box holds its ascenders and descenders or not.
    static let headingTallerBy = 1.3

    /// How tall a recognised line's letters stand: the median of its words' heights (a page turned 2° makes a
    /// long line's box taller by a fortieth of its width, a word's hardly), or its box's without words.
    static func height(_ line: TextObservation) -> Double {
        let words = line.words.map(\.box.height).sorted()
        return words.isEmpty ? line.box.height : words[words.count / 2]
    }

    /// The items of a scanned page's lines in reading order: each table row by row where its first line came
    /// (`tables`), each heading alone, marked as one (`DocumentHeadings`' rule, by the letters' heights instead
    /// of a font's size: short, with letters, not ending as a sentence does, and at least `headingTallerBy` the
    /// height most of the page's letters stand in); the lines between made into sentences.
    func documentItems(_ lines: [OrderedLine], page: ScannedPage) -> [ReadingItem] {
        let body = Self.bodyHeight(lines.map(\.observation))
        let tables = Self.tables(lines.map(\.observation), aspect: page.aspect)
        var told = Set<Int>()
        var items: [ReadingItem] = []
        var run: [OrderedLine] = []
        for (index, line) in lines.enumerated() {
            if let number = tables.owner[index] {
                guard told.insert(number).inserted else { continue }
                items += builder.items(run, navigation: options.navigation)
                run = []
                let table = tables.found[number]
                items += DocumentTables.items(table, intro: page.tableIntro(table.rows.count, table.columns))
                continue
            }
            let text = line.observation.text.trimmingCharacters(in: .whitespaces)
            guard page.headings, body > 0, Self.height(line.observation) >= body * Self.headingTallerBy,
                (2...80).contains(text.count),
                text.contains(where: \.isLetter), !DocumentHeadings.endsAsSentence(text)
            else {
                run.append(line)
                continue
            }
            items += builder.items(run, navigation: options.navigation)
            run = []
            items.append(ReadingItem(text: text, column: line.column, lines: [line.observation.box], heading: true))
        }
        return items + builder.items(run, navigation: options.navigation)
    }

    /// The height most of the page's letters stand in: the median of the lines' `height`s, each counted once per
    /// letter; 0 for a page of fewer than three lines (too few to know its body from its headings).
    static func bodyHeight(_ lines: [TextObservation]) -> Double {
        guard lines.count >= 3 else { return 0 }
        let heights = lines.flatMap { line in
            Array(repeating: height(line), count: line.text.filter { !$0.isWhitespace }.count)
        }.sorted()
        return heights.isEmpty ? 0 : heights[heights.count / 2]
    }

    /// How far apart two words of a line must be, in the line's height, to be in two cells of a table: a space
    /// between words is about a third of it.
    static let cellGap = 1.5

    /// The tables among a scanned page's `lines`: each line cut into cells where its words stand far apart, the
    /// cells placed on the page (in the picture's heights, from its top), and the text layer's rule asked.
    /// `owner` gives, for each line in a table, the table's number in `found`.
    static func tables(_ lines: [TextObservation], aspect: Double) -> (found: [DocumentTable], owner: [Int: Int]) {
        var cells: [DocumentLine] = []
        var lineOf: [Int] = []
        for (index, line) in lines.enumerated() {
            for cell in Self.cells(line, aspect: aspect) {
                cells.append(cell)
                lineOf.append(index)
            }
        }
        var owner: [Int: Int] = [:]
        let found = DocumentTables.find(cells)
        for (number, table) in found.enumerated() {
            for cell in table.lines { owner[lineOf[cell]] = number }
        }
        return (found.map(\.table), owner)
    }

    /// One recognised line as the cells it holds: runs of its words apart by less than `cellGap` times its
    /// height, each with its box (across in the picture's heights, down from its top). Every cell of a line
    /// stands level with the line's middle, its letters' height tall: on a page turned a little a row's last
    /// cell is lower than its first, and would otherwise be taken for another row. A line without words is one
    /// cell.
    static func cells(_ line: TextObservation, aspect: Double) -> [DocumentLine] {
        let (middle, tall) = ((line.box.minY + line.box.maxY) / 2, height(line))
        func place(_ box: NormalizedBox) -> DocumentBox {
            DocumentBox(
                left: box.minX * aspect, top: 1 - middle - tall / 2, right: box.maxX * aspect,
                bottom: 1 - middle + tall / 2)
        }
        guard !line.words.isEmpty else { return [DocumentLine(line.text, box: place(line.box))] }
        let gap = cellGap * height(line)
        var runs: [[TextWord]] = []
        for word in line.words {
            if let last = runs.last?.last, (word.box.minX - last.box.maxX) * aspect <= gap {
                runs[runs.count - 1].append(word)
            } else {
                runs.append([word])
            }
        }
        return runs.map { words in
            let box = words.dropFirst().reduce(words[0].box) { joined, word in
                NormalizedBox(
                    minX: min(joined.minX, word.box.minX), minY: min(joined.minY, word.box.minY),
                    maxX: max(joined.maxX, word.box.maxX), maxY: max(joined.maxY, word.box.maxY))
            }
            return DocumentLine(words.map(\.text).joined(separator: " "), box: place(box))
        }
    }
}

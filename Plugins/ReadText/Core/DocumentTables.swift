import Foundation

/// A table found on a document page: its rows top to bottom, each its cells left to right; the first row is the
/// header.
public struct DocumentTable: Equatable, Sendable {
    public var rows: [[String]]

    public init(rows: [[String]]) { self.rows = rows }

    public var columns: Int { rows.first?.count ?? 0 }
}

/// The tables of a document page's text layer (issue 70): lines set side by side in columns that keep to the same
/// places from row to row, ruled or not. Poppler gives a table's cells as lines of their own, in an order that may
/// go down a column before across a row; here they are put back in rows by where they are on the page. Two columns
/// of running text are not a table: a table's cells are short. Pure.
public enum DocumentTables {
    /// A run of a page's lines in their order, or a table where its first cell came.
    public enum Part: Equatable, Sendable {
        case lines([DocumentLine])
        case table(DocumentTable)
    }

    /// The fewest rows a table has, its header included.
    static let fewestRows = 3
    /// The longest cell, in characters, and the longest a table's cells are on average.
    static let longestCell = 40
    static let longestMeanCell = 20
    /// How far below its header a table's first row may be, in the text's height.
    static let widestRowGap = 5.0

    /// `lines` (one page's, in the text layer's order) parted into runs of lines and the tables among them.
    public static func parts(_ lines: [DocumentLine]) -> [Part] {
        let tables = find(lines)
        guard !tables.isEmpty else { return lines.isEmpty ? [] : [.lines(lines)] }
        var owner: [Int: Int] = [:]
        for (number, table) in tables.enumerated() {
            for index in table.lines { owner[index] = number }
        }
        var parts: [Part] = []
        var run: [DocumentLine] = []
        var told: Set<Int> = []
        for (index, line) in lines.enumerated() {
            guard let number = owner[index] else {
                run.append(line)
                continue
            }
            guard told.insert(number).inserted else { continue }
            if !run.isEmpty { parts.append(.lines(run)) }
            run = []
            parts.append(.table(tables[number].table))
        }
        if !run.isEmpty { parts.append(.lines(run)) }
        return parts
    }

    /// A line placed on the page: its index among the page's lines, and its box.
    private struct Cell {
        var index: Int
        var box: DocumentBox
    }

    /// One visual row: the lines whose middles are level, left to right.
    private struct Row {
        var cells: [Cell]
        var top: Double
        var bottom: Double
        var middle: Double { (top + bottom) / 2 }
        var height: Double { bottom - top }
    }

    /// The tables on the page, each with the indexes of the lines it was made of.
    static func find(_ lines: [DocumentLine]) -> [(table: DocumentTable, lines: [Int])] {
        let rows = visualRows(lines)
        var found: [(table: DocumentTable, lines: [Int])] = []
        var start = 0
        while start < rows.count {
            var end = start
            while end + 1 < rows.count,
                continues(
                    rows[end], rows[end + 1], first: rows[start],
                    spacing: end > start ? rows[start + 1].top - rows[start].bottom : nil)
            {
                end += 1
            }
            let run = Array(rows[start...end])
            if run.count >= fewestRows, run[0].cells.count >= 2 {
                let cells = run.map { row in
                    row.cells.map { lines[$0.index].text.trimmingCharacters(in: .whitespaces) }
                }
                let all = cells.flatMap { $0 }
                let mean = Double(all.map(\.count).reduce(0, +)) / Double(max(all.count, 1))
                if all.allSatisfy({ $0.count <= longestCell }), mean <= Double(longestMeanCell) {
                    found.append((DocumentTable(rows: cells), run.flatMap { $0.cells.map(\.index) }))
                }
            }
            start = end + 1
        }
        return found
    }

    /// The page's placed lines grouped into visual rows, top to bottom.
    private static func visualRows(_ lines: [DocumentLine]) -> [Row] {
        let placed = lines.indices.compactMap { index -> Cell? in
            guard let box = lines[index].box, box.height > 0 else { return nil }
            return Cell(index: index, box: box)
        }
        var rows: [Row] = []
        for cell in placed.sorted(by: { $0.box.middle < $1.box.middle }) {
            let box = cell.box
            if var last = rows.last, abs(box.middle - last.middle) < 0.4 * min(box.height, last.height) {
                last.cells.append(cell)
                last.top = min(last.top, box.top)
                last.bottom = max(last.bottom, box.bottom)
                rows[rows.count - 1] = last
            } else {
                rows.append(Row(cells: [cell], top: box.top, bottom: box.bottom))
            }
        }
        return rows.map { row in
            var row = row
            row.cells.sort { $0.box.left < $1.box.left }
            return row
        }
    }

    /// Whether `next` goes on the table whose row before it is `row` and whose first row is `first`: as many
    /// cells, each apart from the next, close below, and each cell in its column (its left edge, right edge or
    /// middle level with the first row's cell, within the text's height: numbers are often set to the right).
    /// Close below: the table's first gap (`spacing`, nil while it has one row) sets how far apart its rows are,
    /// a form's rows often three or four lines apart; a later row may be one line further than that (or two lines
    /// apart, whichever is more), so a line far below that happens to line up is not taken for a row.
    private static func continues(_ row: Row, _ next: Row, first: Row, spacing: Double?) -> Bool {
        let height = max(row.height, next.height)
        let farthest = spacing.map { max(2 * height, $0 + height) } ?? widestRowGap * height
        guard next.cells.count == first.cells.count, first.cells.count >= 2, apart(first), apart(next),
            next.top - row.bottom < farthest
        else { return false }
        let tolerance = max(first.height, next.height)
        return zip(first.cells, next.cells).allSatisfy { head, cell in
            let a = head.box
            let b = cell.box
            return abs(a.left - b.left) < tolerance || abs(a.right - b.right) < tolerance
                || abs((a.left + a.right) / 2 - (b.left + b.right) / 2) < tolerance
        }
    }

    /// Whether each cell of `row` ends well before the next begins (a word's space apart is one line, not two).
    private static func apart(_ row: Row) -> Bool {
        zip(row.cells, row.cells.dropFirst()).allSatisfy { left, right in right.box.left - left.box.right > row.height }
    }

    /// What is said of a table, row by row (`intro` says its size): each cell of the first row under the header
    /// after that column's header ("Item: Apples. Price: 3.20."), the later rows' cells alone, as a listener
    /// knows the columns by then. Printed with `--transcript`, each row is one line, its cells apart by tabs.
    static func items(_ table: DocumentTable, intro: String) -> [ReadingItem] {
        guard let header = table.rows.first else { return [] }
        func place(_ row: Int, _ cells: [String]) -> TablePlace {
            TablePlace(row: row, rows: table.rows.count, columns: table.columns, cells: cells)
        }
        var items = [
            ReadingItem(text: intro, column: 0, printed: header.joined(separator: "\t"), table: place(0, header))
        ]
        for (number, row) in table.rows.dropFirst().enumerated() {
            let said = zip(header, row).map { name, cell in
                number == 0 ? "\(name): \(ending(cell))" : ending(cell)
            }
            items.append(
                ReadingItem(
                    text: said.joined(separator: " "), column: 0, printed: row.joined(separator: "\t"),
                    table: place(number + 1, zip(header, row).map { name, cell in "\(name): \(cell)" })))
        }
        return items
    }

    /// `cell` ending as a sentence does, so that each is heard apart.
    private static func ending(_ cell: String) -> String {
        guard let last = cell.last, !SentenceBuilder.terminators.contains(last) else { return cell }
        return cell + "."
    }
}

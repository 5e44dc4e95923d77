/// How much of a picture looks like a barcode's bars, before zbar can read it: cells of a 16 × 9 grid whose
/// brightness changes strongly in one direction and little in the other (bars are stripes). The guiding tone
/// quickens as the share grows (barcode.md).
public struct BarLikeness: Equatable, Sendable {
    /// 0 (nothing like bars) … 1 (six cells or more of bars).
    public var score: Double
    /// Where the bar-like cells are across the picture, 0 left … 1 right.
    public var across: Double

    static let columns = 16
    static let rows = 9

    public init(grey: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) {
        var striped: [Int] = []
        let cellWidth = width / Self.columns
        let cellHeight = height / Self.rows
        guard cellWidth >= 6, cellHeight >= 6 else {
            score = 0
            across = 0.5
            return
        }
        for row in 0..<Self.rows {
            for column in 0..<Self.columns {
                let cell = Cell(
                    grey: grey, stride: stride, x: column * cellWidth, y: row * cellHeight, width: cellWidth,
                    height: cellHeight)
                if cell.striped { striped.append(column) }
            }
        }
        score = min(1, Double(striped.count) / 6)
        across =
            striped.isEmpty ? 0.5 : (Double(striped.reduce(0, +)) / Double(striped.count) + 0.5) / Double(Self.columns)
    }

    /// One cell's changes of brightness across and down, and how often a strong change turns back (an edge of
    /// a bar, then the next bar's): bars alternate many times along one direction and barely change along
    /// the other; the edge of a roof, a painting's strokes or a fence post do not alternate that often.
    struct Cell {
        var across = 0
        var down = 0
        var samples = 0
        var turnsAcross = 0
        var turnsDown = 0
        var lines = 0
        var columns = 0

        init(grey: UnsafePointer<UInt8>, stride: Int, x: Int, y: Int, width: Int, height: Int) {
            // Along rows: across changes and their turns; the same samples give the down changes.
            for row in Swift.stride(from: y, to: y + height - 2, by: 3) {
                let line = grey + row * stride
                var sign = 0
                for column in Swift.stride(from: x, to: x + width - 2, by: 2) {
                    let change = Int(line[column + 2]) - Int(line[column])
                    across += abs(change)
                    down += abs(Int(line[column + 2 * stride]) - Int(line[column]))
                    samples += 1
                    if abs(change) >= 30, change.signum() != sign {
                        if sign != 0 { turnsAcross += 1 }
                        sign = change.signum()
                    }
                }
                lines += 1
            }
            // Along columns, for bars lying across the picture.
            for column in Swift.stride(from: x, to: x + width - 2, by: 3) {
                var sign = 0
                for row in Swift.stride(from: y, to: y + height - 2, by: 2) {
                    let change = Int(grey[(row + 2) * stride + column]) - Int(grey[row * stride + column])
                    if abs(change) >= 30, change.signum() != sign {
                        if sign != 0 { turnsDown += 1 }
                        sign = change.signum()
                    }
                }
                columns += 1
            }
        }

        /// A mean change of 15 levels or more one way, at most a third of it the other, and at least 6 turns
        /// of 30 levels or more a line that way: printed bars, sharp and dark on light (ripples on water and a
        /// painting's strokes are striped too, but softer).
        var striped: Bool {
            guard samples > 0, lines > 0 else { return false }
            if across >= 15 * samples && across >= 3 * down { return turnsAcross >= 6 * lines }
            if down >= 15 * samples && down >= 3 * across { return turnsDown >= 6 * max(1, columns) }
            return false
        }
    }
}

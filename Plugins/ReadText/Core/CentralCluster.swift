import Foundation
import OCR

/// Page mode (read-text.md §6): finds the block of text around the centre of the frame on a 60×60 grid and
/// keeps only the observations inside it, so the opposite page of an open book or a note in the margin is
/// left out. Pure.
public enum CentralCluster {
    static let size = 60
    static let emptyThreshold = 0.9
    static let baseFillThreshold = 0.1
    static let verticalGap = 8
    static let slantStepDegrees = 5.0
    static let slantSteps = 4

    /// A line on the grid: an anchor cell and an angle in degrees (90 is vertical, 0 horizontal).
    public struct GridLine: Equatable, Sendable {
        public var row: Int
        public var column: Int
        public var angle: Double
    }

    /// The quad's corners in normalised coordinates (bottom-left origin).
    public struct Quad: Equatable, Sendable {
        public var topLeft: (Double, Double)
        public var topRight: (Double, Double)
        public var bottomRight: (Double, Double)
        public var bottomLeft: (Double, Double)

        public static func == (a: Quad, b: Quad) -> Bool {
            [a.topLeft, a.topRight, a.bottomRight, a.bottomLeft].elementsEqual(
                [b.topLeft, b.topRight, b.bottomRight, b.bottomLeft]) { $0.0 == $1.0 && $0.1 == $1.1 }
        }

        /// Winding-number test for a point.
        public func contains(x: Double, y: Double) -> Bool {
            let corners = [topLeft, topRight, bottomRight, bottomLeft]
            var winding = 0
            for index in 0..<4 {
                let (x0, y0) = corners[index]
                let (x1, y1) = corners[(index + 1) % 4]
                let side = (x1 - x0) * (y - y0) - (x - x0) * (y1 - y0)
                if y0 <= y {
                    if y1 > y && side > 0 { winding += 1 }
                } else if y1 <= y && side < 0 {
                    winding -= 1
                }
            }
            return winding != 0
        }
    }

    /// The observations to read in page mode; all of them when there are fewer than 6 or no cluster.
    public static func keep(_ observations: [TextObservation]) -> [TextObservation] {
        guard observations.count >= ReadTextParameters.clusterMinimumObservations, let quad = quad(for: observations)
        else { return observations }
        return observations.filter { quad.contains(x: $0.box.midX, y: $0.box.midY) }
    }

    /// The quad around the central block, or nil when nothing is marked.
    public static func quad(for observations: [TextObservation]) -> Quad? {
        quad(grid: mark(observations))
    }

    /// Marks the cells each box covers (row 0 at the top).
    public static func mark(_ observations: [TextObservation]) -> [[Bool]] {
        var grid = Array(repeating: Array(repeating: false, count: size), count: size)
        func clamp(_ value: Double) -> Int { min(size - 1, max(0, Int(floor(value)))) }
        for observation in observations {
            let box = observation.box
            let top = clamp((1 - box.maxY) * Double(size))
            let bottom = max(top, clamp((1 - box.minY) * Double(size)))
            let left = clamp(box.minX * Double(size))
            let right = max(left, clamp(box.maxX * Double(size)))
            for row in top...bottom {
                for column in left...right { grid[row][column] = true }
            }
        }
        return grid
    }

    /// The quad for a marked grid.
    public static func quad(grid: [[Bool]]) -> Quad? {
        guard let seed = seed(grid) else { return nil }
        var region = (minR: seed.0, maxR: seed.0, minC: seed.1, maxC: seed.1)
        grow(&region, grid: grid)
        var top = horizontalLine(grid, region, upwards: true)
        var bottom = horizontalLine(grid, region, upwards: false)
        if bridgeColumns(&region, rows: min(top.row, bottom.row)...max(top.row, bottom.row), grid: grid) {
            top = horizontalLine(grid, region, upwards: true)
            bottom = horizontalLine(grid, region, upwards: false)
        }
        let left = sideLine(grid, region, leftwards: true)
        let right = sideLine(grid, region, leftwards: false)
        func point(_ line: GridLine) -> (Double, Double) {
            (Double(line.column) / Double(size), Double(size - 1 - line.row) / Double(size))
        }
        func meet(_ side: GridLine, _ level: GridLine) -> (Double, Double) {
            let (sx, sy) = point(side)
            let (_, ly) = point(level)
            guard abs(side.angle - 90) >= 1 else { return (sx, ly) }
            let slope = tan(side.angle * Double.pi / 180)
            return (sx + (ly - sy) / slope, ly)
        }
        return Quad(
            topLeft: meet(left, top), topRight: meet(right, top), bottomRight: meet(right, bottom),
            bottomLeft: meet(left, bottom))
    }

    /// The marked cell nearest (30, 30); row-major, the first minimum wins.
    static func seed(_ grid: [[Bool]]) -> (Int, Int)? {
        var best: (Int, Int)?
        var bestDistance = Double.infinity
        for row in 0..<size {
            for column in 0..<size where grid[row][column] {
                let distance = hypot(Double(row - 30), Double(column - 30))
                if distance < bestDistance {
                    bestDistance = distance
                    best = (row, column)
                }
            }
        }
        return best
    }

    /// Empty ÷ sampled cells; out-of-grid cells are skipped; nothing sampled counts as 1.
    static func emptiness(_ grid: [[Bool]], _ cells: [(Int, Int)]) -> Double {
        var sampled = 0
        var empty = 0
        for (row, column) in cells where (0..<size).contains(row) && (0..<size).contains(column) {
            sampled += 1
            if !grid[row][column] { empty += 1 }
        }
        return sampled == 0 ? 1 : Double(empty) / Double(sampled)
    }

    static func grow(_ region: inout (minR: Int, maxR: Int, minC: Int, maxC: Int), grid: [[Bool]]) {
        var failed = [false, false, false, false]
        while failed.contains(false) {
            for direction in 0..<4 where !failed[direction] {
                let cells: [(Int, Int)]
                switch direction {
                case 0: cells = (region.minC...region.maxC).map { (region.minR - 1, $0) }
                case 1: cells = (region.minC...region.maxC).map { (region.maxR + 1, $0) }
                case 2: cells = (region.minR...region.maxR).map { ($0, region.minC - 1) }
                default: cells = (region.minR...region.maxR).map { ($0, region.maxC + 1) }
                }
                guard emptiness(grid, cells) < baseFillThreshold else {
                    failed[direction] = true
                    continue
                }
                switch direction {
                case 0: region.minR -= 1
                case 1: region.maxR += 1
                case 2: region.minC -= 1
                default: region.maxC += 1
                }
            }
        }
    }

    /// Beyond the original: a page set in columns keeps all its columns. Over the rows between the top and
    /// bottom lines, a block across a gutter of at most 10 cells (a sixth of the frame) whose text rows match
    /// at least half of the near block's, and which does not run off the frame's edge, is another column, so
    /// the region grows over it. An open book's opposite page is cut by the frame's edge, or lies beyond a
    /// wider gap, and stays out. Returns true when the region grew.
    static func bridgeColumns(
        _ region: inout (minR: Int, maxR: Int, minC: Int, maxC: Int), rows: ClosedRange<Int>, grid: [[Bool]]
    ) -> Bool {
        let maximumGap = 10
        let inGrid = { (column: Int) in (0..<size).contains(column) }
        func strip(_ column: Int) -> Double { emptiness(grid, rows.map { ($0, column) }) }
        func markedRows(_ from: Int, _ to: Int) -> Set<Int> {
            let columns = min(from, to)...max(from, to)
            return Set(rows.filter { row in columns.contains { grid[row][$0] } })
        }
        var grew = false
        for step in [1, -1] {
            while true {
                var near = step > 0 ? region.maxC : region.minC
                while inGrid(near + step) && strip(near + step) < emptyThreshold { near += step }
                var column = near + step
                while inGrid(column) && strip(column) >= emptyThreshold && abs(column - near) <= maximumGap {
                    column += step
                }
                guard inGrid(column), abs(column - near) > 1, abs(column - near) <= maximumGap else { break }
                var far = column
                while inGrid(far + step) && strip(far + step) < emptyThreshold { far += step }
                guard inGrid(far + step) else { break }  // runs off the frame: an opposite page
                let nearRows = markedRows(step > 0 ? region.minC : region.maxC, near)
                let farRows = markedRows(column, far)
                guard !nearRows.isEmpty, nearRows.intersection(farRows).count * 2 >= nearRows.count else { break }
                if step > 0 { region.maxC = far } else { region.minC = far }
                grew = true
            }
        }
        return grew
    }

    static func horizontalLine(
        _ grid: [[Bool]], _ region: (minR: Int, maxR: Int, minC: Int, maxC: Int), upwards: Bool
    ) -> GridLine {
        let anchor = (region.minC + region.maxC) / 2
        func window(_ p: Int) -> Double {
            emptiness(
                grid, ((p - (verticalGap - 1))...p).flatMap { row in (region.minC...region.maxC).map { (row, $0) } })
        }
        if upwards {
            var p = region.minR - 1
            while p - (verticalGap - 1) >= 0 {
                if window(p) >= emptyThreshold { return GridLine(row: p - 7 + 4, column: anchor, angle: 0) }
                p -= 1
            }
            return GridLine(row: 0, column: anchor, angle: 0)
        }
        var p = region.maxR + verticalGap
        while p <= size - 1 {
            if window(p) >= emptyThreshold { return GridLine(row: p - 7 + 4, column: anchor, angle: 0) }
            p += 1
        }
        return GridLine(row: size - 1, column: anchor, angle: 0)
    }

    static func sideLine(
        _ grid: [[Bool]], _ region: (minR: Int, maxR: Int, minC: Int, maxC: Int), leftwards: Bool
    ) -> GridLine {
        let height = region.maxR - region.minR + 1
        let pivot = Double(height - 1) / 2
        var variants: [(shift: Double, angle: Double)] = [(0, 90)]
        for step in 1...slantSteps {
            for sign in [-1.0, 1.0] {
                let degrees = slantStepDegrees * Double(step)
                let shift = sign * (tan(degrees * Double.pi / 180) * Double(height) / 2).rounded()
                variants.append((shift, 90 + degrees * sign))
            }
        }
        let columns =
            leftwards ? Array(stride(from: region.minC - 1, through: 0, by: -1)) : Array((region.maxC + 1)..<size)
        for column in columns {
            var best = -1.0
            var bestAngle = 90.0
            for variant in variants {
                let cells = (0..<height).map { k -> (Int, Int) in
                    let offset = ((Double(k) - pivot) / max(1, pivot) * variant.shift).rounded()
                    return (region.minR + k, column + Int(offset))
                }
                let value = emptiness(grid, cells)
                if value > best {
                    best = value
                    bestAngle = variant.angle
                }
            }
            if best >= emptyThreshold {
                return GridLine(row: (region.minR + region.maxR) / 2, column: column, angle: bestAngle)
            }
        }
        return GridLine(row: (region.minR + region.maxR) / 2, column: leftwards ? 0 : size - 1, angle: 90)
    }
}

import OCR

/// A recognised line in reading order, with the column it belongs to (0 when there are no columns).
public struct OrderedLine: Equatable, Sendable {
    public var observation: TextObservation
    public var column: Int
}

/// Reading order (read-text.md §7): columns left to right when a gutter separates them, bands between
/// spanning lines top to bottom; otherwise top to bottom as the original did. Pure.
public enum ReadingOrder {
    public enum Mode: String, Sendable {
        case columns, rows
    }

    /// The lines in reading order and how many columns were found (1 when none).
    public static func order(_ observations: [TextObservation], mode: Mode = .columns) -> (
        lines: [OrderedLine], columns: Int
    ) {
        let topDown = observations.sorted { $0.box.maxY > $1.box.maxY }
        guard mode == .columns, let left = observations.map(\.box.minX).min(),
            let right = observations.map(\.box.maxX).max()
        else { return (topDown.map { OrderedLine(observation: $0, column: 0) }, 1) }
        let width = max(1e-6, right - left)
        let spanning = { (observation: TextObservation) in observation.box.width > 0.6 * width }
        let narrow = observations.filter { !spanning($0) }
        let gutters = findGutters(narrow, left: left, width: width)
        guard !gutters.isEmpty else { return (topDown.map { OrderedLine(observation: $0, column: 0) }, 1) }
        func column(of observation: TextObservation) -> Int { gutters.filter { $0 < observation.box.midX }.count }
        var ordered: [OrderedLine] = []
        var band: [TextObservation] = []
        func flush() {
            let sorted = band.sorted { (column(of: $0), -$0.box.maxY) < (column(of: $1), -$1.box.maxY) }
            ordered += sorted.map { OrderedLine(observation: $0, column: column(of: $0)) }
            band.removeAll()
        }
        for observation in topDown {
            if spanning(observation) {
                flush()
                ordered.append(OrderedLine(observation: observation, column: 0))
            } else {
                band.append(observation)
            }
        }
        flush()
        return (ordered, gutters.count + 1)
    }

    /// Gutter positions (normalised x): runs of ≥ 3 empty bins of a 120-bin histogram between occupied bins,
    /// with at least 3 line centres on each side.
    static func findGutters(_ lines: [TextObservation], left: Double, width: Double) -> [Double] {
        let bins = 120
        var occupied = [Bool](repeating: false, count: bins)
        func bin(_ x: Double) -> Int { min(bins - 1, max(0, Int((x - left) / width * Double(bins)))) }
        for line in lines {
            for index in bin(line.box.minX)...bin(line.box.maxX) { occupied[index] = true }
        }
        var gutters: [Double] = []
        var index = 0
        while index < bins {
            guard !occupied[index] else {
                index += 1
                continue
            }
            let start = index
            while index < bins && !occupied[index] { index += 1 }
            let length = index - start
            guard start > 0, index < bins, length >= 3 else { continue }
            let position = left + (Double(start) + Double(length) / 2) / Double(bins) * width
            let leftCount = lines.filter { $0.box.midX < position }.count
            let rightCount = lines.count - leftCount
            if leftCount >= 3 && rightCount >= 3 { gutters.append(position) }
        }
        return gutters
    }
}

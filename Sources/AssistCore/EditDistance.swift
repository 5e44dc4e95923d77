/// Levenshtein distance: edits (insert, delete, replace) between two texts, for suggesting plugin ids and the
/// setting key meant.
package enum EditDistance {
    package static func between(_ a: String, _ b: String) -> Int {
        let left = Array(a)
        let right = Array(b)
        guard !left.isEmpty else { return right.count }
        guard !right.isEmpty else { return left.count }
        var previous = Array(0...right.count)
        for i in 1...left.count {
            var current = [i] + Array(repeating: 0, count: right.count)
            for j in 1...right.count {
                let cost = left[i - 1] == right[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            previous = current
        }
        return previous[right.count]
    }
}

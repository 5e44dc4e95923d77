import Foundation
import OCR

/// Text search's query rules, matching and target point (find-object.md §5).
public enum TextSearch {
    public enum Mode: String, Sendable {
        case exact
        case accentInsensitive = "accent-insensitive"
        case fuzzy
    }

    /// The query as searched (trimmed, lower-cased), or nil with why it cannot be used.
    public static func validate(_ query: String) -> Result<String, QueryProblem> {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .failure(.empty) }
        guard trimmed.count <= 100 else { return .failure(.tooLong) }
        guard trimmed.unicodeScalars.contains(where: { CharacterSet.alphanumerics.contains($0) }) else {
            return .failure(.noLetters)
        }
        return .success(trimmed.lowercased())
    }

    public enum QueryProblem: Error, Equatable, Sendable {
        case empty, tooLong, noLetters
    }

    /// Adds `query` to the front of `history`, de-duplicated, at most 10.
    public static func remember(_ query: String, in history: [String]) -> [String] {
        Array(([query.lowercased()] + history.filter { $0 != query.lowercased() }).prefix(10))
    }

    /// Where `query` occurs in `line`: character offsets (upper exclusive) of the best occurrence nearest the
    /// middle, or nil. Fuzzy allows 0, 1 or 2 edits for queries of 1–3, 4–7 or 8+ characters.
    public static func match(_ query: String, in line: String, mode: Mode) -> Range<Int>? {
        let text = Array(normalise(line, mode))
        let wanted = Array(normalise(query, mode))
        guard !wanted.isEmpty, !text.isEmpty else { return nil }
        switch mode {
        case .exact, .accentInsensitive:
            var found: [Range<Int>] = []
            var start = 0
            while start + wanted.count <= text.count {
                if Array(text[start..<(start + wanted.count)]) == wanted {
                    found.append(start..<(start + wanted.count))
                }
                start += 1
            }
            let middle = Double(text.count) / 2
            return found.min {
                abs(Double($0.lowerBound + $0.upperBound) / 2 - middle)
                    < abs(Double($1.lowerBound + $1.upperBound) / 2 - middle)
            }
        case .fuzzy:
            let allowed = wanted.count <= 3 ? 0 : (wanted.count <= 7 ? 1 : 2)
            return sellers(wanted, in: text, allowed: allowed)
        }
    }

    /// Sellers' approximate substring search: the end with the fewest edits, then its start.
    static func sellers(_ pattern: [Character], in text: [Character], allowed: Int) -> Range<Int>? {
        let m = pattern.count
        // column[i] = edits to match pattern[..<i] ending here; start[i] = where that match began.
        var column = Array(0...m)
        var starts = Array(repeating: 0, count: m + 1)
        var best: (distance: Int, range: Range<Int>)?
        for (j, character) in text.enumerated() {
            var next = [0] + Array(repeating: 0, count: m)
            var nextStarts = [j + 1] + Array(repeating: 0, count: m)
            for i in 1...m {
                let substitute = column[i - 1] + (pattern[i - 1] == character ? 0 : 1)
                let delete = column[i] + 1
                let insert = next[i - 1] + 1
                if substitute <= delete && substitute <= insert {
                    next[i] = substitute
                    nextStarts[i] = i == 1 ? j : starts[i - 1]
                } else if delete <= insert {
                    next[i] = delete
                    nextStarts[i] = starts[i]
                } else {
                    next[i] = insert
                    nextStarts[i] = nextStarts[i - 1]
                }
            }
            column = next
            starts = nextStarts
            if column[m] <= allowed, column[m] < (best?.distance ?? Int.max) {
                best = (column[m], starts[m]..<(j + 1))
            }
        }
        return best?.range
    }

    static func normalise(_ text: String, _ mode: Mode) -> String {
        let lowered = text.lowercased()
        guard mode != .exact else { return lowered }
        let stripped = lowered.replacingOccurrences(of: "ё", with: "е").decomposedStringWithCanonicalMapping
            .unicodeScalars.filter { !(0x0300...0x036F).contains($0.value) }
        return String(String.UnicodeScalarView(stripped))
    }

    /// The target's x within a line box (`minX`, `width`) for a match at `range` of a `length`-character line.
    public static func targetX(range: Range<Int>, length: Int, minX: Double, width: Double) -> Double {
        guard length > 0 else { return minX + width / 2 }
        return minX + (Double(range.lowerBound + range.upperBound) / 2 / Double(length)) * width
    }

    /// The target's x for a match at `range` of `line`'s text: interpolated inside a word's box when the match
    /// lies within that one word, otherwise across the line's box.
    public static func targetX(range: Range<Int>, in line: TextObservation) -> Double {
        let characters = Array(line.text)
        var cursor = 0
        for word in line.words {
            let letters = Array(word.text)
            guard let start = firstIndex(of: letters, in: characters, from: cursor) else { continue }
            let span = start..<(start + letters.count)
            cursor = span.upperBound
            if span.contains(range.lowerBound), range.upperBound <= span.upperBound {
                let inside = (range.lowerBound - start)..<(range.upperBound - start)
                return targetX(range: inside, length: letters.count, minX: word.box.minX, width: word.box.width)
            }
        }
        return targetX(range: range, length: characters.count, minX: line.box.minX, width: line.box.width)
    }

    private static func firstIndex(of part: [Character], in whole: [Character], from: Int) -> Int? {
        guard !part.isEmpty, part.count <= whole.count else { return nil }
        return (from...(whole.count - part.count)).first { whole[$0..<($0 + part.count)].elementsEqual(part) }
    }
}

import Foundation

/// Renders pages of text with ImageMagick and a real font, for OCR tests: lines at known places, optional
/// degradations (rotation, blur, noise, low contrast), columns and an opposite page.
package struct PageRenderer {
    /// A block of lines drawn from (x, y) downwards.
    package struct Block {
        package var lines: [String]
        package var x: Int
        package var y: Int
        package var pointSize: Int = 34
        package var lineHeight: Int = 58

        package init(_ lines: [String], x: Int, y: Int, pointSize: Int = 34, lineHeight: Int = 58) {
            self.lines = lines
            self.x = x
            self.y = y
            self.pointSize = pointSize
            self.lineHeight = lineHeight
        }
    }

    package var width = 1600
    package var height = 1000
    package var font = "DejaVu-Sans"
    /// Extra ImageMagick operators applied after drawing ("-rotate 3", "-blur 0x1" ...).
    package var degrade: [String] = []

    package init(width: Int = 1600, height: Int = 1000, font: String = "DejaVu-Sans", degrade: [String] = []) {
        self.width = width
        self.height = height
        self.font = font
        self.degrade = degrade
    }

    /// The page the command-line tests have read-text read, saved at `url`: three sentences on two lines, one with
    /// an abbreviation's full stop inside it ("Call Dr. Smith tomorrow morning. He is in.").
    package static func renderTwoLinePage(to url: URL) throws {
        try PageRenderer().render(
            [
                .init(
                    ["Call Dr. Smith tomorrow morning. He is in.", "Reading aloud helps people who cannot see."],
                    x: 100, y: 200)
            ],
            to: url)
    }

    /// Draws `blocks` into `url` (PNG or JPEG by extension).
    package func render(_ blocks: [Block], to url: URL) throws {
        var arguments = ["-size", "\(width)x\(height)", "xc:white", "-font", font, "-fill", "black"]
        for block in blocks {
            arguments += ["-pointsize", String(block.pointSize)]
            for (index, line) in block.lines.enumerated() {
                arguments += ["-annotate", "+\(block.x)+\(block.y + index * block.lineHeight)", line]
            }
        }
        arguments += degrade
        let result = try TestMedia.program("/usr/bin/convert", arguments, output: url.path)
        guard result.status == 0 else {
            throw CPluginBuilder.BuildFailure(message: "convert failed: \(result.standardError)")
        }
    }

    /// Character error rate: edit distance over the reference's length, whitespace runs collapsed.
    package static func characterErrorRate(_ recognised: String, reference: String) -> Double {
        func normal(_ text: String) -> [Character] {
            Array(text.split(whereSeparator: \.isWhitespace).joined(separator: " "))
        }
        let a = normal(recognised)
        let b = normal(reference)
        guard !b.isEmpty else { return a.isEmpty ? 0 : 1 }
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return Double(a.isEmpty ? b.count : previous[b.count]) / Double(b.count)
    }

    /// Where `line` appears in `text`, allowing OCR's small errors: the start of every non-overlapping stretch of
    /// `text` within `tolerance` (a share of the line's length) edits of `line`, best first, found by
    /// semi-global alignment. Spaces are ignored, so Chinese with or without spaces compares alike.
    package static func appearances(of line: String, in text: String, tolerance: Double = 0.2) -> [Int] {
        let pattern = Array(line.filter { !$0.isWhitespace })
        var haystack = Array(text.filter { !$0.isWhitespace })
        guard !pattern.isEmpty else { return [] }
        let limit = Int(Double(pattern.count) * tolerance)
        var found: [Int] = []
        while true {
            // distance[i][j]: edits to match pattern[..<i] ending at haystack[j - 1], starting anywhere.
            var previous = [Int](repeating: 0, count: haystack.count + 1)
            var previousStart = Array(0...haystack.count)
            for i in 1...pattern.count {
                var current = [i] + [Int](repeating: 0, count: haystack.count)
                var currentStart = [0] + [Int](repeating: 0, count: haystack.count)
                for j in stride(from: 1, through: haystack.count, by: 1) {
                    let substitute = previous[j - 1] + (pattern[i - 1] == haystack[j - 1] ? 0 : 1)
                    let delete = previous[j] + 1
                    let insert = current[j - 1] + 1
                    if substitute <= delete && substitute <= insert {
                        current[j] = substitute
                        currentStart[j] = previousStart[j - 1]
                    } else if delete <= insert {
                        current[j] = delete
                        currentStart[j] = previousStart[j]
                    } else {
                        current[j] = insert
                        currentStart[j] = currentStart[j - 1]
                    }
                }
                previous = current
                previousStart = currentStart
            }
            guard let best = previous.indices.dropFirst().min(by: { previous[$0] < previous[$1] }),
                previous[best] <= limit
            else { return found }
            let start = previousStart[best]
            found.append(start)
            // Blank the match out and look again.
            for index in start..<best { haystack[index] = "\u{0}" }
        }
    }
}

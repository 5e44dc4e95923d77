import Foundation
import Ink

/// A study text (information sheet, consent, introduction, recording help): a markdown file with an optional
/// metadata block, read by ear as an outline of headings and paragraphs, and saved whole as HTML (spec §3.3–3.7).
public struct StudyText: Equatable, Sendable {
    /// One piece of the outline, in reading order.
    public struct Piece: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            case heading(level: Int, anchor: String)
            case paragraph
        }
        public var kind: Kind
        /// Plain text for speech and braille: markup gone, a link's text followed by its address unless it
        /// jumps inside this text.
        public var text: String
        /// Anchors of headings this piece links to (`[text](#slug)`), in order.
        public var jumps: [String]
    }

    public var metadata: [(key: String, value: String)]
    public var pieces: [Piece]
    /// The body as HTML (headings carry their `id`).
    public var html: String

    public static func == (lhs: StudyText, rhs: StudyText) -> Bool {
        lhs.metadata.map { "\($0.key)=\($0.value)" } == rhs.metadata.map { "\($0.key)=\($0.value)" }
            && lhs.pieces == rhs.pieces && lhs.html == rhs.html
    }

    /// The consent statements: metadata values ordered by the natural sort of their keys.
    public var statements: [String] {
        metadata.sorted { Self.naturalOrder($0.key, $1.key) }.map(\.value)
    }

    public init(markdown: String) {
        let (metadata, body) = Self.splitMetadata(markdown)
        self.metadata = metadata
        let collector = OutlineCollector()
        var parser = MarkdownParser()
        parser.addModifier(
            Modifier(target: .headings) { html, markdown in
                let raw = String(markdown)
                let level = raw.prefix { $0 == "#" }.count
                let title = Self.plain(raw.trimmingCharacters(in: CharacterSet(charactersIn: "#").union(.whitespaces)))
                let anchor = Self.anchor(raw)
                collector.pieces.append(
                    Piece(kind: .heading(level: max(1, level), anchor: anchor), text: title.text, jumps: title.jumps))
                // The heading's id, so that `#slug` links work in the saved page too.
                guard let close = html.firstIndex(of: ">") else { return html }
                return String(html[..<close]) + " id=\"\(anchor)\"" + String(html[close...])
            })
        parser.addModifier(
            Modifier(target: .paragraphs) { html, markdown in
                let text = Self.plain(String(markdown).trimmingCharacters(in: .whitespacesAndNewlines))
                if !text.text.isEmpty {
                    collector.pieces.append(Piece(kind: .paragraph, text: text.text, jumps: text.jumps))
                }
                return html
            })
        parser.addModifier(
            Modifier(target: .lists) { html, markdown in
                for line in String(markdown).split(separator: "\n") {
                    var item = line.trimmingCharacters(in: .whitespaces)
                    if let first = item.first, "-*+".contains(first) {
                        item = String(item.dropFirst())
                    } else if let dot = item.firstIndex(of: "."), item[..<dot].allSatisfy(\.isNumber) {
                        item = String(item[item.index(after: dot)...])
                    }
                    let text = Self.plain(item.trimmingCharacters(in: .whitespaces))
                    if !text.text.isEmpty {
                        collector.pieces.append(Piece(kind: .paragraph, text: text.text, jumps: text.jumps))
                    }
                }
                return html
            })
        // Ink reads a metadata block of its own when the text's first character is "-", and version 0.6.0 then
        // reads past the end of an unclosed one (the fuzzer's find). The metadata is ours: an empty HTML comment
        // first means Ink never tries.
        let first = body.first { !$0.isWhitespace }
        let safe = Self.linksOnly(body)
        // Ink 0.6.0 also reads past the end of a text that ends inside a list or after white space (the fuzzer
        // again): the text Ink sees always ends with an empty comment of its own, after a blank line.
        html = parser.html(from: (first == "-" ? "<!-- -->\n" : "") + safe + "\n\n<!-- -->")
        pieces = collector.pieces
    }

    /// The whole page for "Save as HTML": doctype, title, the body; metadata values (consent statements)
    /// as an escaped list before it.
    public func page(title: String) -> String {
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<title>\(Self.escaped(title))</title>\n</head>\n<body>\n"
        if !metadata.isEmpty {
            page += "<ol>\n" + statements.map { "<li>\(Self.escaped($0))</li>\n" }.joined() + "</ol>\n"
        }
        return page + html + "\n</body>\n</html>\n"
    }

    // MARK: Rules of spec §3.4–3.6

    /// The metadata block (§3.4): the first line exactly `---`, then `key: value` lines (a line without a
    /// colon continues the previous value after a space), up to the next `---`; empty values dropped.
    static func splitMetadata(_ markdown: String) -> ([(key: String, value: String)], String) {
        var lines = markdown.components(separatedBy: "\n").map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        guard lines.first == "---", let end = lines.dropFirst().firstIndex(of: "---") else { return ([], markdown) }
        var pairs: [(key: String, value: String)] = []
        for line in lines[1..<end] {
            if let colon = line.firstIndex(of: ":") {
                let key = line[..<colon].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                pairs.append((key, value))
            } else if !pairs.isEmpty {
                let more = line.trimmingCharacters(in: .whitespaces)
                if !more.isEmpty {
                    pairs[pairs.count - 1].value += (pairs[pairs.count - 1].value.isEmpty ? "" : " ") + more
                }
            }
        }
        lines.removeSubrange(0...end)
        return (pairs.filter { !$0.value.isEmpty }, lines.joined(separator: "\n"))
    }

    /// Natural order (§3.5): runs of digits compare as numbers, so `Consent2` comes before `Consent10`.
    public static func naturalOrder(_ a: String, _ b: String) -> Bool {
        var left = Substring(a)
        var right = Substring(b)
        while let x = left.first, let y = right.first {
            if x.isASCII && x.isNumber && y.isASCII && y.isNumber {
                let leftDigits = left.prefix { $0.isASCII && $0.isNumber }
                let rightDigits = right.prefix { $0.isASCII && $0.isNumber }
                let leftNumber = leftDigits.drop { $0 == "0" }
                let rightNumber = rightDigits.drop { $0 == "0" }
                if leftNumber.count != rightNumber.count { return leftNumber.count < rightNumber.count }
                if leftNumber != rightNumber { return leftNumber < rightNumber }
                left = left.dropFirst(leftDigits.count)
                right = right.dropFirst(rightDigits.count)
            } else {
                if x != y { return x < y }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        return left.isEmpty && !right.isEmpty
    }

    /// A heading's anchor (§3.6): `#` trimmed at both ends, lower case, white space runs to `-`, anything but
    /// word characters and `-` removed, `-` runs collapsed and trimmed.
    public static func anchor(_ heading: String) -> String {
        let trimmed = heading.trimmingCharacters(in: CharacterSet(charactersIn: "#")).trimmingCharacters(
            in: .whitespaces
        ).lowercased()
        var slug = ""
        var inSpace = false
        for character in trimmed {
            if character.isWhitespace {
                if !inSpace { slug.append("-") }
                inSpace = true
                continue
            }
            inSpace = false
            if character == "-" || character == "_" || character.isLetter || character.isNumber
                || character.unicodeScalars.contains(where: { $0.properties.generalCategory == .nonspacingMark })
            {
                slug.append(character)
            }
        }
        while slug.contains("--") { slug = slug.replacingOccurrences(of: "--", with: "-") }
        return slug.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
    }

    /// Ink's inline parsing takes exponential time in unmatched `[` (20 of them: seconds; found by the fuzzer):
    /// a `[` that does not open a plain `[text](target)` on its line becomes the entity `&#91;`, which renders
    /// as the same character.
    static func linksOnly(_ source: String) -> String {
        // Raw HTML is not part of a study text (and the saved page must carry none): every `<` is text. Ink's
        // HTML reading is as slow on runs of `<` as its links are on `[`.
        let markdown = source.replacingOccurrences(of: "<", with: "&lt;")
        guard markdown.contains("[") else { return markdown }
        return markdown.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var out = ""
            var index = line.startIndex
            while index < line.endIndex {
                let character = line[index]
                guard character == "[" else {
                    out.append(character)
                    index = line.index(after: index)
                    continue
                }
                let rest = line[line.index(after: index)...]
                if let close = rest.firstIndex(of: "]"), !rest[..<close].contains("["),
                    rest[rest.index(after: close)...].first == "(",
                    let end = rest[close...].firstIndex(of: ")"),
                    !rest[rest.index(close, offsetBy: 2)..<end].contains(where: { "[]()".contains($0) })
                {
                    out += line[index...end]
                    index = line.index(after: end)
                } else {
                    out += "&#91;"
                    index = line.index(after: index)
                }
            }
            return out
        }.joined(separator: "\n")
    }

    /// Markdown inline text as plain text: emphasis and code marks dropped; `[text](#slug)` becomes its text
    /// (and a jump); `[text](url)` its text and the address.
    static func plain(_ markdown: String) -> (text: String, jumps: [String]) {
        var text = ""
        var jumps: [String] = []
        var rest = Substring(markdown)
        while let open = rest.firstIndex(of: "[") {
            text += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "]"), after[after.index(after: close)...].first == "(",
                let end = after[close...].firstIndex(of: ")")
            else {
                text += "["
                rest = after
                continue
            }
            let label = after[..<close]
            let target = after[after.index(close, offsetBy: 2)..<end]
            if target.hasPrefix("#") {
                text += label
                jumps.append(String(target.dropFirst()))
            } else {
                text += "\(label) (\(target))"
            }
            rest = after[after.index(after: end)...]
        }
        text += rest
        for mark in ["**", "__", "`"] { text = text.replacingOccurrences(of: mark, with: "") }
        text = text.replacingOccurrences(of: "&#91;", with: "[").replacingOccurrences(of: "&lt;", with: "<")
        text = text.replacingOccurrences(of: "*", with: "")
        let words = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return (words, jumps)
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// Gathers outline pieces while Ink renders (its modifiers run in document order).
private final class OutlineCollector {
    var pieces: [StudyText.Piece] = []
}

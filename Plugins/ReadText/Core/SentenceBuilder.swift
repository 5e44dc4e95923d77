import Foundation
import OCR

/// One thing to read: a sentence or a line, with the column it starts in.
public struct ReadingItem: Equatable, Sendable {
    public var text: String
    public var column: Int
    /// The document page it is on, from 1; 0 for a picture.
    public var page = 0
    /// The boxes of the lines it was read from, in the picture read (normalised, bottom-left origin): what the
    /// low-vision view outlines while it is read (docs/view.md). Empty for a document's text layer. Not part of
    /// equality: two readings of the same text are the same reading wherever a line's box fell.
    public var lines: [NormalizedBox] = []
    /// A document's heading (`DocumentHeadings`): said as one, and where h and H move to.
    public var heading = false
    /// What `--transcript` prints for it when that is not its text: a table's row, its cells apart by tabs
    /// (`DocumentTables`).
    public var printed: String?
    /// Where it is in a document's table, when it is one of its rows.
    public var table: TablePlace?

    public init(
        text: String, column: Int, page: Int = 0, lines: [NormalizedBox] = [], heading: Bool = false,
        printed: String? = nil, table: TablePlace? = nil
    ) {
        self.text = text
        self.column = column
        self.page = page
        self.lines = lines
        self.heading = heading
        self.printed = printed
        self.table = table
    }

    public static func == (left: ReadingItem, right: ReadingItem) -> Bool {
        left.text == right.text && left.column == right.column && left.page == right.page
            && left.heading == right.heading && left.printed == right.printed && left.table == right.table
    }
}

/// A reading item's place in a table (`DocumentTables`): its row, from 1 for the first under the header (0 is the
/// table's start, where its size is said), of `rows` (the header's included), and the table's columns.
public struct TablePlace: Equatable, Sendable {
    public var row: Int
    public var rows: Int
    public var columns: Int
    /// What each of the row's cells says when moved to alone (Left and Right): after its column's header
    /// ("Price: 3.20"), and at the table's start the headers alone.
    public var cells: [String]

    public init(row: Int, rows: Int, columns: Int, cells: [String] = []) {
        self.row = row
        self.rows = rows
        self.columns = columns
        self.cells = cells
    }
}

/// Builds the items to read from lines in reading order (read-text.md §8). Pure.
public struct SentenceBuilder: Sendable {
    public enum Navigation: String, Sendable {
        case sentences, lines
    }

    /// Words after which a full stop does not end a sentence ("Dr." in "Call Dr. Smith").
    public var abbreviations: Set<String>

    public init(abbreviations: Set<String> = SentenceBuilder.englishAbbreviations) {
        self.abbreviations = abbreviations
    }

    /// The English list; the others start from it (abbrev.<lang>.txt in Plugins/ReadText/share/).
    public static let englishAbbreviations: Set<String> = [
        "Mr.", "Dr.", "Mrs.", "Ms.", "Prof.", "Inc.", "Ltd.", "Co.", "etc.", "vs.", "Jr.", "Sr.",
    ]

    static let terminators: Set<Character> = [".", "!", "?", "。", "！", "？"]
    /// What may close a sentence after its full stop: quotes and brackets.
    static let closers: Set<Character> = ["\"", "'", "”", "’", ")", "]", "»", "」", "』"]

    /// The items for `lines`.
    /// Whether a sentence ends between two lines read one after the other whatever their words say: another
    /// column, or a gap wider than `sentenceGap` and than 1.2 lines (beyond the original: the gap scales with
    /// the text, so a close-up of large print with ordinary line spacing is not cut at every line). Streaming
    /// reads a picture in blocks cut by the same rule (`TextPipeline.blocks`), so that its sentences are the
    /// whole page's (issue 70).
    public static func breaks(between previous: OrderedLine, and line: OrderedLine) -> Bool {
        let gap = abs(previous.observation.box.minY - line.observation.box.maxY)
        let height = max(previous.observation.box.height, line.observation.box.height)
        return gap > max(ReadTextParameters.sentenceGap, 1.2 * height) || previous.column != line.column
    }

    public func items(_ lines: [OrderedLine], navigation: Navigation = .sentences) -> [ReadingItem] {
        if navigation == .lines {
            return lines.map {
                ReadingItem(text: Self.closedUp($0.observation.text), column: $0.column, lines: [$0.observation.box])
            }
        }
        var items: [ReadingItem] = []
        var current = ""
        var column = 0
        // The lines whose text is in `current`, each with where its text begins there (in characters).
        var boxes: [(start: Int, box: NormalizedBox)] = []
        var previous: OrderedLine?
        func push() {
            let text = current.trimmingCharacters(in: .whitespaces)
            if !text.isEmpty { items.append(ReadingItem(text: text, column: column, lines: boxes.map(\.box))) }
            current = ""
            boxes = []
        }
        for line in lines {
            if let previous {
                if Self.breaks(between: previous, and: line) {
                    if let last = current.last, !Self.terminators.contains(last), !current.isEmpty { current += "." }
                    push()
                }
            }
            if current.isEmpty { column = line.column }
            let text = Self.closedUp(line.observation.text)
            let joined = Self.join(current, text)
            boxes.append((joined.count - text.count, line.observation.box))
            current = joined
            previous = line
            // Split what is complete; keep the rest, with the lines it is on.
            while let end = sentenceEnd(in: current) {
                let sentence = String(current[..<end])
                let rest = current[end...].drop { $0.isWhitespace }
                let cut = current.distance(from: current.startIndex, to: end)
                let restStart = current.count - rest.count
                let lines = boxes
                // A line belongs to the part its characters are in: before the cut, after it, or both.
                let restLines = lines.indices.filter { index in
                    index + 1 == lines.count || lines[index + 1].start > restStart
                }.map { (start: max(0, lines[$0].start - restStart), box: lines[$0].box) }
                boxes = lines.filter { $0.start < cut }
                current = sentence
                push()
                current = String(rest)
                boxes = current.isEmpty ? [] : restLines
                column = line.column
            }
        }
        push()
        return items
    }

    /// `text` without a space between two CJK characters: Chinese and Japanese set none, and recognition puts one
    /// where a gap after a full-width comma looks like a word's end, in one reading of a line and not in another.
    static func closedUp(_ text: String) -> String {
        guard text.contains(" ") else { return text }
        var cleaned = ""
        let all = Array(text)
        for (index, character) in all.enumerated() {
            if character == " ", index > 0, index + 1 < all.count, isCJK(all[index - 1]), isCJK(all[index + 1]) {
                continue
            }
            cleaned.append(character)
        }
        return cleaned
    }

    /// Joins with a space, except between two CJK characters.
    static func join(_ left: String, _ right: String) -> String {
        guard let last = left.last, let first = right.first else { return left + right }
        return isCJK(last) && isCJK(first) ? left + right : left + " " + right
    }

    /// The index just after the first run of terminators that ends a sentence, or nil.
    func sentenceEnd(in text: String) -> String.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            guard Self.terminators.contains(text[index]) else {
                index = text.index(after: index)
                continue
            }
            var end = text.index(after: index)
            while end < text.endIndex && Self.terminators.contains(text[end]) { end = text.index(after: end) }
            // A closing quote or bracket after it belongs to the sentence it closes.
            while end < text.endIndex && Self.closers.contains(text[end]) { end = text.index(after: end) }
            // Only split where more text follows; the remainder stays for the next line or the end. A full stop
            // inside a word ("3.20", "example.org") ends nothing: a sentence's end is followed by a space, but
            // for Chinese and Japanese ones, which take no space after them.
            let hasMore = text[end...].contains { !$0.isWhitespace }
            let ends = end < text.endIndex && (text[end].isWhitespace || Self.isCJK(text[index]))
            if hasMore && ends && splits(String(text[..<end])) { return end }
            index = end
        }
        return nil
    }

    /// False for "J. K." style initials and for abbreviations as the last word.
    func splits(_ sentence: String) -> Bool {
        if sentence.count <= 5, sentence.hasSuffix("."), sentence.contains(where: \.isUppercase) { return false }
        let lastWord = sentence.split(whereSeparator: \.isWhitespace).last.map(String.init) ?? sentence
        return !abbreviations.contains(lastWord)
    }

    static func isCJK(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x3000...0x303F, 0xFF00...0xFFEF:
            return true
        default:
            return false
        }
    }
}

/// Cleans text before it is spoken (read-text.md §9); saved text stays raw. Pure.
public enum SpeechCleanup {
    public static func spoken(_ text: String, language: String) -> String {
        var result = text.replacingOccurrences(of: "«", with: ",").replacingOccurrences(of: "»", with: ",")
        var output = ""
        let characters = Array(result)
        for (index, character) in characters.enumerated() {
            let before = index > 0 ? characters[index - 1] : " "
            let after = index + 1 < characters.count ? characters[index + 1] : " "
            let standalone = character.isASCII && character.isUppercase && !isWord(before) && !isWord(after)
            let keep = language == "en" && (character == "A" || character == "I")
            if standalone && !keep {
                output += " \(character.lowercased()),"
            } else {
                output.append(character)
            }
        }
        result = output
        while result.contains("  ") { result = result.replacingOccurrences(of: "  ", with: " ") }
        while result.contains(",,") { result = result.replacingOccurrences(of: ",,", with: ",") }
        return SentenceBuilder.closedUp(result.trimmingCharacters(in: .whitespaces))
    }

    private static func isWord(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }
}

import Foundation

/// Text from outside (typed names, file names, plugin ids, server answers) made safe to print and speak.
///
/// A terminal obeys control characters (an escape sequence can recolour it, clear it or ring its bell), a
/// bidirectional override reorders what a braille display shows, and a 1 MB value printed as one line buries
/// the sentence around it. Every line Assist prints or speaks passes through `clean`; values put into
/// messages pass through `value`, which also shortens them.
package enum PlainText {
    /// The longest value `value` keeps whole, in characters.
    package static let valueLimit = 120

    /// `text` without control characters (C0, DEL, C1; a tab becomes a space, line breaks are kept) and
    /// without invisible direction or formatting marks (bidi embeddings, overrides and isolates).
    /// `keepingTabs`: a data line's tabs, which part its fields, stay tabs.
    package static func clean(_ text: String, keepingTabs: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\t" && keepingTabs {
                scalars.append(scalar)
            } else if scalar == "\t" {
                scalars.append(" ")
            } else if !isUnsafe(scalar) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// `line` as it is printed: cleaned, but a line that is one form feed alone stays one (it parts a document's
    /// pages in a transcript, as in a printer's text, and moves no cursor).
    package static func printed(_ line: String, keepingTabs: Bool = false) -> String {
        line == "\u{0C}" ? line : clean(line, keepingTabs: keepingTabs)
    }

    /// `text` cleaned, on one line, and shortened to `limit` characters with the full length said
    /// ("xxxx… (10000 characters)").
    package static func value(_ text: String, limit: Int = valueLimit) -> String {
        let line = clean(text).replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "\r", with: " ")
        guard line.count > limit else { return line }
        return String(line.prefix(max(1, limit - 20))) + "… (\(line.count) characters)"
    }

    /// The longest run without spaces `message` and `spoken` keep whole, in characters.
    package static let runLimit = 200
    /// The longest message `message` keeps whole, in characters.
    package static let messageLimit = 1_000

    /// `text` cleaned, with every run of more than `runLimit` characters without a space shortened as `value`
    /// does: for lines that are spoken and printed, where a pasted 1 MB word must not bury the sentence.
    package static func spoken(_ text: String) -> String {
        let cleaned = singleStops(clean(text))
        guard cleaned.count > runLimit else { return cleaned }
        return cleaned.split(separator: " ", omittingEmptySubsequences: false)
            .map { $0.count > runLimit ? value(String($0), limit: runLimit) : String($0) }
            .joined(separator: " ")
    }

    /// `text` with a sentence's doubled full stop made one ("the folder is read only.." where a reason that ends
    /// with its own full stop was put into a sentence that adds one). An ellipsis ("...") and a path ("../x") stay.
    package static func singleStops(_ text: String) -> String {
        guard text.contains("..") else { return text }
        return text.replacingOccurrences(
            of: #"(?<=[\p{L}\p{N})\]"'»”])\.\.(?=\s|$)"#, with: ".", options: .regularExpression)
    }

    /// An error message for one line of standard error: `spoken`, on one line, at most `messageLimit`
    /// characters.
    package static func message(_ text: String) -> String {
        value(spoken(text), limit: messageLimit)
    }

    /// Whether `scalar` must not reach a terminal or a speech engine as it is.
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x0D: return false  // line breaks: a caller that wants one line uses `value`
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // direction marks
        case 0x200B...0x200D, 0x2060, 0xFEFF: return false  // zero-width joiners matter in some scripts
        default: return false
        }
    }
}

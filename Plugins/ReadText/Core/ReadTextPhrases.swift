import Foundation
import PluginKit

/// The plugin's phrase table, English as the fallback, with {name} placeholders.
struct ReadTextPhrases {
    let table: PhraseTable

    init(directory: String?, language: String) { table = PhraseTable(directory: directory, language: language) }

    func text(_ key: String, _ values: [String: String] = [:]) -> String { table.text(key, values) }

    /// Abbreviations that do not end a sentence, for `language`, from `abbrev.<lang>.txt` (en as the base).
    static func abbreviations(directory: String?, language: String) -> Set<String> {
        var words = SentenceBuilder.englishAbbreviations
        for lang in Set(["en", language]) {
            guard let directory,
                let text = try? String(
                    contentsOf: URL(fileURLWithPath: directory).appendingPathComponent("abbrev.\(lang).txt"),
                    encoding: .utf8)
            else { continue }
            words.formUnion(
                text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                    !$0.isEmpty && !$0.hasPrefix("#")
                })
        }
        return words
    }
}

/// Saves recognised text (read-text.md §11): raw items in reading order, one per line, a blank line between
/// columns, UTF-8 with LF, mode 0600, in `$XDG_DOCUMENTS_DIR/Assist` or `~/Documents/Assist`.
public enum TextSaver {
    public static func content(_ items: [ReadingItem]) -> String {
        var lines: [String] = []
        var column = items.first?.column ?? 0
        for item in items {
            if item.column != column {
                lines.append("")
                column = item.column
            }
            lines.append(item.text)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the file and returns its path.
    public static func save(
        _ items: [ReadingItem], now: Date = Date(), environment: [String: String] = ProcessInfo.processInfo.environment
    )
        throws -> URL
    {
        let documents =
            environment["XDG_DOCUMENTS_DIR"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent("Documents")
        let folder = documents.appendingPathComponent("Assist")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let url = folder.appendingPathComponent("text-\(formatter.string(from: now)).txt")
        let data = Data(content(items).utf8)
        guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600])
        else { throw ReadTextError("The text cannot be saved in \(folder.path).") }
        return url
    }
}

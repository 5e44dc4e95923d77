import AssistCore
import Foundation

/// Spoken and printed words for one component, read from `phrases.<lang>.json` tables under `share/`.
///
/// A key missing from the user's language falls back to English, and the gap is reported once through
/// `onMissing` so translators can find it. A key missing from English too is a bug: the key itself is
/// returned so the user still hears something.
// because: `reported` is guarded by `lock`; the rest is immutable
package final class PhraseBook: @unchecked Sendable {
    /// The language code in use ("en", "ru", "zh").
    package let language: String
    private let primary: [String: String]
    private let english: [String: String]
    private let onMissing: @Sendable (String, String) -> Void
    private let lock = NSLock()
    private var reported = Set<String>()

    /// Loads `<directory>/phrases.<language>.json` and `phrases.en.json`. Missing files give empty tables.
    package init(
        directory: URL, language: String,
        onMissing: @escaping @Sendable (_ key: String, _ language: String) -> Void = { _, _ in }
    ) {
        self.language = language
        self.english = Self.load(directory.appendingPathComponent("phrases.en.json"))
        self.primary =
            language == "en" ? english : Self.load(directory.appendingPathComponent("phrases.\(language).json"))
        self.onMissing = onMissing
    }

    /// Creates a book from literal tables, for tests.
    package init(language: String, primary: [String: String], english: [String: String]) {
        self.language = language
        self.primary = primary
        self.english = english
        self.onMissing = { _, _ in }
    }

    /// The longest value a placeholder takes whole (a list of ten matching names fits).
    static let valueLimit = 240

    /// The phrase for `key` with a number, `{count}`: `key-one` for exactly one ("1 upload waiting", not
    /// "1 uploads"), when a table has it; a language whose one form is its other's keeps both the same.
    package func text(_ key: String, count: Int, _ values: [String: String] = [:]) -> String {
        let one = key + "-one"
        let hasOne = primary[one] != nil || english[one] != nil
        return text(count == 1 && hasOne ? one : key, values.merging(["count": String(count)]) { given, _ in given })
    }

    /// The phrase for `key` with `{name}` placeholders replaced from `values`, each cleaned and shortened
    /// (`PlainText.value`).
    package func text(_ key: String, _ values: [String: String] = [:]) -> String {
        var phrase: String
        if let found = primary[key] {
            phrase = found
        } else {
            report(key)
            phrase = english[key] ?? key
        }
        for (name, value) in values {
            phrase = phrase.replacingOccurrences(of: "{\(name)}", with: PlainText.value(value, limit: Self.valueLimit))
        }
        return phrase
    }

    /// The phrase for `key` in the user's language or English, or nil when neither table has it.
    package func lookup(_ key: String) -> String? {
        primary[key] ?? english[key]
    }

    private func report(_ key: String) {
        lock.lock()
        let first = reported.insert(key).inserted
        lock.unlock()
        if first { onMissing(key, language) }
    }

    private static func load(_ url: URL) -> [String: String] {
        (try? Data(contentsOf: url)).map(table(from:)) ?? [:]
    }

    /// A phrase table from the bytes of a `phrases.<lang>.json` file; empty when they are not one.
    package static func table(from data: Data) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
    }
}

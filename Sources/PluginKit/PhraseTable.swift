import Foundation

/// A plugin's phrases from `phrases.<lang>.json` in its share folder, English filling in missing keys, with
/// `{name}` placeholders.
public struct PhraseTable: Sendable {
    private let table: [String: String]

    public init(directory: String?, language: String) {
        func load(_ lang: String) -> [String: String] {
            guard let directory,
                let data = try? Data(
                    contentsOf: URL(fileURLWithPath: directory).appendingPathComponent("phrases.\(lang).json"))
            else { return [:] }
            return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
        }
        table = load("en").merging(load(language)) { _, localised in localised }
    }

    /// The phrase `key` with a number, `{count}`: `key-one` for exactly one ("1 question", not "1 questions");
    /// when a table has it; a language whose one form is its other's keeps both the same.
    public func text(_ key: String, count: Int, _ values: [String: String] = [:]) -> String {
        let one = key + "-one"
        return text(
            count == 1 && table[one] != nil ? one : key, values.merging(["count": String(count)]) { given, _ in given })
    }

    /// Whether a file has the phrase `key`.
    public func has(_ key: String) -> Bool { table[key] != nil }

    /// The phrase `key` with `values` filled in; the key itself when no file has it.
    public func text(_ key: String, _ values: [String: String] = [:]) -> String {
        var text = table[key] ?? key
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }
}

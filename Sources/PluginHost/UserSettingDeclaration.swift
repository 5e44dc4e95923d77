import Foundation

/// A setting a plugin offers its users in the shell's spoken settings (manifest `user_settings`,
/// docs/plugin-abi.md): a key in one of its own settings namespaces, the label said for it, and what it takes.
///
///     {"key": "find-object.auto-pause", "label": "Pause the search after", "type": "choice",
///      "choices": [{"value": "0", "label": "never"}, {"value": "120", "label": "2 minutes"}], "default": "120"}
package struct UserSettingDeclaration: Codable, Equatable, Sendable {
    /// One value of a choice, and how it is said.
    package struct Choice: Codable, Equatable, Sendable {
        package var value: String
        package var label: String
        /// The label in other languages, by language code.
        package var labels: [String: String]?

        package init(value: String, label: String, labels: [String: String]? = nil) {
            self.value = value
            self.label = label
            self.labels = labels
        }
    }

    /// A default as the manifest writes it: a flag, a number or text.
    package enum Value: Codable, Equatable, Sendable {
        case flag(Bool)
        case number(Double)
        case text(String)

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .flag(let flag): try container.encode(flag)
            case .number(let number): try container.encode(number)
            case .text(let text): try container.encode(text)
            }
        }
    }

    package var key: String
    package var label: String
    /// "flag", "number" or "choice".
    package var type: String
    /// A number's range and step, and how its value is said ("{value} seconds"; "{value} percent" for 0…1).
    package var min: Double?
    package var max: Double?
    package var step: Double?
    package var unit: String?
    package var choices: [Choice]?
    package var `default`: Value?
    /// The label in other languages, by language code.
    package var labels: [String: String]?

    /// The label in `language`, else the manifest's own.
    package func label(in language: String) -> String { labels?[language] ?? label }

    /// Nil when the declaration is usable; else what is wrong, for the manifest's refusal.
    func problem(namespaces: [String]) -> String? {
        guard PluginManifest.isSetting(key, in: namespaces) else {
            return "\(key) is outside the plugin's settings namespaces (\(namespaces.joined(separator: ", ")))"
        }
        guard !label.trimmingCharacters(in: .whitespaces).isEmpty, label.count <= 80 else {
            return "\(key) needs a label of 1 to 80 characters"
        }
        switch type {
        case "flag": return nil
        case "number":
            guard let min, let max, min < max, (step ?? 1) > 0, (step ?? 1) <= max - min else {
                return "\(key) is a number: it needs min below max and a step above 0 that fits between them"
            }
            return nil
        case "choice":
            guard let choices, !choices.isEmpty, choices.count <= 30,
                Set(choices.map(\.value)).count == choices.count,
                choices.allSatisfy({ !$0.label.trimmingCharacters(in: .whitespaces).isEmpty })
            else { return "\(key) is a choice: it needs 1 to 30 choices, each with its own value and a label" }
            return nil
        default: return "\(key) has the type \"\(type)\"; the types are flag, number and choice"
        }
    }
}

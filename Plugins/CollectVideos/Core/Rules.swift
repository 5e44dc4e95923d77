import Foundation
import PluginKit

/// The checks of spec §3.8 and §3.11, on the current text every time.
public enum Rules {
    /// Why a thing's label cannot be used, or nil: trimmed, 3 to 50 characters.
    public static func labelProblem(_ label: String, _ phrases: PhraseTable) -> String? {
        let trimmed = NameKey.cleaned(label)
        if trimmed.isEmpty { return phrases.text("label-empty") }
        if trimmed.count < 3 { return phrases.text("label-short", ["label": trimmed]) }
        if trimmed.count > 50 { return phrases.text("label-long", ["count": String(trimmed.count)]) }
        if NameKey.isFillerOnly(trimmed) { return phrases.text("label-filler", ["label": trimmed]) }
        return nil
    }

    /// How many things the study asks for: the most a participant keeps (a sixth is refused until one goes).
    public static let thingsWanted = 5

    /// A name is valid when its trimmed length exceeds 2.
    public static func nameProblem(_ name: String, _ phrases: PhraseTable) -> String? {
        name.trimmingCharacters(in: .whitespacesAndNewlines).count > 2 ? nil : phrases.text("name-short")
    }

    /// One `local@domain` address, no spaces, a dot in the domain.
    public static func emailProblem(_ email: String, _ phrases: PhraseTable) -> String? {
        let text = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(where: \.isWhitespace) else {
            return phrases.text("email-invalid")
        }
        let domain = parts[1]
        guard let dot = domain.firstIndex(of: "."), dot != domain.startIndex, domain.last != "." else {
            return phrases.text("email-invalid")
        }
        return nil
    }
}

import Foundation

/// The checks of spec §3.8 and §3.11, on the current text every time.
public enum Rules {
    /// Why a thing's label cannot be used, or nil: trimmed, 3 to 50 characters.
    public static func labelProblem(_ label: String) -> String? {
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "The name is empty. Type the name of the thing." }
        if trimmed.count < 3 { return "The name \(trimmed) is too short: use at least 3 characters." }
        if trimmed.count > 50 { return "The name is too long: use at most 50 characters, it has \(trimmed.count)." }
        return nil
    }

    /// A name is valid when its trimmed length exceeds 2.
    public static func nameProblem(_ name: String) -> String? {
        name.trimmingCharacters(in: .whitespacesAndNewlines).count > 2 ? nil : "Name is too short."
    }

    /// One `local@domain` address, no spaces, a dot in the domain.
    public static func emailProblem(_ email: String) -> String? {
        let text = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(where: \.isWhitespace) else {
            return "Email address is not valid."
        }
        let domain = parts[1]
        guard let dot = domain.firstIndex(of: "."), dot != domain.startIndex, domain.last != "." else {
            return "Email address is not valid."
        }
        return nil
    }
}

import Foundation

/// Text in several languages: `{"en": "…", "ru": "…"}`.
public struct LocalizedText: Sendable, Equatable {
    public var byLanguage: [String: String]

    public init(_ byLanguage: [String: String]) { self.byLanguage = byLanguage }

    /// The text in `language`, else English, else any; `fellBack` tells whether another language was used.
    public func text(_ language: String) -> (text: String, fellBack: Bool) {
        if let own = byLanguage[language], !own.isEmpty { return (own, false) }
        if let english = byLanguage["en"], !english.isEmpty { return (english, language != "en") }
        return (byLanguage.sorted { $0.key < $1.key }.first?.value ?? "", true)
    }
}

/// One answer an item offers.
public struct SurveyOption: Sendable, Equatable {
    /// What is stored and sent (never the label).
    public var key: String
    public var label: LocalizedText
    /// Clears every other choice of a `multi` item, and is cleared by any of them.
    public var exclusive: Bool
    /// A follow-up item asked next, which writes its own key into the same field.
    public var then: String?
}

/// The kinds of item a survey may hold.
public enum SurveyItemKind: String, Sendable, CaseIterable {
    case info, gate, single, multi, recording, location
}

/// One question, statement or task.
public struct SurveyItem: Sendable, Equatable {
    public var id: String
    public var kind: SurveyItemKind
    /// The question or statement (for a recording, the task).
    public var text: LocalizedText
    /// The answer field in the part's document.
    public var field: String?
    public var options: [SurveyOption] = []
    /// `multi`: the fewest choices accepted.
    public var minimumChoices = 1
    /// Asked only when an option's `then` names it.
    public var followUp = false
    /// `gate`: the one confirming answer.
    public var confirm: LocalizedText?
    /// `info`: the study's text on privacy and data use (`"privacy": true`), heard again with I at any time.
    public var privacy = false
    /// `recording`: the file's base name ("audio_file_breathe") and the length limits in seconds.
    public var file: String?
    public var minSeconds: Double = 1
    public var maxSeconds: Double = 30
}

/// A part of a survey: one JSON document when uploaded.
public struct SurveyPart: Sendable, Equatable {
    public var id: String
    /// Asked until its answers have been uploaded once (`initial`).
    public var once: Bool
    /// The document's name in the upload ("daily.json").
    public var jsonName: String?
    public var items: [SurveyItem]
}

/// How finished surveys leave the device.
public enum UploadAdapter: String, Sendable {
    /// The COVID-19 Sounds server protocol.
    case covid19Sounds = "covid19-sounds"
    /// Kept locally until `assist survey export` or deletion.
    case none
}

/// A survey definition file (spec §3): parts of items, an upload adapter, eligibility and reminder spacing.
public struct SurveyDefinition: Sendable, Equatable {
    /// An id names files, database rows and the reminder's systemd units (`assist-survey-<id>.timer`): ASCII
    /// letters and digits, then also `.`, `_` and `-`, 64 at most. Nothing else may reach a unit file.
    public static func isValidID(_ id: String) -> Bool {
        let alphanumerics = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".unicodeScalars)
        let rest = alphanumerics.union("._-".unicodeScalars)
        guard let first = id.unicodeScalars.first, alphanumerics.contains(first), id.unicodeScalars.count <= 64
        else { return false }
        return id.unicodeScalars.allSatisfy(rest.contains)
    }

    public var id: String
    public var version: Int
    public var title: LocalizedText
    public var eligibleAfterSeconds: Double
    public var reminderSpacingSeconds: Double
    public var adapter: UploadAdapter
    public var entryType: String
    public var parts: [SurveyPart]

    /// Every item of every part, in order.
    public var items: [SurveyItem] { parts.flatMap(\.items) }

    /// The item marked as the study's privacy and data-use text, if the survey has one.
    public var privacyItem: SurveyItem? { items.first { $0.privacy } }

    public func item(_ id: String) -> SurveyItem? { items.first { $0.id == id } }

    public func part(of itemID: String) -> SurveyPart? { parts.first { $0.items.contains { $0.id == itemID } } }

    /// The recording items, in order.
    public var recordings: [SurveyItem] { items.filter { $0.kind == .recording } }
}

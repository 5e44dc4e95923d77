import Foundation
import Interaction
import PluginHost
import Voice

/// What voice listens for: each usable plugin's keywords in the session's language (its global ones always,
/// its focused ones while it has the focus) and the host's own commands (next, pause, stop, ...).
/// One-word phrases ("next", "stop", "time") come up in any talk: they are listened for only inside a
/// push-to-talk or wake-word window, never always (measured: dozens of false alarms in 4 minutes of
/// everyday sentences at any threshold that still hears them).
package enum VoicePhrases {
    /// The phrases for `language` when `focused` (a plugin id) has the focus; with `everything`, every
    /// plugin's focused keywords too (for `assist listen` and tuning).
    package static func phrases(
        records: [PluginRecord], router: CommandRouter, language: String, focused: String? = nil,
        everything: Bool = false, includeHost: Bool = true, singleWords: Bool = true
    ) -> [String] {
        var found: [String] = []
        for record in records where record.isUsable {
            for keyword in record.manifest?.keywords ?? [] where (keyword.lang ?? "en") == language {
                let global = (keyword.scope ?? "focused") == "global"
                if global || everything || record.id == focused { found.append(keyword.phrase) }
            }
        }
        for binding in router.allBindings where includeHost && binding.owner == CommandRouter.hostOwner {
            // "n", "h", "?" are keys and "prev" an abbreviation: not words to hear.
            found += binding.phrases.filter { $0.count > 2 && $0 != "prev" }
        }
        var seen = Set<String>()
        return found.map(KeyPhrase.normalise).filter { phrase in
            !phrase.isEmpty && (singleWords || phrase.contains(" ")) && seen.insert(phrase).inserted
        }
    }

    /// What may follow each phrase that takes words, by normalised phrase: launch keywords with `takes` in
    /// `language` (a `choice` keyword's plugin is loaded, so that its library's init sets its list; a list
    /// that cannot be had leaves the phrase out) and any other phrase a plugin set a list for. Main loop.
    package static func followers(features: FeatureController, router: () -> CommandRouter, language: String)
        -> [String: ArgumentFollower.Wanted]
    {
        var wanted: [String: ArgumentFollower.Wanted] = [:]
        for record in features.records where record.isUsable {
            for keyword in record.manifest?.keywords ?? []
            where (keyword.lang ?? "en") == language && keyword.takes != nil {
                let phrase = KeyPhrase.normalise(keyword.phrase)
                if keyword.takes == "text" {
                    wanted[phrase] = .text
                } else if router().choices(after: phrase) == nil {
                    features.load(record)
                }
            }
        }
        for list in router().choices.values {
            wanted[KeyPhrase.normalise(list.phrase)] = .choices(
                list.choices.map(KeyPhrase.normalise), prompt: list.prompt)
        }
        return wanted
    }

    /// A session for a command that listens (no speech, no sound out) and the voice model of its language;
    /// without a model, the sentence saying why (exit 69).
    package static func openSession(_ global: HostOptions) throws -> (HostSession, VoiceModel) {
        let session = try HostSession(options: global, interactive: false, speaks: false, sounds: false)
        switch VoiceModel.find(
            language: session.phrases.language, data: session.paths.data, share: session.paths.share)
        {
        case .success(let model): return (session, model)
        case .failure(let error): throw CLIFailure(message: error.description, exitCode: 69)
        }
    }

    /// Lines naming each phrase that cannot be heard and its missing word.
    package static func unknownWordLines(_ spotter: KeywordSpotter) -> [String] {
        spotter.unknown.map {
            "The voice command “\($0.phrase)” cannot be heard: “\($0.word)” is not in the voice dictionary."
        }
    }

    /// Lines naming each word of a list after a phrase that cannot be heard (typing it still works).
    package static func unknownChoiceLines(_ spotter: KeywordSpotter, _ lists: [String: ArgumentFollower.Wanted])
        -> [String]
    {
        lists.sorted { $0.key < $1.key }.compactMap { phrase, wanted in
            guard case .choices(let choices, _) = wanted else { return nil }
            let missing = choices.filter { !KeyPhrase($0).words.allSatisfy(spotter.knows) }
            guard !missing.isEmpty else { return nil }
            let named = missing.map { "“\($0)”" }.joined(separator: ", ")
            return "After “\(phrase)”, \(named) cannot be heard: not in the voice dictionary (typing works)."
        }
    }
}

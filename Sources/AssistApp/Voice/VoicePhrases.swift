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
        var perOwner: [String: Int] = [:]
        for binding in router.allBindings {
            let host = binding.owner == CommandRouter.hostOwner
            // The focused feature's own commands ("where am i", "save text"), a background feature's global
            // ones ("sync photos now"), and the host's.
            let wanted =
                host ? includeHost : binding.owner == focused || binding.scope == .global || everything
            guard wanted else { continue }
            // "n", "h", "?" are keys and "prev" an abbreviation: not words to hear. A number ("3": the survey's
            // options) is heard said as words ("three").
            let heard = binding.phrases.compactMap { phrase -> String? in
                if let number = Int(phrase) { return NumberWords.spoken(number) }
                return phrase.count > 2 && phrase != "prev" ? phrase : nil
            }
            // A feature's phrases beyond the limit are typed only: each search costs the whole acoustic model.
            let room = host ? heard.count : max(0, featureLimit - perOwner[binding.owner, default: 0])
            perOwner[binding.owner, default: 0] += heard.count
            found += heard.prefix(room)
        }
        var seen = Set<String>()
        return found.map(KeyPhrase.normalise).filter { phrase in
            !phrase.isEmpty && (singleWords || phrase.contains(" ")) && seen.insert(phrase).inserted
        }
    }

    /// The most command phrases of one feature listened for at once.
    package static let featureLimit = 60

    /// How many command phrases `owner` registered, when more than voice listens for.
    package static func overLimit(_ owner: String, router: CommandRouter) -> Int? {
        let count = router.allBindings.filter { $0.owner == owner }.flatMap(\.phrases).count
        return count > featureLimit ? count : nil
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

    /// What answers `question` by voice, normalised: "yes", "no" and the language's other words for them; a
    /// choice's labels (a "S: status" label as "status"), its numbers said as words ("fourteen", "number
    /// fourteen") and the words that move through it or ask again. Nil for a text question (dictated, when the
    /// language can be).
    package static func answers(to question: DialogRequest, phrases: PhraseBook) -> [String]? {
        func words(_ key: String) -> [String] {
            phrases.text(key).split(separator: "|").map { KeyPhrase.normalise(String($0)) }
        }
        let common =
            ["cancel", "repeat", "help"] + words("dialog.word-cancel") + words("dialog.word-repeat")
            + words("dialog.word-help")
        var found: [String]
        switch question {
        case .confirm:
            found = ["yes", "no"] + words("dialog.words-yes") + words("dialog.words-no")
        case .choice(_, let choices, _):
            found = choices.flatMap { label in
                // "S: status" is said "status"; "Speech rate: 175 words a minute" also by its name alone.
                let parts = label.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { return [KeyPhrase.normalise(label)] }
                if parts[0].count == 1 { return [KeyPhrase.normalise(String(parts[1]))] }
                return [KeyPhrase.normalise(String(parts[0])), KeyPhrase.normalise(label)]
            }
            for number in 1...max(1, min(choices.count, 99)) {
                guard let said = NumberWords.spoken(number) else { continue }
                found += [said, "number \(said)"]
            }
            found += ["next", "previous", "the last one"]
        case .text:
            return nil
        }
        var seen = Set<String>()
        // "y" and "n" are keys, not words to hear.
        return (found + common).filter { $0.count > 1 && seen.insert($0).inserted }
    }

    /// A session for a command that listens (no speech, no sound out) and the voice model of its language;
    /// without a model, the sentence saying why (exit 69).
    package static func openSession(
        _ global: HostOptions, environment: [String: String] = ProcessInfo.processInfo.environment,
        terminal: SessionTerminal = .standard
    ) throws -> (HostSession, VoiceModel) {
        let session = try HostSession(
            options: global, interactive: false, speaks: false, sounds: false, environment: environment,
            terminal: terminal)
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

import CPocketSphinx
import Foundation
import Runtime

/// pocketsphinx's keyphrase searches over the same sound: one per group of phrases that share no word
/// (`SearchPlan.groups`), since a search starts afresh after each phrase it spots and a phrase that begins like
/// another ("read this", "read text") would cut the other off. Each word's later pronunciations are listened for
/// too (`Pronunciations`). The first search also looks words up, and decodes a grammar of choices. One thread at
/// a time.
final class KeywordSearches {
    private var searches: [OpaquePointer]
    /// When each search was opened, in ms of audio fed: a search counts its frames from its own first.
    private var openedAtMs: [Int] = [0]
    let model: VoiceModel
    /// The words' later pronunciations, added to the searches and the side decoders.
    let pronunciations: Pronunciations
    /// The spoken form listened for (a variant) → the phrase it stands for.
    private var variants: [String: String] = [:]
    var trace: ((String) -> Void)?

    /// A keyphrase search's utterance is restarted after this many 10 ms frames (30 s), at a moment when nothing
    /// was said for a while (`feed`); pocketsphinx restarts it anyway at twice that.
    static let restartFrames = 3_000

    init(model: VoiceModel) throws(VoiceError) {
        self.model = model
        pronunciations = Pronunciations(dictionary: model.dictionary)
        // A one-phrase list first, to look words up; then the real list.
        searches = [
            try PhraseListFile.with(PhraseListFile.probe) { (list) throws(VoiceError) in
                try Self.open(model, list: list)
            }
        ]
        pronunciations.addMissing(from: model.addedWords, to: searches)
    }

    deinit {
        searches.forEach { assist_spotter_close($0) }
    }

    private static func open(_ model: VoiceModel, list: String) throws(VoiceError) -> OpaquePointer {
        var error = [CChar](repeating: 0, count: 256)
        guard
            let opened = assist_spotter_open(
                model.acousticModel.path, model.dictionary.path, list, &error, error.count)
        else { throw .library(String(nulTerminated: error)) }
        return opened
    }

    /// True when the dictionary has `word`.
    func knows(_ word: String) -> Bool { assist_spotter_knows(searches[0], word.lowercased()) == 1 }

    /// How many phones `word` has (its first pronunciation).
    func phoneCount(_ word: String) -> Int { Int(assist_spotter_phone_count(searches[0], word)) }

    /// Listens for `phrases` (each word known) from now on, `fedMs` into the sound: a search per group, opened or
    /// closed as the groups need.
    func listen(for phrases: [KeyPhrase], fedMs: Int) throws(VoiceError) {
        pronunciations.add(for: Set(phrases.flatMap(\.words)), to: searches)
        variants = [:]
        let groups = SearchPlan.groups(phrases)
        for (index, group) in groups.enumerated() {
            var lines = ""
            for phrase in group {
                for variant in pronunciations.spokenForms(phrase.words) {
                    variants[variant] = phrase.text
                    lines += "\(variant) /\(String(format: "%.0e", phrase.threshold))/\n"
                }
            }
            try PhraseListFile.with(lines) { (list) throws(VoiceError) in
                if index == searches.count {
                    let opened = try Self.open(model, list: list)
                    searches.append(opened)
                    openedAtMs.append(fedMs)
                    pronunciations.copy(to: opened)
                }
                guard assist_spotter_set_keyphrases(searches[index], list) == 0 else {
                    throw .library("the phrase list was refused")
                }
            }
        }
        // Searches left over from a longer list listen for nothing.
        closeAll(but: max(1, groups.count))
    }

    /// Decodes whole utterances against `grammar` (JSGF) until `listen(for:)` again; the other searches close.
    func listen(grammar: String) throws(VoiceError) {
        closeAll(but: 1)
        guard assist_spotter_set_grammar(searches[0], grammar) == 0 else {
            throw .library("the list of choices was refused")
        }
    }

    private func closeAll(but count: Int) {
        while searches.count > count {
            assist_spotter_close(searches.removeLast())
            openedAtMs.removeLast()
        }
    }

    /// The phrase a spoken form stands for ("read__2 text" → "read text").
    func phrase(said: String) -> String {
        variants[said] ?? KeyPhrase.normalise(said.replacingOccurrences(of: "__", with: " "))
    }

    /// How a chunk is fed to the searches (`feed`).
    struct Chunk {
        /// The sound decoded: the chunk, after what a quiet room held back.
        var fresh: [Int16]
        /// The room is quiet and this sound passed over: a search that hears speech going on is fed it, the others
        /// skip it.
        var passOver: Bool
        /// Nobody has spoken for a while: the searches keep the cepstral mean speech left them.
        var holdMean: Bool
        /// Whether the searches report a phrase the moment it passes its threshold.
        var prompt: Bool
        /// Where the chunk starts, in ms of audio fed.
        var startMs: Int
        /// Whether nothing is being said now: a search may be renewed or switched without cutting a word in two.
        var isQuietNow: () -> Bool
    }

    /// Feeds `chunk` to every search; the phrases they heard in it.
    func feed(_ chunk: Chunk) -> [Detection] {
        var heard: [Detection] = []
        let prompt = Int32(chunk.prompt ? 1 : 0)
        for (search, openedAt) in zip(searches, openedAtMs) {
            // A search that has run 30 s without a pause pocketsphinx sees starts afresh at a quiet moment, before
            // this chunk: a restart inside a word lost it ("stop" said as the 30 s came).
            if assist_spotter_utterance_frames(search) > Self.restartFrames, chunk.isQuietNow(),
                assist_spotter_restart(search) == 0
            {
                trace?("search renewed at \(chunk.startMs) ms")
            }
            // Switched, like a renewal, where no word is cut in two.
            var switched = -1
            if assist_spotter_is_prompt(search) >= 0, assist_spotter_is_prompt(search) != prompt, chunk.isQuietNow() {
                switched = Int(assist_spotter_set_prompt(search, prompt))
                trace?("search reports \(prompt == 1 ? "promptly" : "steadily") from \(chunk.startMs) ms")
            }
            assist_spotter_hold_mean(search, chunk.holdMean ? 1 : 0)
            let fresh = chunk.fresh
            var found = chunk.passOver && !fresh.isEmpty ? assist_spotter_skip(search, fresh.count) : -1
            if found < 0, !fresh.isEmpty || !chunk.passOver {
                found = fresh.withUnsafeBufferPointer { assist_spotter_feed(search, $0.baseAddress, $0.count) }
            }
            guard found == 1 || switched == 1 else { continue }
            var phrase = [CChar](repeating: 0, count: 256)
            var start: Int64 = 0
            var end: Int64 = 0
            var score: Int32 = 0
            while assist_spotter_result(search, &phrase, phrase.count, &start, &end, &score) == 0 {
                heard.append(
                    Detection(
                        phrase: self.phrase(said: String(nulTerminated: phrase)), startMs: openedAt + Int(start) * 10,
                        endMs: openedAt + Int(end) * 10,
                        score: Int(score)))
            }
        }
        return heard
    }
}

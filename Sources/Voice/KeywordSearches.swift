import CPocketSphinx
import Foundation
import Runtime

/// pocketsphinx's keyphrase searches over the same sound: one per group of phrases that share no word
/// (`SearchPlan.groups`), since a search starts afresh after each phrase it spots and a phrase that begins like
/// another ("read this", "read text") would cut the other off. Each word's later pronunciations are listened for
/// too (`Pronunciations`). The first search also looks words up, and decodes a grammar of choices. One thread at
/// a time.
package final class KeywordSearches {
    private var searches: [OpaquePointer]
    /// When each search was opened, in ms of audio fed: a search counts its frames from its own first.
    private var openedAtMs: [Int] = [0]
    /// While Assist sounds the searches report promptly; beside each, a search over the same list reports
    /// steadily (`Beside`), opened at Assist's first sound.
    private var beside: [Beside] = []
    /// Each search's phrase list, as last given (for the searches beside them).
    private var lists: [String] = []
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
        beside.forEach { assist_spotter_close($0.search) }
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
        pronunciations.add(for: Set(phrases.flatMap(\.words)), to: searches + beside.map(\.search))
        variants = [:]
        let groups = SearchPlan.groups(phrases)
        lists = []
        for (index, group) in groups.enumerated() {
            var lines = ""
            for phrase in group {
                for variant in pronunciations.spokenForms(phrase.words) {
                    variants[variant] = phrase.text
                    lines += "\(variant) /\(String(format: "%.0e", phrase.threshold))/\n"
                }
            }
            lists.append(lines)
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
        // The searches beside, once open, listen for the same.
        if !beside.isEmpty { openBeside(fedMs: fedMs) }
    }

    /// Decodes whole utterances against `grammar` (JSGF) until `listen(for:)` again; the other searches close.
    func listen(grammar: String) throws(VoiceError) {
        closeAll(but: 1)
        // The searches beside stay open, passed over, for the next list.
        lists = []
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

    /// A search beside one of the prompt ones, over the same list, which reports steadily: each hears some
    /// phrases the other does not over what the echo canceller leaves. On the bench's first seconds of a reading
    /// in a room kept (commands said at 1–11 s, the echo as loud as the voice), the prompt searches alone heard 25
    /// of 35, with these beside them 29 (docs/voice.md, "Barge-in"). Fed only while Assist sounds
    /// (and the second after), and to the end of a stretch of speech going on when it stops; passed over
    /// otherwise.
    private struct Beside {
        let search: OpaquePointer
        let openedAtMs: Int
    }

    /// Opens a search beside each prompt one, or gives those open the lists now listened for. One that cannot be
    /// opened leaves the prompt ones alone for the rest of the session (the trace says why).
    private func openBeside(fedMs: Int) {
        guard besideAllowed else { return }
        while beside.count > lists.count { assist_spotter_close(beside.removeLast().search) }
        do {
            for (index, lines) in lists.enumerated() {
                try PhraseListFile.with(lines) { (list) throws(VoiceError) in
                    if index == beside.count {
                        let opened = try Self.open(model, list: list)
                        pronunciations.copy(to: opened)
                        beside.append(Beside(search: opened, openedAtMs: fedMs))
                    }
                    guard assist_spotter_set_keyphrases(beside[index].search, list) == 0 else {
                        throw .library("the phrase list was refused")
                    }
                }
            }
        } catch {
            closeBeside()
            besideAllowed = false
            trace?("no searches beside the prompt ones: \(error)")
        }
    }

    private func closeBeside() {
        beside.forEach { assist_spotter_close($0.search) }
        beside = []
    }

    /// Whether searches beside the prompt ones are opened at Assist's first sound (docs/voice.md, "Barge-in"):
    /// off with `ASSIST_VOICE_SEARCHES_BESIDE=0`, which saves their decoding over Assist's sound and the 37 MB
    /// or so each holds (its own copy of the acoustic model).
    package var besideAllowed = true

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
        if chunk.prompt, besideAllowed, beside.isEmpty, !lists.isEmpty {
            openBeside(fedMs: chunk.startMs)
            if !beside.isEmpty { trace?("searches beside the prompt ones from \(chunk.startMs) ms") }
        }
        var heard: [Detection] = []
        for (search, openedAt) in zip(searches, openedAtMs) {
            heard += feed(chunk, to: search, openedAtMs: openedAt, prompt: chunk.prompt)
        }
        for other in beside {
            let found = feed(chunk, to: other.search, openedAtMs: other.openedAtMs, prompt: nil)
            // While choices are decoded (`listen(grammar:)`) no phrase is listened for.
            if !lists.isEmpty { heard += found }
        }
        return heard
    }

    /// Feeds `chunk` to one search; `prompt`, how it reports now (nil: a search beside the prompt ones, which
    /// hears only Assist's sound and the speech going on as it stops).
    private func feed(_ chunk: Chunk, to search: OpaquePointer, openedAtMs openedAt: Int, prompt: Bool?) -> [Detection]
    {
        // A search that has run 30 s without a pause pocketsphinx sees starts afresh at a quiet moment, before
        // this chunk: a restart inside a word lost it ("stop" said as the 30 s came).
        if assist_spotter_utterance_frames(search) > Self.restartFrames, chunk.isQuietNow(),
            assist_spotter_restart(search) == 0
        {
            trace?("search renewed at \(chunk.startMs) ms")
        }
        // Switched, like a renewal, where no word is cut in two.
        var switched = -1
        if let prompt {
            let wanted = Int32(prompt ? 1 : 0)
            if assist_spotter_is_prompt(search) >= 0, assist_spotter_is_prompt(search) != wanted, chunk.isQuietNow() {
                switched = Int(assist_spotter_set_prompt(search, wanted))
                trace?("search reports \(prompt ? "promptly" : "steadily") from \(chunk.startMs) ms")
            }
        }
        assist_spotter_hold_mean(search, chunk.holdMean ? 1 : 0)
        let fresh = chunk.fresh
        let passOver = chunk.passOver || (prompt == nil && (!chunk.prompt || lists.isEmpty))
        // A search beside, once Assist is quiet, stops at the first quiet moment even where pocketsphinx still
        // hears speech (in a room's noise it may for long).
        if prompt == nil, passOver, assist_spotter_utterance_frames(search) > 0, chunk.isQuietNow() {
            assist_spotter_restart(search)
        }
        var found = passOver && !fresh.isEmpty ? assist_spotter_skip(search, fresh.count) : -1
        if found < 0, !fresh.isEmpty || !passOver {
            found = fresh.withUnsafeBufferPointer { assist_spotter_feed(search, $0.baseAddress, $0.count) }
        }
        guard found == 1 || switched == 1 else { return [] }
        var heard: [Detection] = []
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
        return heard
    }
}

import Foundation

/// pocketsphinx in keyphrase-spotting mode over 16 kHz mono: fed in chunks, it reports each phrase heard.
/// It can switch to a JSGF grammar for a command's argument (a closed list), decoded per utterance. One
/// thread at a time.
///
/// The layers: the searches (`KeywordSearches`: a search per group of phrases that share no word, each word in
/// every pronunciation); what was heard and is not yet sure (`HeldPhrases`: a phrase inside a longer one waits
/// for it, one heard twice counts once); the pause rules at any time (`PauseRules`); the referee between rival
/// phrases (`Referee`); utterances said alone judged whole (`AloneUtterances`); phrases said over Assist's own
/// sound, kept or dropped by the echo canceller's check and judged once (`OverSoundVerdicts`). This type feeds
/// them in order and holds the sound (`LoudnessTrack`, `SpanDecoders`).
package final class KeywordSpotter {
    package let searches: KeywordSearches
    package var model: VoiceModel { searches.model }
    /// The phrases listened for, and those left out because a word is not in the dictionary.
    package private(set) var phrases: [KeyPhrase] = []
    package private(set) var unknown: [(phrase: String, word: String)] = []
    /// The last seconds of sound, and the decoders that decode a span of it once.
    lazy var spans = SpanDecoders(
        model: model, pronunciations: searches.pronunciations,
        knows: { [unowned self] in knows($0) })
    private var rules = PauseRules()
    private(set) var referee = Referee()
    private var holding = HeldPhrases()
    private var aloneUtterances = AloneUtterances()
    private var verdicts = OverSoundVerdicts()
    /// Sound of a quiet room held back from the searches.
    private var room = QuietRoom()
    /// Audio fed so far, in ms.
    private(set) var fedMs = 0
    /// Only phrases said on their own, after a pause, are heard (always-on listening: `PauseRules.standalone`).
    package var standalone: Bool {
        get { rules.standalone }
        set { rules.standalone = newValue }
    }
    /// Phrases that take words after them ("find object", "find text"): no pause after them is looked for.
    package var takesWords: Set<String> {
        get { rules.takesWords }
        set { rules.takesWords = newValue }
    }
    /// Each phrase spotted is judged too (its `confidence`), as a window's command is: for `assist listen`'s
    /// printed score only (two more decodes a phrase; nothing rejects on it at any time).
    package var judgesSpotted = false
    /// Where to write what was heard and what became of it, for `ASSIST_VOICE_TRACE` (nil: nowhere).
    package var trace: ((String) -> Void)? {
        didSet {
            spans.trace = trace
            searches.trace = trace
        }
    }
    /// How loud each 10 ms of the last seconds fed was: the pause rule and where an utterance ends.
    package private(set) var loudness = LoudnessTrack()
    /// While Assist's own sound plays, whether the phrase from the first ms to the second was said by a
    /// person (the echo canceller left its sound) or is Assist's voice coming back; nil when Assist was
    /// quiet then. Over Assist's sound the pause rules cannot hold (its voice goes on around the phrase), so
    /// this decides instead (docs/voice.md, "Barge-in").
    package var overSound: ((Int, Int) -> Bool?)?
    /// Called the moment a phrase said over Assist's sound is heard, before it is sure: the host holds its
    /// sound, so that speech is cut at once.
    package var onCandidate: ((Detection) -> Void)?
    /// Whether Assist's own sound played from the first ms to the second. While it plays (and for
    /// `promptAfterSoundMs` after), the searches report a phrase the moment it passes its threshold
    /// (`assist_spotter_set_prompt`): the phrase is heard, and Assist's sound held, 90-130 ms sooner.
    package var assistSounding: ((Int, Int) -> Bool)?
    /// Whether a phrase said over Assist's sound waits to be sure.
    package var hasCandidates: Bool { holding.held.contains { $0.overSound } }

    /// Opens the recogniser on `model` listening for `phrases`; phrases with a word the dictionary lacks are
    /// left out (and listed in `unknown`).
    package init(model: VoiceModel, phrases: [KeyPhrase], aloneBelow: Int = 0) throws(VoiceError) {
        searches = try KeywordSearches(model: model)
        try setPhrases(phrases, aloneBelow: aloneBelow)
    }

    /// Opens the decoders that judge what was heard (`SpanDecoders.prepareJudge`) before the first phrase needs
    /// them.
    package func prepareJudge() { spans.prepareJudge() }

    /// True when the dictionary has `word`.
    package func knows(_ word: String) -> Bool { searches.knows(word) }

    /// How many phones `phrase` has (first pronunciations): short phrases of common words ("read this", 6)
    /// are heard in everyday talk.
    package func phoneCount(_ phrase: String) -> Int { KeyPhrase(phrase).words.map(searches.phoneCount).reduce(0, +) }

    /// Below this many phones a phrase heard at any time must be said alone, with longer pauses around it
    /// (measured: "read this", 6 phones, was heard in sentences at every threshold that still heard it after a
    /// pause before it alone; "read text", 8, was not).
    package static let alwaysMinimumPhones = 7

    /// Listens for `phrases` from now on (a feature took the focus, a wake word was heard); those with fewer
    /// than `aloneBelow` phones are heard at any time only when said alone.
    package func setPhrases(_ wanted: [KeyPhrase], aloneBelow: Int = 0) throws(VoiceError) {
        var kept: [KeyPhrase] = []
        var missing: [(String, String)] = []
        for phrase in wanted where !phrase.text.isEmpty && !kept.contains(where: { $0.text == phrase.text }) {
            if let word = phrase.words.first(where: { !knows($0) }) {
                missing.append((phrase.text, word))
            } else {
                kept.append(phrase)
            }
        }
        guard !kept.isEmpty else {
            unknown = missing
            throw .noPhrases
        }
        try searches.listen(for: kept, fedMs: fedMs)
        rules.listen(for: kept.map(\.text), aloneBelow: aloneBelow, phones: phoneCount)
        referee = Referee(phrases: kept, alonePhrases: rules.alonePhrases)
        phrases = kept
        unknown = missing
        holding.held = []
        aloneUtterances.clear()
    }

    /// Decodes whole utterances against `choices` (one of them per utterance) until `setPhrases` again; the
    /// first search decodes, the others close.
    package func listenForOneOf(_ choices: [String]) throws(VoiceError) {
        let known = choices.map(KeyPhrase.normalise).filter { choice in
            !choice.isEmpty && choice.split(separator: " ").allSatisfy { knows(String($0)) }
        }
        guard !known.isEmpty else { throw .noPhrases }
        try searches.listen(
            grammar: "#JSGF V1.0;\ngrammar choices;\npublic <choice> = " + known.joined(separator: " | ") + ";\n")
        holding.held = []
        aloneUtterances.clear()
    }

    /// Feeds 16 kHz mono samples; what was heard in them (and phrases held before that are now sure).
    package func feed(_ samples: [Int16]) -> [Detection] {
        let chunkMs = samples.count * 1000 / VoiceListener.format.sampleRateHz
        fedMs += chunkMs
        loudness.measure(samples)
        spans.keep(samples)
        // Nobody has spoken for the last 2 s: the searches keep the cepstral mean speech left them (a word after
        // a long quiet was not heard otherwise).
        let quiet = fedMs > 2_000 && loudness.utterance(after: fedMs - 2_000) == .none
        let passOver = QuietRoom.passesOver(loudness, fedMs: fedMs)
        let fresh = room.fresh(samples, passOver: passOver)
        var quietNow: Bool?
        let startMs = fedMs - chunkMs
        let heard = searches.feed(
            KeywordSearches.Chunk(
                fresh: fresh, passOver: passOver, holdMean: quiet,
                prompt: assistSounding?(startMs - Self.promptAfterSoundMs, fedMs) == true, startMs: startMs,
                isQuietNow: { [loudness, fedMs] in
                    if quietNow == nil {
                        quietNow =
                            loudness.utterance(after: fedMs - Self.restartQuietMs) == .none
                            && loudness.isQuiet(after: fedMs - QuietRoom.onsetMs)
                    }
                    return quietNow ?? false
                }))
        return settle(heard)
    }

    /// A search is renewed (`KeywordSearches.restartFrames`) at a moment when nothing was said for this long.
    static let restartQuietMs = 600
    /// The searches report promptly for this long after Assist's sound (its echo and the room's reverberation).
    static let promptAfterSoundMs = 1_000
    /// pocketsphinx reports a phrase some 160-180 ms after the end it gives for it (measured over a reading).
    static let reportLagMs = 100

    /// Where the person check over Assist's sound ends: fed in small chunks, pocketsphinx reports a phrase as soon
    /// as its first sounds match ("slow" of "slower", ending 80 ms before the word), and a word's first 150 ms, a
    /// quiet "s", are mostly echo: the check takes in what was fed up to `reportLagMs` ago (measured: 3 of 83
    /// commands over a reading dropped as Assist's own voice when the check ended where the phrase did).
    private func personCheckEnd(_ detection: Detection) -> Int {
        max(detection.endMs, fedMs - Self.reportLagMs)
    }

    /// What is still held, as the input ends.
    package func flush() -> [Detection] {
        defer {
            holding.held = []
            aloneUtterances.clear()
        }
        return holding.held
    }

    /// What was heard, through the layers in turn: Assist's own voice dropped and a person's marked
    /// (`overSound`); at any time, what does not follow a pause kept for its utterance's judge; heard already,
    /// dropped; a phrase with a rival, refereed, and one over the sound of another search's phrase held, settled
    /// (`HeldPhrases.settleRival`); held (a phrase inside a longer one waits for it); then what is due is judged
    /// once over Assist's sound, or waits for the pause after it.
    private func settle(_ heard: [Detection]) -> [Detection] {
        for var detection in heard {
            let over = overSound?(detection.startMs, personCheckEnd(detection))
            if let trace {
                let pause =
                    over != nil
                    ? " over Assist's sound"
                    : standalone
                        ? (loudness.followsAPause(startMs: detection.startMs, endMs: detection.endMs)
                            ? " after a pause" : " inside speech: dropped") : ""
                trace("heard \(detection.json) at \(fedMs) ms\(pause)")
            }
            switch over {
            case false?:
                trace?("\(detection.phrase) at \(detection.startMs) ms is Assist's own voice: dropped")
                continue
            case true?:
                detection.overSound = true
            case nil:
                if !rules.beginsAfterAPause(detection, in: loudness) {
                    aloneUtterances.add(detection)
                    continue
                }
            }
            if holding.isRepeat(detection) { continue }
            // The sound is held before the referee decodes (a tenth of a second): speech is cut at once.
            if detection.overSound { onCandidate?(detection) }
            if let chosen = referee.decide(detection.phrase, hear: { hear($0, over: detection) }) {
                detection.phrase = chosen
            }
            if let settled = holding.settleRival(of: detection, hear: { hear($0, over: $1) }) {
                trace?(settled)
                continue
            }
            holding.hold(detection)
        }
        var sure: [Detection] = []
        var waiting: [Detection] = []
        for detection in holding.held.sorted(by: { $0.endMs < $1.endMs }) {
            guard detection.endMs + rules.holdMs(for: detection, in: loudness) <= fedMs else {
                waiting.append(detection)
                continue
            }
            if detection.overSound {
                switch judgeOverSound(detection) {
                case .heard(let judged): sure.append(judged)
                case .waiting: waiting.append(detection)
                case .dropped: break
                }
                continue
            }
            switch rules.after(detection, in: loudness, fedMs: fedMs) {
            case .command: sure.append(sayingAlike(detection))
            case .waiting: waiting.append(detection)
            case .speech:
                trace?("\(detection.phrase) at \(detection.startMs) ms is followed by speech: dropped")
                aloneUtterances.add(detection)
            }
        }
        holding.held = waiting
        holding.report(sure, fedMs: fedMs)
        guard standalone else { return sure }
        let commands = phrases.map(\.text).filter { !takesWords.contains($0) }
        let rescued = aloneUtterances.judge(loudness: loudness, fedMs: fedMs, phrases: holding, trace: trace) {
            judge(fromMs: $0, toMs: $1, commands: commands, bareOver: $2)
        }
        holding.report(rescued)
        // The moment the shell would act on each (benchmarks take the latency from here: `assist listen` judges
        // each phrase once more for its printed score, which the shell does not).
        for detection in sure + rescued { trace?("sure \(detection.json) at \(fedMs) ms") }
        guard judgesSpotted else { return sure + rescued }
        // Heard at any time: how sure, judged as a window's command is, over the phrase's own sound.
        return rescued
            + sure.map { detection in
                var judged = detection
                judged.confidence =
                    judge(fromMs: detection.startMs - 400, toMs: detection.endMs + 300, commands: [detection.phrase])?
                    .confidence ?? 0
                return judged
            }
    }

    /// Over Assist's sound, what is left of it can make the spotter take one command for another ("back" for
    /// "faster", "time" inside "what time is it"): the phrase's sound, from 400 ms before it to 200 ms after
    /// where its voice ends, is decoded once as one of the commands and judged, as a window's is: what is not
    /// surely a command is dropped; until its voice ends, it waits.
    private func judgeOverSound(_ detection: Detection) -> OverSoundOutcome {
        guard let voiceEnd = loudness.voiceEnd(startMs: detection.startMs, endMs: detection.endMs) else {
            return .waiting
        }
        let commands = phrases.map(\.text)
        var judged = verdicts.verdict(on: detection, fedMs: fedMs) {
            judge(fromMs: detection.startMs - 400, toMs: max(voiceEnd, detection.endMs) + 200, commands: commands)
        }
        guard judged.confidence ?? 0 >= CommandConfidence.acceptAt else {
            trace?("\(detection.phrase) at \(detection.startMs) ms over Assist's sound is not sure: dropped")
            return .dropped
        }
        if judged.phrase != detection.phrase {
            trace?("\(detection.phrase) at \(detection.startMs) ms over Assist's sound is \(judged.phrase)")
        }
        judged.overSound = true
        return .heard(judged)
    }

    private enum OverSoundOutcome {
        case heard(Detection)
        case waiting
        case dropped
    }
}

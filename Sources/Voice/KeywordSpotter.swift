import CPocketSphinx
import Foundation
import Runtime

/// A phrase to listen for and how sure the recogniser must be: pocketsphinx's keyphrase threshold, a
/// probability such as 1e-20 (a smaller value lets more through; `assist voice tune` chooses it).
package struct KeyPhrase: Equatable, Sendable {
    package var text: String
    package var threshold: Double

    package init(_ text: String, threshold: Double = KeyPhrase.defaultThreshold) {
        self.text = KeyPhrase.normalise(text)
        self.threshold = threshold
    }

    package static let defaultThreshold = 1e-20

    /// Lower case, letters and apostrophes only, single spaces: the form the dictionary knows.
    package static func normalise(_ text: String) -> String {
        let kept = text.lowercased().map { $0.isLetter || $0 == "'" ? $0 : " " }
        return String(kept).split(separator: " ").joined(separator: " ")
    }

    package var words: [String] { text.split(separator: " ").map(String.init) }
}

/// A phrase heard: what, when (ms from the first sample listened to) and how sure (a log score, larger is
/// surer).
package struct Detection: Equatable, Sendable {
    package var phrase: String
    package var startMs: Int
    package var endMs: Int
    package var score: Int
    /// The words said after the phrase, for a phrase that takes them ("cup" after "find object").
    package var argument: String?
    /// How sure it is that the phrase was said, 0...1 (CommandConfidence); nil when not judged.
    package var confidence: Double?
    /// Said over Assist's own sound, and kept by the echo canceller as a person's (`KeywordSpotter.overSound`).
    package var overSound = false

    package init(phrase: String, startMs: Int, endMs: Int, score: Int, argument: String? = nil) {
        self.phrase = phrase
        self.startMs = startMs
        self.endMs = endMs
        self.score = score
        self.argument = argument
    }

    /// One JSON object, as `assist listen --json` prints it.
    package var json: String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let argument = self.argument.map { #","argument":\#(quoted($0))"# } ?? ""
        // Not judged (`assist listen --no-score`): no score.
        let score = confidence.map { #","score":\#(String(format: "%.2f", $0))"# } ?? ""
        return #"{"phrase":\#(quoted(phrase))\#(argument),"start_ms":\#(startMs),"end_ms":\#(endMs)\#(score)}"#
    }

    /// The JSON line for an utterance that was no command: what it came nearest to, and how sure that was.
    package static func rejectedJSON(nearest: String?, startMs: Int, endMs: Int, confidence: Double) -> String {
        let nearest = nearest.map { #","nearest":"\#($0)""# } ?? ""
        let score = String(format: "%.2f", confidence)
        return #"{"rejected":true\#(nearest),"start_ms":\#(startMs),"end_ms":\#(endMs),"score":\#(score)}"#
    }
}

/// pocketsphinx in keyphrase-spotting mode over 16 kHz mono: fed in chunks, it reports each phrase heard.
/// It can switch to a JSGF grammar for a command's argument (a closed list), decoded per utterance. One
/// thread at a time.
///
/// Three things the recogniser does not do by itself are done here. pocketsphinx's keyphrase search starts
/// afresh after each phrase it spots, so a phrase that begins like another ("read this", "read text") would
/// cut the other off: phrases that share a word are listened for by separate searches over the same sound
/// (`groups`). A word with several pronunciations ("read" is R EH D first, R IY D second) is listened for in
/// each. And a phrase found inside a longer one ("time" in "what time is it") is held for `holdMs` and
/// dropped when the longer phrase is heard over it.
package final class KeywordSpotter {
    /// One search per group of phrases that share no word; the first also looks words up.
    private var spotters: [OpaquePointer]
    private var spotter: OpaquePointer { spotters[0] }
    private let folder: URL
    package let model: VoiceModel
    /// The phrases listened for, and those left out because a word is not in the dictionary.
    package private(set) var phrases: [KeyPhrase] = []
    package private(set) var unknown: [(phrase: String, word: String)] = []
    /// How long a phrase that is part of a longer one waits for it.
    package static let holdMs = 1_000
    /// The spoken form listened for (a variant) → the phrase it stands for.
    private var variants: [String: String] = [:]
    /// The words' later pronunciations, added to the searches and the side decoders.
    private let pronunciations: Pronunciations
    /// The last seconds of sound, and the decoders that decode a span of it once.
    private lazy var spans = SpanDecoders(
        model: model, probe: folder.appendingPathComponent("probe.kws").path, pronunciations: pronunciations,
        knows: { [unowned self] in knows($0) })
    /// Phrases that lie inside a longer one, and detections of them waiting to see whether it follows.
    private var shortPhrases: Set<String> = []
    /// Phrases too short to be told from everyday talk by the pauses around a phrase ("stop", "next"): heard
    /// at any time only when said alone, with longer pauses (LoudnessTrack.saidAlone).
    private var alonePhrases: Set<String> = []
    private var held: [Detection] = []
    /// Phrases dropped because speech came just before or after them, each waiting for the utterance it lies in
    /// to end: the pause rules look at a few hundred milliseconds around what the spotter heard, and the
    /// spotter hears a command said alone in noise or at a new speaking rate as part of it ("next" of "read
    /// text") or runs it on into its own noise.
    private var rescues: [Detection] = []
    /// The utterances judged whole in the last seconds.
    private var judgedUtterances: [Range<Int>] = []

    /// Phrases with a rival in the list, which the referee checks.
    private var contestable: Set<String> = []
    /// Sound of a quiet room held back from the searches, at most `prerollMs` of it (`feed`).
    private var unfed: [Int16] = []
    /// What was reported in the last 2 s, so that another spoken form of the same phrase is not reported again.
    private var recent: [Detection] = []
    /// Audio fed so far, in ms.
    private var fedMs = 0
    /// When each search was opened, in ms of audio fed: a search counts its frames from its own first.
    private var openedAtMs: [Int] = [0]
    /// Only phrases said on their own, after a pause, are heard (always-on listening): a phrase found inside
    /// running speech ("the bread is fresh" holds "read this") is somebody talking, not a command.
    package var standalone = false
    /// Phrases that take words after them ("find object", "find text"): no pause after them is looked for.
    package var takesWords: Set<String> = []
    /// Each phrase spotted is judged too (its `confidence`), as a window's command is: for `assist listen`'s
    /// printed score only (two more decodes a phrase; nothing rejects on it at any time).
    package var judgesSpotted = false
    /// Where to write what was heard and what became of it, for `ASSIST_VOICE_TRACE` (nil: nowhere).
    package var trace: ((String) -> Void)? { didSet { spans.trace = trace } }
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
    /// The verdicts on phrases heard over Assist's sound in the last seconds, by where they lie (100 ms steps).
    private var judged: [String: (phrase: String, confidence: Double)] = [:]
    /// Whether a phrase said over Assist's sound waits to be sure.
    package var hasCandidates: Bool { held.contains { $0.overSound } }

    /// Opens the recogniser on `model` listening for `phrases`; phrases with a word the dictionary lacks are
    /// left out (and listed in `unknown`).
    package init(model: VoiceModel, phrases: [KeyPhrase], aloneBelow: Int = 0)
        throws(VoiceError)
    {
        self.model = model
        pronunciations = Pronunciations(dictionary: model.dictionary)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("assist-voice-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // A one-phrase list first, to look words up; then the real list.
        let probe = folder.appendingPathComponent("probe.kws")
        try? "yes /1e-10/\n".write(to: probe, atomically: false, encoding: .utf8)
        var error = [CChar](repeating: 0, count: 256)
        guard
            let opened = assist_spotter_open(
                model.acousticModel.path, model.dictionary.path, probe.path, &error, error.count)
        else {
            try? FileManager.default.removeItem(at: folder)
            throw .library(String(nulTerminated: error))
        }
        spotters = [opened]
        try setPhrases(phrases, aloneBelow: aloneBelow)
    }

    deinit {
        spotters.forEach { assist_spotter_close($0) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// True when the dictionary has `word`.
    package func knows(_ word: String) -> Bool { assist_spotter_knows(spotter, word.lowercased()) == 1 }

    /// How many phones `phrase` has (first pronunciations): short phrases of common words ("read this", 6)
    /// are heard in everyday talk.
    package func phoneCount(_ phrase: String) -> Int {
        KeyPhrase(phrase).words.map { Int(assist_spotter_phone_count(spotter, $0)) }.reduce(0, +)
    }

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
        pronunciations.add(for: Set(kept.flatMap(\.words)), to: spotters)
        variants = [:]
        let groups = SearchPlan.groups(kept)
        for (index, group) in groups.enumerated() {
            var lines = ""
            for phrase in group {
                for variant in pronunciations.spokenForms(phrase.words) {
                    variants[variant] = phrase.text
                    lines += "\(variant) /\(String(format: "%.0e", phrase.threshold))/\n"
                }
            }
            let list = folder.appendingPathComponent("phrases-\(index).kws")
            do { try lines.write(to: list, atomically: false, encoding: .utf8) } catch {
                throw .library("the phrase list cannot be written to \(folder.path)")
            }
            if index == spotters.count {
                var error = [CChar](repeating: 0, count: 256)
                guard
                    let opened = assist_spotter_open(
                        model.acousticModel.path, model.dictionary.path, list.path, &error, error.count)
                else { throw .library(String(nulTerminated: error)) }
                spotters.append(opened)
                openedAtMs.append(fedMs)
                pronunciations.copy(to: opened)
            }
            guard assist_spotter_set_keyphrases(spotters[index], list.path) == 0 else {
                throw .library("the phrase list was refused")
            }
        }
        // Searches left over from a longer list listen for nothing.
        while spotters.count > max(1, groups.count) {
            assist_spotter_close(spotters.removeLast())
            openedAtMs.removeLast()
        }
        let texts = kept.map(\.text)
        alonePhrases = Set(texts.filter { phoneCount($0) < aloneBelow })
        shortPhrases = Set(texts.filter { short in texts.contains { $0 != short && SearchPlan.contains($0, short) } })
        contestable = Set(kept.filter { phrase in kept.contains { areRivals($0, phrase) } }.map(\.text))
        phrases = kept
        unknown = missing
        held = []
        rescues = []
    }

    /// Decodes whole utterances against `choices` (one of them per utterance) until `setPhrases` again; the
    /// first search decodes, the others pause.
    package func listenForOneOf(_ choices: [String]) throws(VoiceError) {
        while spotters.count > 1 {
            assist_spotter_close(spotters.removeLast())
            openedAtMs.removeLast()
        }
        let known = choices.map(KeyPhrase.normalise).filter { choice in
            !choice.isEmpty && choice.split(separator: " ").allSatisfy { knows(String($0)) }
        }
        guard !known.isEmpty else { throw .noPhrases }
        let grammar = "#JSGF V1.0;\ngrammar choices;\npublic <choice> = " + known.joined(separator: " | ") + ";\n"
        guard assist_spotter_set_grammar(spotter, grammar) == 0 else {
            throw .library("the list of choices was refused")
        }
        held = []
        rescues = []
    }

    /// Feeds 16 kHz mono samples; what was heard in them (and phrases held before that are now sure).
    package func feed(_ samples: [Int16]) -> [Detection] {
        fedMs += samples.count * 1000 / VoiceListener.format.sampleRateHz
        loudness.measure(samples)
        spans.keep(samples)
        var heard: [Detection] = []
        // Nobody has spoken for the last 2 s: the searches keep the cepstral mean speech left them (a word after
        // a long quiet was not heard otherwise).
        let quiet = fedMs > 2_000 && loudness.utterance(after: fedMs - 2_000) == .none
        // A quiet room is not decoded: once nobody has spoken for `quietRoomMs` and nothing begins in this chunk,
        // the sound is held back, and all but its last `prerollMs` passed over; the next sound is fed after that
        // last part, so a word's soft start is decoded as before.
        let passOver =
            fedMs > 2_000 && loudness.utterance(after: fedMs - Self.quietRoomMs) == .none
            && loudness.isQuiet(after: fedMs - Self.onsetMs)
        let fresh: [Int16]
        if passOver {
            unfed += samples
            let over = max(0, unfed.count - Self.prerollMs * VoiceListener.format.sampleRateHz / 1000)
            fresh = Array(unfed.prefix(over))
            unfed.removeFirst(over)
        } else {
            fresh = unfed + samples
            unfed = []
        }
        // A search that has run 30 s without a pause pocketsphinx sees starts afresh at a quiet moment, before
        // this chunk: a restart inside a word lost it ("stop" said as the 30 s came).
        var quietNow: Bool?
        func isQuietNow() -> Bool {
            if quietNow == nil {
                quietNow =
                    loudness.utterance(after: fedMs - Self.restartQuietMs) == .none
                    && loudness.isQuiet(after: fedMs - Self.onsetMs)
            }
            return quietNow ?? false
        }
        let chunkStartMs = fedMs - samples.count * 1000 / VoiceListener.format.sampleRateHz
        let prompt = Int32(assistSounding?(chunkStartMs - Self.promptAfterSoundMs, fedMs) == true ? 1 : 0)
        for (search, openedAt) in zip(spotters, openedAtMs) {
            if assist_spotter_utterance_frames(search) > Self.restartFrames, isQuietNow(),
                assist_spotter_restart(search) == 0
            {
                trace?("search renewed at \(chunkStartMs) ms")
            }
            // Switched, like a renewal, where no word is cut in two.
            var switched = -1
            if assist_spotter_is_prompt(search) >= 0, assist_spotter_is_prompt(search) != prompt, isQuietNow() {
                switched = Int(assist_spotter_set_prompt(search, prompt))
                trace?("search reports \(prompt == 1 ? "promptly" : "steadily") from \(chunkStartMs) ms")
            }
            assist_spotter_hold_mean(search, quiet ? 1 : 0)
            // A search that hears speech going on is fed what the others pass over.
            var found = passOver && !fresh.isEmpty ? assist_spotter_skip(search, fresh.count) : -1
            if found < 0, !fresh.isEmpty || !passOver {
                found = fresh.withUnsafeBufferPointer { assist_spotter_feed(search, $0.baseAddress, $0.count) }
            }
            guard found == 1 || switched == 1 else { continue }
            var phrase = [CChar](repeating: 0, count: 256)
            var start: Int64 = 0
            var end: Int64 = 0
            var score: Int32 = 0
            while assist_spotter_result(search, &phrase, phrase.count, &start, &end, &score) == 0 {
                let text = KeyPhrase.normalise(String(nulTerminated: phrase).replacingOccurrences(of: "__", with: " "))
                let said = variants[String(nulTerminated: phrase)] ?? variants[text] ?? text
                heard.append(
                    Detection(
                        phrase: said, startMs: openedAt + Int(start) * 10, endMs: openedAt + Int(end) * 10,
                        score: Int(score)))
            }
        }
        return settle(heard)
    }

    /// A keyphrase search's utterance is restarted after this many 10 ms frames (30 s), at a moment when nothing
    /// was said for `restartQuietMs`; pocketsphinx restarts it anyway at twice that.
    static let restartFrames = 3_000
    static let restartQuietMs = 600
    /// A quiet room is passed over once nobody has spoken for this long (`feed`); the last `prerollMs` of it is
    /// decoded before the next sound.
    static let quietRoomMs = 600
    static let prerollMs = 300
    /// The searches report promptly for this long after Assist's sound (its echo and the room's reverberation).
    static let promptAfterSoundMs = 1_000
    /// Nothing of a word may have begun in the last `onsetMs` either (fed in 20 ms chunks, a search was renewed
    /// 70 ms into "stop", which the loudness track does not yet call speech).
    static let onsetMs = 200
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
            held = []
            rescues = []
        }
        return held
    }

    /// A phrase that has a rival in the list ("start photo sensor" and "stop photo sensor", "read text" and
    /// "find text") is checked by the referee as soon as it is heard: its sound is decoded once more as a
    /// choice between it and its rivals, and the phrase the referee hears is the one said. Another search's
    /// phrase over most of the same sound afterwards is the same words heard again, and is dropped.
    /// A phrase that lies inside a longer one waits `holdMs` and is dropped when the longer one is heard over
    /// it. Another spoken form of a phrase already heard counts once.
    private func settle(_ heard: [Detection]) -> [Detection] {
        if let trace {
            for detection in heard {
                let over = overSound?(detection.startMs, personCheckEnd(detection))
                let pause =
                    over != nil
                    ? " over Assist's sound"
                    : standalone
                        ? (loudness.followsAPause(startMs: detection.startMs, endMs: detection.endMs)
                            ? " after a pause" : " inside speech: dropped") : ""
                trace("heard \(detection.json) at \(fedMs) ms\(pause)")
            }
        }
        for var detection in heard {
            switch overSound?(detection.startMs, personCheckEnd(detection)) {
            case false?:
                trace?("\(detection.phrase) at \(detection.startMs) ms is Assist's own voice: dropped")
                continue
            case true?:
                detection.overSound = true
            case nil:
                if standalone, !loudness.followsAPause(startMs: detection.startMs, endMs: detection.endMs) {
                    rescues.append(detection)
                    continue
                }
            }
            let again = (recent + held).contains {
                ($0.phrase == detection.phrase && $0.startMs <= detection.endMs && detection.startMs <= $0.endMs)
                    || (SearchPlan.overlap($0, detection) > 0.5 && !SearchPlan.contains($0.phrase, detection.phrase)
                        && !SearchPlan.contains(detection.phrase, $0.phrase))
            }
            if again { continue }
            // The sound is held before the referee decodes (a tenth of a second): speech is cut at once.
            if detection.overSound { onCandidate?(detection) }
            if contestable.contains(detection.phrase), let chosen = referee(detection) {
                detection.phrase = chosen
            }
            held.removeAll { short in
                SearchPlan.contains(detection.phrase, short.phrase) && detection.phrase != short.phrase
                    && detection.startMs <= short.endMs && short.startMs <= detection.endMs
            }
            if held.contains(where: {
                SearchPlan.contains($0.phrase, detection.phrase) && SearchPlan.overlap($0, detection) > 0
            }) {
                continue
            }
            held.append(detection)
        }
        // Due once a longer phrase it lies in could no longer be heard over it; at any time (`standalone`), once
        // the pause after it is heard too, or speech going on instead (then dropped).
        var sure: [Detection] = []
        var waiting: [Detection] = []
        for detection in held.sorted(by: { $0.endMs < $1.endMs }) {
            guard detection.endMs + wait(for: detection) <= fedMs else {
                waiting.append(detection)
                continue
            }
            // Over Assist's sound, what is left of it can make the spotter take one command for another ("back"
            // for "faster", "time" inside "what time is it"): the phrase's sound, to where its voice ends, is
            // decoded once as one of the commands and judged, as a window's is; what is not surely a command is
            // dropped.
            if detection.overSound {
                guard let voiceEnd = loudness.voiceEnd(startMs: detection.startMs, endMs: detection.endMs) else {
                    waiting.append(detection)
                    continue
                }
                var judged = overSoundVerdict(detection, voiceEndMs: voiceEnd)
                guard judged.confidence ?? 0 >= CommandConfidence.acceptAt else {
                    trace?("\(detection.phrase) at \(detection.startMs) ms over Assist's sound is not sure: dropped")
                    continue
                }
                if judged.phrase != detection.phrase {
                    trace?("\(detection.phrase) at \(detection.startMs) ms over Assist's sound is \(judged.phrase)")
                    judged.overSound = true
                }
                sure.append(judged)
                continue
            }
            // A phrase that takes words is followed by them ("find text emergency exit"), not by a pause; one
            // said over Assist's sound was judged by the echo canceller.
            guard standalone, !takesWords.contains(detection.phrase), !detection.overSound else {
                sure.append(detection)
                continue
            }
            let single = alonePhrases.contains(detection.phrase)
            let quietMs = single ? LoudnessTrack.aloneQuietMs : LoudnessTrack.afterQuietMs
            let pause =
                single
                ? loudness.saidAlone(startMs: detection.startMs, endMs: detection.endMs, quietMs: quietMs)
                : loudness.followedByAPause(startMs: detection.startMs, endMs: detection.endMs, quietMs: quietMs)
            switch pause {
            case true?: sure.append(detection)
            case nil where detection.endMs + LoudnessTrack.tailMs + quietMs + 200 > fedMs: waiting.append(detection)
            default:
                trace?("\(detection.phrase) at \(detection.startMs) ms is followed by speech: dropped")
                rescues.append(detection)
            }
        }
        held = waiting
        recent = (recent + sure).filter { $0.endMs + 2_000 > fedMs }
        guard standalone else { return sure }
        let rescued = judgeAloneUtterances()
        recent += rescued
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

    /// An utterance said on its own (`LoudnessTrack.aloneUtterance`) that held a phrase dropped by the pause
    /// rules is judged whole, once, as a push-to-talk window is, against every phrase listened for: a command
    /// the judge is sure of (`CommandConfidence.aloneAt`), with no request's words around it (at any time a
    /// command is one said on its own: "please collect videos for me" is somebody talking), is heard there.
    /// Everyday sentences said alone with a command's word in them are judged too, and the judge is sure of
    /// almost none of them (docs/voice.md).
    private func judgeAloneUtterances() -> [Detection] {
        var heard: [Detection] = []
        var waiting: [Detection] = []
        // A phrase that takes words is followed by them, not heard as an utterance alone.
        let phrases = phrases.map(\.text).filter { !takesWords.contains($0) }
        for detection in rescues {
            let start: Int
            let end: Int
            switch loudness.aloneUtterance(startMs: detection.startMs, endMs: detection.endMs) {
            case .waiting:
                waiting.append(detection)
                continue
            case .notAlone: continue
            case .utterance(let from, let to): (start, end) = (from, to)
            }
            let span = start..<end
            if judgedUtterances.contains(where: { $0.overlaps(span) }) { continue }
            // A phrase still held there is heard or dropped first; one heard there already stands.
            if held.contains(where: { $0.startMs < end && start < $0.endMs }) {
                waiting.append(detection)
                continue
            }
            if recent.contains(where: { $0.startMs < end && start < $0.endMs }) { continue }
            judgedUtterances.append(span)
            guard let verdict = judge(fromMs: start - 300, toMs: end + 300, commands: phrases, bareOver: span),
                verdict.confidence >= CommandConfidence.aloneAt
            else {
                trace?("the utterance \(start)–\(end) ms said alone is no command it is sure of")
                continue
            }
            var found = Detection(phrase: verdict.phrase, startMs: start, endMs: end, score: detection.score)
            found.confidence = verdict.confidence
            trace?("heard \(found.json) at \(fedMs) ms in an utterance said alone")
            heard.append(found)
        }
        rescues = waiting
        judgedUtterances.removeAll { $0.upperBound + 10_000 < fedMs }
        return heard
    }

    /// `detection`, said over Assist's sound, as the judge hears it over its own sound (from 400 ms before it to
    /// 200 ms after `voiceEndMs`, where its voice ends): the command decoded there and how sure (0 when no
    /// command is heard there, or the decoders cannot run: nothing acts on a guess).
    private func overSoundVerdict(_ detection: Detection, voiceEndMs: Int) -> Detection {
        // Two spoken forms of one phrase over the same sound are judged once.
        let key = "\(detection.startMs / 100)-\(detection.endMs / 100)"
        if let known = judged[key] {
            var again = detection
            again.phrase = known.phrase
            again.confidence = known.confidence
            return again
        }
        let toMs = max(voiceEndMs, detection.endMs) + 200
        let verdict = judge(fromMs: detection.startMs - 400, toMs: toMs, commands: phrases.map(\.text))
        judged = judged.filter { Int($0.key.split(separator: "-").last ?? "") ?? 0 > (fedMs - 5_000) / 100 }
        judged[key] = verdict ?? (detection.phrase, 0)
        guard let verdict else {
            var unsure = detection
            unsure.confidence = 0
            return unsure
        }
        var judged = detection
        judged.phrase = verdict.phrase
        judged.confidence = verdict.confidence
        return judged
    }

    /// Whether the referee tells `a` from `b`: phrases that share words in the same places (`SearchPlan.conflict`)
    /// and, at any time, single words (`alonePhrases`), each spotted by its own threshold: a rendering of "next"
    /// said alone after a quiet room was heard as "back" 10 times in 16 (the judge, 0.99 sure of "next").
    private func areRivals(_ a: KeyPhrase, _ b: KeyPhrase) -> Bool {
        a.text != b.text
            && (SearchPlan.conflict(a.words, b.words)
                || (alonePhrases.contains(a.text) && alonePhrases.contains(b.text)))
    }

    /// The phrase the referee hears over the sound of `detection` (from 250 ms before it to 150 ms after it,
    /// or what has been fed), decoded once as a choice between it and the phrases that are its rivals; nil
    /// when it hears none of them or cannot run.
    private func referee(_ detection: Detection) -> String? {
        let heard = KeyPhrase(detection.phrase)
        let texts = phrases.filter { $0.text == heard.text || areRivals($0, heard) }.map(\.text)
        guard texts.count > 1 else { return nil }
        let forms = texts.sorted().flatMap { pronunciations.spokenForms(KeyPhrase($0).words) }
        guard let said = spans.rival(forms, fromMs: detection.startMs - 250, toMs: detection.endMs + 150) else {
            return nil
        }
        let phrase = variants[said] ?? KeyPhrase.normalise(said.replacingOccurrences(of: "__", with: " "))
        return texts.contains(phrase) ? phrase : nil
    }

    /// How loud the room is just before `ms` (LoudnessTrack.roomLevel).
    package func roomLevel(before ms: Int) -> Float? { loudness.roomLevel(before: ms) }

    /// Whether something was said from `afterMs` on (LoudnessTrack.utterance).
    package func utterance(after afterMs: Int, room: Float? = nil) -> LoudnessTrack.Utterance {
        loudness.utterance(after: afterMs, room: room)
    }

    /// Where an answer is listened for from (`LoudnessTrack.answerStart`).
    package func answerStart(nowMs: Int, openedMs: Int) -> Int {
        loudness.answerStart(nowMs: nowMs, openedMs: openedMs)
    }

    /// Audio fed so far, in ms (the clock of `Detection` times).
    package var heardMs: Int { fedMs }

    /// Decodes the sound from `fromMs` to `toMs` once, as one of `choices` or, with nil, as open text
    /// (`SpanDecoders.decode`).
    package func decode(fromMs: Int, toMs: Int, choices: [String]?) -> String? {
        spans.decode(fromMs: fromMs, toMs: toMs, choices: choices)
    }

    /// Decodes the sound from `fromMs` to `toMs` once as one of `commands` and judges how sure that is
    /// (`SpanDecoders.judge`).
    package func judge(fromMs: Int, toMs: Int, commands: [String], bareOver utterance: Range<Int>? = nil) -> (
        phrase: String, confidence: Double
    )? {
        spans.judge(fromMs: fromMs, toMs: toMs, commands: commands, bareOver: utterance)
    }

    /// How long a phrase is held before it is sure.
    /// At any time (`standalone`) the wait ends as soon as the pause a single word wants is heard after it: the
    /// longer phrase would have gone on there, and its report is due before that pause is over ("stop", held for
    /// "stop photo sensor", was acted on a second after it was said).
    private func wait(for detection: Detection) -> Int {
        guard shortPhrases.contains(detection.phrase) else { return 0 }
        if standalone, !detection.overSound,
            loudness.followedByAPause(
                startMs: detection.startMs, endMs: detection.endMs, quietMs: LoudnessTrack.aloneQuietMs) == true
        {
            return 0
        }
        return Self.holdMs
    }
}

/// What follows a phrase that takes words ("find object", then "cup"; "find text", then any words), or the
/// answer to a spoken yes-or-no question: it waits for the user's next utterance, told by loudness, and
/// decodes its sound once, as one of a closed list (a JSGF grammar) or as open text (the language model).
/// Used on the listening thread, after each chunk is fed.
package final class ArgumentFollower {
    /// What may be said.
    package enum Wanted: Equatable, Sendable {
        /// One of these (normalised); `prompt` is said when nothing follows the phrase.
        case choices([String], prompt: String?)
        /// Open words (dictation).
        case text
    }

    /// What came of it.
    package enum Outcome: Equatable, Sendable {
        /// The words said (one of the choices, or the dictated text).
        case words(String)
        /// Say this question, then listen again (`listenAgain`).
        case prompt(String)
        /// Nothing usable followed.
        case nothing
        /// Something was said in a window, but it is no command (CommandConfidence): the phrase it came
        /// nearest to, if any, and the confidence.
        case rejected(String?, confidence: Double)
    }

    /// The phrase the words follow ("find object"), or the question's words.
    package let phrase: String
    /// Where the words decoded last lay in the sound fed (ms).
    package private(set) var span: (startMs: Int, endMs: Int)?
    /// The confidence of the command heard in a window (0...1); 1 for other decodings.
    package private(set) var confidence = 1.0
    /// A window's utterance: judged as a command against everything else that might have been said (a
    /// closed list alone would turn any sentence into one of its entries).
    package var judged = false
    /// What may be said; nil until known (a plugin's list, asked for on the main loop).
    package var wanted: Wanted?
    /// Open words that are most often one of these (find-object's "What should I find?", answered with the
    /// names it listens for after "find object"): one of them the judge is sure of is taken, other words are
    /// dictated.
    package var likely: [String] = []
    /// Whether the sound from the first ms to the second is Assist's own voice coming back (the echo canceller's
    /// verdict): such an utterance is not decoded, and the words are awaited after it. Decoding the echo of a
    /// menu read aloud (8 s of it) as an answer took 3.5 s of the listening thread, and a "stop" said meanwhile
    /// was heard that much later.
    package var passOver: ((Int, Int) -> Bool)?
    private var afterMs: Int
    private var waitMs: Int
    /// Where the phrase began (ms), when the words follow a phrase rather than a question.
    private let phraseStartMs: Int?
    /// The room's loudness before the phrase, which the words must rise above (nil: measured as they come).
    private var room: Float?
    private var roomFromMs: Int?
    private var prompted = false

    /// How long speech may take to begin after the phrase, and after a prompt (find-object.md §2: 7 s).
    package static let followMs = 1_500
    package static let afterPromptMs = 7_000
    /// Longer speech is decoded as it stands.
    package static let longestMs = 6_000

    /// Follows `phrase`, which ended at `afterMs` of the sound fed (and began at `phraseStartMs`, after the
    /// pause whose room the words are told against); speech may begin up to `waitMs` later.
    package init(
        phrase: String, wanted: Wanted?, afterMs: Int, phraseStartMs: Int? = nil,
        waitMs: Int = ArgumentFollower.followMs
    ) {
        self.phrase = phrase
        roomFromMs = phraseStartMs
        self.phraseStartMs = phraseStartMs
        self.wanted = wanted
        // The phrase's last sound may ring on past the frame the recogniser ends it on.
        self.afterMs = afterMs + 80
        self.waitMs = waitMs
    }

    /// After each chunk: nil while waiting, else what came of it.
    package func step(_ spotter: KeywordSpotter) -> Outcome? {
        guard let wanted else { return nil }
        if let roomFromMs {
            room = spotter.roomLevel(before: roomFromMs)
            self.roomFromMs = nil
        }
        let now = spotter.heardMs
        let choices: [String]?
        if case .choices(let list, _) = wanted { choices = list } else { choices = nil }
        switch spotter.utterance(after: afterMs, room: room) {
        case .none:
            return now - afterMs >= waitMs ? nothingSaid() : nil
        case .going(let start):
            guard now - start >= Self.longestMs else { return nil }
            if passedOver(start, now) { return nil }
            span = (start, now)
            return decode(spotter, start: start, toMs: now, choices: choices)
        case .ended(let start, let end):
            if passedOver(start, end) { return nil }
            span = (start, end)
            return decode(spotter, start: start, toMs: end + 150, choices: choices)
        }
    }

    /// How soon after the phrase's end the words must begin to be said in one breath with it.
    static let oneBreathMs = 300

    /// The words said in one breath with the phrase ("find object cup"), decoded with it as one of the whole
    /// commands ("find object" then each choice) from the phrase's start: the recogniser often ends a phrase
    /// before its last sound, which then began the words decoded alone ("object" 's "t" and "cup" heard as
    /// "cat"). Nil when the words came after a pause, are not from a list, or the whole decodes as nothing.
    private func decodeWithPhrase(_ spotter: KeywordSpotter, start: Int, toMs: Int, choices: [String]?) -> String? {
        guard !judged, let choices, let phraseStartMs, !phrase.isEmpty, start - afterMs <= Self.oneBreathMs,
            let whole = spotter.decode(
                fromMs: max(0, phraseStartMs - 200), toMs: toMs, choices: choices.map { "\(phrase) \($0)" }),
            whole.hasPrefix(phrase + " ")
        else { return nil }
        return String(whole.dropFirst(phrase.count + 1))
    }

    /// True when the utterance from `start` to `end` is Assist's own voice (`passOver`): the words are then awaited
    /// after it, until the time they were awaited until.
    private func passedOver(_ start: Int, _ end: Int) -> Bool {
        guard let passOver, passOver(start, end) else { return false }
        waitMs = max(0, waitMs - (end - afterMs))
        afterMs = end
        return true
    }

    /// Where speech that has not ended yet began, once 150 ms of it are heard (nil when nobody is speaking, or
    /// what was said has ended): a question's answer said over Assist's voice stops it at once.
    package func speaking(_ spotter: KeywordSpotter) -> (startMs: Int, nowMs: Int)? {
        guard case .going(let start) = spotter.utterance(after: afterMs, room: room), spotter.heardMs - start >= 150
        else { return nil }
        return (start, spotter.heardMs)
    }

    /// Whether nothing has been said since the words were first awaited.
    package func heardNothing(_ spotter: KeywordSpotter) -> Bool {
        spotter.utterance(after: afterMs, room: room) == .none
    }

    /// Decodes the words that began at `start`, up to `toMs`: with the phrase when they were said in one breath
    /// with it (`decodeWithPhrase`), else alone, from just before they began.
    private func decode(_ spotter: KeywordSpotter, start: Int, toMs: Int, choices: [String]?) -> Outcome {
        if let words = decodeWithPhrase(spotter, start: start, toMs: toMs, choices: choices) { return .words(words) }
        let fromMs = max(afterMs - 80, start - 200)
        if choices == nil, !likely.isEmpty,
            let (phrase, confidence) = spotter.judge(fromMs: fromMs, toMs: toMs, commands: likely),
            confidence >= CommandConfidence.likelyAt
        {
            self.confidence = confidence
            return .words(phrase)
        }
        guard judged, let choices else {
            return spotter.decode(fromMs: fromMs, toMs: toMs, choices: choices).map(Outcome.words) ?? nothingSaid()
        }
        guard let (phrase, confidence) = spotter.judge(fromMs: fromMs, toMs: toMs, commands: choices) else {
            confidence = 0
            return .rejected(nil, confidence: 0)
        }
        self.confidence = confidence
        return confidence >= CommandConfidence.acceptAt ? .words(phrase) : .rejected(phrase, confidence: confidence)
    }

    /// The prompt was said (or was being said) up to `ms`: listens from there, for `afterPromptMs`.
    package func listenAgain(fromMs ms: Int) {
        afterMs = ms
        waitMs = Self.afterPromptMs
    }

    private func nothingSaid() -> Outcome {
        if case .choices(_, let prompt?) = wanted, !prompted {
            prompted = true
            return .prompt(prompt)
        }
        return .nothing
    }
}

extension ArgumentFollower {
    /// Inside a push-to-talk or wake-word window the user means to say a command: the window's utterance is
    /// decoded once as one of `phrases`, with each phrase that takes one of a list written out with every word
    /// of it ("find object cup"), rather than spotted (measured: spotting missed one phrase in twelve in the
    /// windows, mostly "start photo sensor" and "stop photo sensor"), and judged: what is no command is
    /// rejected, never taken for the nearest one.
    package static func window(
        phrases: [String], lists: [String: Wanted], fromMs: Int, waitMs: Int
    ) -> ArgumentFollower {
        var all = phrases
        for (phrase, wanted) in lists.sorted(by: { $0.key < $1.key }) {
            if case .choices(let words, _) = wanted { all += words.map { "\(phrase) \($0)" } }
        }
        let follower = ArgumentFollower(
            phrase: "", wanted: .choices(all, prompt: nil), afterMs: max(0, fromMs - 80), waitMs: waitMs)
        follower.judged = true
        return follower
    }
}

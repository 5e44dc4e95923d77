/// The sound heard, for what follows a phrase (`ArgumentFollower`), the shell's answers and the referee: its
/// loudness and its spans decoded once.
extension KeywordSpotter {
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

    /// The referee's decode: the sound of `detection` (from 250 ms before it to 150 ms after it, or what has been
    /// fed) decoded once as one of `texts`; the phrase heard.
    func hear(_ texts: [String], over detection: Detection, toMs: Int? = nil) -> String? {
        let forms = texts.sorted().flatMap { searches.pronunciations.spokenForms(KeyPhrase($0).words) }
        return spans.rival(forms, fromMs: detection.startMs - 250, toMs: toMs ?? detection.endMs + 150).map(
            searches.phrase)
    }

    /// A single word about to be acted on after the pause that follows it, when a longer phrase begins as it
    /// sounds (`Referee.alike`): its sound up to now, the pause included, decoded once more as a choice between
    /// them. Spoken fast, "read text" was spotted only as "repeat", its "text" still unheard when the referee first
    /// decoded; by the pause it has been.
    func sayingAlike(_ detection: Detection) -> Detection {
        let alike = referee.alike(for: detection.phrase)
        guard !alike.isEmpty, let said = hear([detection.phrase] + alike, over: detection, toMs: fedMs),
            alike.contains(said)
        else { return detection }
        trace?("\(detection.phrase) at \(detection.startMs) ms was the start of \(said)")
        var phrase = detection
        phrase.phrase = said
        return phrase
    }
}

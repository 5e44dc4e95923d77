/// Utterances said on their own (`LoudnessTrack.aloneUtterance`) that held a phrase dropped by the pause rules,
/// each judged whole once, as a push-to-talk window is, against every phrase listened for: a command the judge
/// is sure of (`CommandConfidence.aloneAt`), with no request's words around it (at any time a command is one
/// said on its own: "please collect videos for me" is somebody talking), is heard there. Everyday sentences said
/// alone with a command's word in them are judged too, and the judge is sure of almost none of them
/// (docs/voice.md).
package struct AloneUtterances: Sendable {
    /// Phrases dropped because speech came just before or after them, each waiting for the utterance it lies in
    /// to end: the pause rules look at a few hundred milliseconds around what the spotter heard, and the
    /// spotter hears a command said alone in noise or at a new speaking rate as part of it ("next" of "read
    /// text") or runs it on into its own noise.
    package private(set) var waiting: [Detection] = []
    /// The utterances judged in the last 10 s.
    private var judged: [Range<Int>] = []

    package init() {}

    package mutating func add(_ detection: Detection) { waiting.append(detection) }
    package mutating func clear() { waiting = [] }

    /// The commands heard in the utterances that ended: `verdict` decodes the sound from the first ms to the
    /// second once, as one command, bare over the utterance given, and says how sure that is. An utterance with
    /// a phrase still held waits; one where a phrase was reported stands as it is.
    package mutating func judge(
        loudness: LoudnessTrack, fedMs: Int, phrases: HeldPhrases, trace: ((String) -> Void)? = nil,
        verdict: (_ fromMs: Int, _ toMs: Int, _ utterance: Range<Int>) -> (phrase: String, confidence: Double)?
    ) -> [Detection] {
        var heard: [Detection] = []
        var still: [Detection] = []
        for detection in waiting {
            let start: Int
            let end: Int
            switch loudness.aloneUtterance(startMs: detection.startMs, endMs: detection.endMs) {
            case .waiting:
                still.append(detection)
                continue
            case .notAlone: continue
            case .utterance(let from, let to): (start, end) = (from, to)
            }
            let span = start..<end
            if judged.contains(where: { $0.overlaps(span) }) { continue }
            if phrases.holds(from: start, to: end) {
                still.append(detection)
                continue
            }
            if phrases.reported(from: start, to: end) { continue }
            judged.append(span)
            guard let found = verdict(start - 300, end + 300, span), found.confidence >= CommandConfidence.aloneAt
            else {
                trace?("the utterance \(start)–\(end) ms said alone is no command it is sure of")
                continue
            }
            var command = Detection(phrase: found.phrase, startMs: start, endMs: end, score: detection.score)
            command.confidence = found.confidence
            trace?("heard \(command.json) at \(fedMs) ms in an utterance said alone")
            heard.append(command)
        }
        waiting = still
        judged.removeAll { $0.upperBound + 10_000 < fedMs }
        return heard
    }
}

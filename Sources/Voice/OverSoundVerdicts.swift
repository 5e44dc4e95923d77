/// The verdicts on phrases heard over Assist's sound in the last 5 s, by where they lie (100 ms steps): two
/// spoken forms of one phrase over the same sound are judged once.
package struct OverSoundVerdicts: Sendable {
    private var known: [String: (phrase: String, confidence: Double)] = [:]

    package init() {}

    /// `detection` as `judge` hears it (the command decoded over its sound, and how sure): confidence 0 when no
    /// command is heard there or the decoders cannot run, so that nothing acts on a guess.
    package mutating func verdict(
        on detection: Detection, fedMs: Int, judge: () -> (phrase: String, confidence: Double)?
    ) -> Detection {
        let key = "\(detection.startMs / 100)-\(detection.endMs / 100)"
        var judged = detection
        if let verdict = known[key] {
            (judged.phrase, judged.confidence) = verdict
            return judged
        }
        let verdict = judge()
        known = known.filter { Int($0.key.split(separator: "-").last ?? "") ?? 0 > (fedMs - 5_000) / 100 }
        known[key] = verdict ?? (detection.phrase, 0)
        (judged.phrase, judged.confidence) = verdict ?? (detection.phrase, 0)
        return judged
    }
}

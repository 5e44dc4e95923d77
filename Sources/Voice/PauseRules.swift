/// The pauses that tell a command said at any time (`standalone`) from the same words inside somebody's talk,
/// and how long a phrase that lies inside a longer one waits for it. Pure: each rule reads the loudness track it
/// is given (docs/voice.md, "Heard at any time").
package struct PauseRules: Equatable, Sendable {
    /// Only phrases said on their own, after a pause, are heard (always-on listening): a phrase found inside
    /// running speech ("the bread is fresh" holds "read this") is somebody talking, not a command.
    package var standalone = false
    /// Phrases that take words after them ("find object", "find text"): no pause after them is looked for.
    package var takesWords: Set<String> = []
    /// Phrases too short to be told from everyday talk by the pauses around a phrase ("stop", "next"): heard
    /// at any time only when said alone, with longer pauses (LoudnessTrack.saidAlone).
    package private(set) var alonePhrases: Set<String> = []
    /// Phrases that lie inside a longer one in the list ("stop" in "stop photo sensor").
    package private(set) var shortPhrases: Set<String> = []

    /// How long a phrase that is part of a longer one waits for it.
    package static let holdMs = 1_000

    package init(standalone: Bool = false, takesWords: Set<String> = []) {
        self.standalone = standalone
        self.takesWords = takesWords
    }

    /// The rules for the list `texts`: those with fewer than `aloneBelow` phones (`phones`) must be said alone.
    package mutating func listen(for texts: [String], aloneBelow: Int, phones: (String) -> Int) {
        alonePhrases = Set(texts.filter { phones($0) < aloneBelow })
        shortPhrases = Set(texts.filter { short in texts.contains { $0 != short && SearchPlan.contains($0, short) } })
    }

    /// Whether `detection`, heard while Assist was quiet, may be a command as it is heard: at any time only after
    /// a pause (else it is somebody talking, or a command said alone that the utterance's judge may still hear).
    package func beginsAfterAPause(_ detection: Detection, in loudness: LoudnessTrack) -> Bool {
        !standalone || loudness.followsAPause(startMs: detection.startMs, endMs: detection.endMs)
    }

    /// How long `detection` is held before it is sure: a phrase inside a longer one waits `holdMs` for it. At any
    /// time (`standalone`) the wait ends as soon as the pause a single word wants is heard after it: the longer
    /// phrase would have gone on there, and its report is due before that pause is over ("stop", held for "stop
    /// photo sensor", was acted on a second after it was said).
    package func holdMs(for detection: Detection, in loudness: LoudnessTrack) -> Int {
        guard shortPhrases.contains(detection.phrase) else { return 0 }
        if standalone, !detection.overSound,
            loudness.followedByAPause(
                startMs: detection.startMs, endMs: detection.endMs, quietMs: LoudnessTrack.aloneQuietMs) == true
        {
            return 0
        }
        return Self.holdMs
    }

    /// What follows a phrase once its hold is over.
    package enum After: Equatable, Sendable {
        /// A command: a pause (longer for a single word said alone), or no pause is asked for.
        case command
        /// Too soon to say.
        case waiting
        /// Speech goes on: somebody talking (or a command said alone that the utterance's judge may hear).
        case speech
    }

    /// What follows `detection` with `fedMs` of sound heard. A phrase that takes words is followed by them
    /// ("find text emergency exit"), not by a pause; one said over Assist's sound was judged by the echo
    /// canceller; outside `standalone` no pause is asked for.
    package func after(_ detection: Detection, in loudness: LoudnessTrack, fedMs: Int) -> After {
        guard standalone, !takesWords.contains(detection.phrase), !detection.overSound else { return .command }
        let single = alonePhrases.contains(detection.phrase)
        let quietMs = single ? LoudnessTrack.aloneQuietMs : LoudnessTrack.afterQuietMs
        let pause =
            single
            ? loudness.saidAlone(startMs: detection.startMs, endMs: detection.endMs, quietMs: quietMs)
            : loudness.followedByAPause(startMs: detection.startMs, endMs: detection.endMs, quietMs: quietMs)
        switch pause {
        case true?: return .command
        case nil where detection.endMs + LoudnessTrack.tailMs + quietMs + 200 > fedMs: return .waiting
        default: return .speech
        }
    }
}

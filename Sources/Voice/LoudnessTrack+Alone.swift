extension LoudnessTrack {
    /// Where a stretch of sound said on its own lies, as `aloneUtterance` finds it.
    package enum AloneUtterance: Equatable, Sendable {
        /// Too little is kept after it yet to tell.
        case waiting
        /// Speech runs on into it or out of it, or it is longer than a command.
        case notAlone
        /// Quiet before `startMs` and after `endMs`.
        case utterance(startMs: Int, endMs: Int)
    }

    /// The longest utterance taken for a command said on its own ("could you tell me what time is it" is 2.4 s
    /// with its pauses).
    package static let aloneLongestMs = 3_000

    /// The utterance that a phrase heard from `startMs` to `endMs` lies in, when it was said on its own: the
    /// stretch around it bounded by 450 ms of the room before (as `saidAlone` wants) and `aloneQuietMs` after,
    /// no longer than `aloneLongestMs`. Speech is what is 12 dB over the room (the quietest twentieth of the
    /// last 6 s), as `utterance` tells it: a noise that starts with the words is part of the utterance.
    package func aloneUtterance(startMs: Int, endMs: Int) -> AloneUtterance {
        let last = base + energies.count
        guard let room = loudness(from: last - 600, to: last, quantile: 0.05) else { return .notAlone }
        let level = max(room, Self.quietestRoom) + 12
        let longest = Self.aloneLongestMs / 10
        let before = 45
        let after = Self.aloneQuietMs / 10
        // Back from the phrase to the pause before it.
        var start: Int?
        var quiet = 0
        var frame = min(startMs / 10, last) - 1
        while frame >= base, frame >= endMs / 10 - longest - before {
            quiet = energies[frame - base] < level ? quiet + 1 : 0
            if quiet == before {
                start = frame + before
                break
            }
            frame -= 1
        }
        guard let start else { return .notAlone }
        // On from the phrase to the pause after it.
        quiet = 0
        frame = max(endMs / 10, start)
        while frame < last {
            quiet = energies[frame - base] < level ? quiet + 1 : 0
            if quiet == after {
                let end = frame - after + 1
                return end - start <= longest ? .utterance(startMs: start * 10, endMs: end * 10) : .notAlone
            }
            frame += 1
        }
        return last - start > longest + after ? .notAlone : .waiting
    }
}

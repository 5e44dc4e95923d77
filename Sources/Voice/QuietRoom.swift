/// A quiet room is not decoded: once nobody has spoken for `quietRoomMs` and nothing begins in the chunk, the
/// sound is held back, and all but its last `prerollMs` passed over; the next sound is fed after that last part,
/// so a word's soft start is decoded as before.
package struct QuietRoom {
    /// Nobody has spoken for this long.
    package static let quietRoomMs = 600
    /// Held back and decoded before the next sound.
    package static let prerollMs = 300
    /// Nothing of a word may have begun in the last `onsetMs` either (fed in 20 ms chunks, a search was renewed
    /// 70 ms into "stop", which the loudness track does not yet call speech).
    package static let onsetMs = 200
    /// Sound held back from the searches, at most `prerollMs` of it.
    private var unfed: [Int16] = []

    package init() {}

    /// Whether the sound that ends at `fedMs` is passed over.
    package static func passesOver(_ loudness: LoudnessTrack, fedMs: Int) -> Bool {
        fedMs > 2_000 && loudness.utterance(after: fedMs - quietRoomMs) == .none
            && loudness.isQuiet(after: fedMs - onsetMs)
    }

    /// The sound to decode now, given a chunk: passed over, what the room held back beyond its last `prerollMs`;
    /// else what it held back, then the chunk.
    package mutating func fresh(_ samples: [Int16], passOver: Bool) -> [Int16] {
        guard passOver else {
            defer { unfed = [] }
            return unfed + samples
        }
        unfed += samples
        let over = max(0, unfed.count - Self.prerollMs * VoiceListener.format.sampleRateHz / 1000)
        defer { unfed.removeFirst(over) }
        return Array(unfed.prefix(over))
    }
}

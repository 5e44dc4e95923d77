/// The utterance being spoken: its synthesised sound not yet heard and the words not yet reached. Guarded by
/// `SpeechService`'s lock; the speech thread appends, the mixer thread consumes.
final class Playback {
    let entry: SpeechQueue.Entry
    /// UTF-8 byte offset of each Unicode scalar of the text, plus the end.
    let byteOffsets: [Int]
    var samples: [Int16] = []
    var readIndex = 0
    /// Samples made and heard since this synthesis started (at `entry.startCharacter`).
    var synthesised = 0
    var heard = 0
    var marks: [EspeakEngine.Mark] = []
    /// The character where the word now being heard starts, from the start of the text.
    var currentWordCharacter: Int
    /// Leading silence dropped from the synthesis (espeak-ng starts most utterances with about 40 ms of it), so
    /// speech is heard that much sooner; word marks move back by as much.
    var trimmedLeading = 0
    var soundStarted = false
    var synthesisStarted = false
    var synthesisDone = false
    var cancelled = false
    /// The owner went away: report nothing.
    var detached = false

    init(_ entry: SpeechQueue.Entry) {
        self.entry = entry
        var offsets: [Int] = [0]
        var total = 0
        for scalar in entry.utterance.text.unicodeScalars {
            total += UTF8.width(scalar)
            offsets.append(total)
        }
        byteOffsets = offsets
        currentWordCharacter = entry.startCharacter
    }

    /// The text from `entry.startCharacter` on, which is what gets synthesised.
    var remainingText: String {
        String(String.UnicodeScalarView(entry.utterance.text.unicodeScalars.dropFirst(entry.startCharacter)))
    }

    var isFinished: Bool { synthesisDone && readIndex == samples.count }

    /// Where a mark (relative to the synthesised text) sits in the whole text.
    func word(for mark: EspeakEngine.Mark) -> SpeechWord {
        let character = min(byteOffsets.count - 1, max(0, entry.startCharacter + mark.character))
        let end = min(byteOffsets.count - 1, character + max(0, mark.length))
        return SpeechWord(
            characterOffset: character, byteOffset: byteOffsets[character],
            byteLength: byteOffsets[end] - byteOffsets[character])
    }

    /// Drops samples already heard once they add up to a second, so a long text never piles up in memory.
    func compact() {
        if readIndex >= 22_050 {
            samples.removeFirst(readIndex)
            readIndex = 0
        }
    }
}

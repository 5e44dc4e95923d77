import Foundation
import HostTesting
import Interaction
import Speech
import Testing

/// A speaker whose utterances sound only when the test says so, one at a time, most urgent first, as the mixer
/// takes them: each reports its first word as it starts and its end, as the real engines do.
final class TurnSpeaker: Speaker, @unchecked Sendable {  // because: `queued` and `ids` are guarded by `lock`
    private let lock = NSLock()
    private var queued: [(id: UInt64, utterance: Utterance, callbacks: SpeechCallbacks)] = []
    private var ids: UInt64 = 0

    func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?) {
        _ = speak(Utterance(text, language: language, priority: priority, group: group), callbacks: .init())
    }

    func speak(_ utterance: Utterance, callbacks: SpeechCallbacks) -> UInt64? {
        lock.withLock {
            ids += 1
            queued.append((ids, utterance, callbacks))
            return ids
        }
    }

    func cancel(group: SpeechGroup) {
        let dropped = lock.withLock {
            let dropped = queued.filter { $0.utterance.group == group }
            queued.removeAll { $0.utterance.group == group }
            return dropped
        }
        for entry in dropped { entry.callbacks.onDone?(entry.id, .cancelled) }
    }

    func stopAll() {
        let dropped = lock.withLock {
            defer { queued.removeAll() }
            return queued
        }
        for entry in dropped { entry.callbacks.onDone?(entry.id, .cancelled) }
    }

    /// Sounds the next utterance, most urgent first: its first word, then its end. Its text, or nil.
    @discardableResult
    func soundNext(finishing: Bool = true) -> String? {
        let next: (id: UInt64, utterance: Utterance, callbacks: SpeechCallbacks)? = lock.withLock {
            guard let index = queued.indices.min(by: { queued[$0].utterance.priority < queued[$1].utterance.priority })
            else { return nil }
            return queued.remove(at: index)
        }
        guard let next else { return nil }
        next.callbacks.onWord?(next.id, SpeechWord(characterOffset: 0, byteOffset: 0, byteLength: 1))
        if finishing { next.callbacks.onDone?(next.id, .finished) }
        return next.utterance.text
    }
}

/// Issue 72: what is printed keeps pace with what is heard. At any moment at most one printed line is still to
/// be heard, and a line that sounds is already on the screen.
@Suite("Printed lines keep pace with speech")
struct PacedLinesTests {
    let output = RecordingOutput()
    let speaker = TurnSpeaker()

    @Test func theScreenIsNeverMoreThanOneLineAheadOfTheEar() {
        let announcer = Announcer(output: output, speaker: speaker, language: "en")
        let said = (1...6).map { "Line \($0)." }
        for line in said { announcer.say(line) }
        #expect(output.lines == ["Line 1."], "only the first line before anything sounds")
        var heard: [String] = []
        while let text = speaker.soundNext() {
            heard.append(text)
            #expect(output.lines.starts(with: heard), "what sounds was printed first: \(output.lines)")
            #expect(output.lines.count <= heard.count + 1, "heard \(heard.count), printed \(output.lines)")
        }
        #expect(heard == said)
        #expect(output.lines == said)
    }

    /// An urgent line heard before the lines queued ahead of it is printed with them: the ear is never ahead.
    @Test func aLineThatSoundsFirstIsPrintedWithEverythingBeforeIt() {
        let announcer = Announcer(output: output, speaker: speaker, language: "en")
        announcer.say("Reading.")
        announcer.say("First sentence.")
        announcer.say("Second sentence.")
        announcer.say("Battery low.", priority: .important)
        #expect(output.lines == ["Reading."])
        #expect(speaker.soundNext() == "Battery low.")
        #expect(output.lines == ["Reading.", "First sentence.", "Second sentence.", "Battery low."])
    }

    /// Lines only shown (a menu's choices beside its spoken line) keep their place and wait for nothing; a
    /// replaced hint's end lets the next line through; silencing speech prints what was waiting.
    @Test func shownLinesHintsAndSilence() {
        let announcer = Announcer(output: output, speaker: speaker, language: "en")
        announcer.say("Choose a feature.")
        announcer.say("Press a number.", group: .hint)
        announcer.show("1. Clock")
        #expect(output.lines == ["Choose a feature."], "the shown line waits for the hint before it")
        speaker.soundNext(finishing: false)
        #expect(output.lines == ["Choose a feature.", "Press a number.", "1. Clock"])
        announcer.say("That key does nothing here.", group: .hint)
        announcer.say("It is noon.")
        speaker.cancel(group: .hint)
        #expect(output.lines.suffix(2) == ["That key does nothing here.", "It is noon."], "\(output.lines)")
        announcer.say("Goodbye.")
        #expect(output.lines.last == "It is noon.")
        announcer.silence()
        #expect(output.lines.last == "Goodbye.", "silenced, what waited is printed")
    }

    /// A line dropped before a word of it sounds (the hint after a menu, cancelled by a key) no longer holds the
    /// next line back, but does not put the lines before it on the screen: they are still to be heard.
    @Test func aLineDroppedUnheardPrintsNothingAheadOfTheEar() {
        let announcer = Announcer(output: output, speaker: speaker, language: "en")
        for choice in ["1. Clock", "2. Read text", "3. Quit"] { announcer.say(choice, group: .question) }
        announcer.say("Press a number.", group: .hint)
        speaker.cancel(group: .hint)
        #expect(output.lines == ["1. Clock"], "\(output.lines)")
        speaker.soundNext()
        speaker.soundNext()
        speaker.soundNext()
        #expect(output.lines == ["1. Clock", "2. Read text", "3. Quit", "Press a number."], "\(output.lines)")
    }

    /// With nobody hearing speech live (no sound card, speech kept in a file), lines are printed at once.
    @Test func unheardSpeechHoldsNothingBack() {
        let announcer = Announcer(output: output, speaker: speaker, language: "en", paced: false)
        for index in 1...3 { announcer.say("Line \(index).") }
        #expect(output.lines == ["Line 1.", "Line 2.", "Line 3."])
    }

    /// A feature's own speech is paced among the host's lines, and its callbacks still hear its words and end.
    @Test func aFeaturesSpeechIsPacedAndItsCallbacksCalled() {
        let announcer = Announcer(output: output, speaker: speaker, language: "en")
        let events = Collected<String>()
        announcer.say("Starting Read text.")
        for sentence in ["One.", "Two."] {
            _ = announcer.speak(
                Utterance(sentence, owner: 3), printing: sentence, with: speaker,
                callbacks: SpeechCallbacks(
                    onWord: { _, _ in events.append("word \(sentence)") },
                    onDone: { _, _ in events.append("done \(sentence)") }))
        }
        #expect(output.lines == ["Starting Read text."])
        speaker.soundNext()
        #expect(output.lines == ["Starting Read text.", "One."])
        speaker.soundNext()
        speaker.soundNext()
        #expect(output.lines == ["Starting Read text.", "One.", "Two."])
        #expect(events.values == ["word One.", "done One.", "word Two.", "done Two."])
    }

    /// In a data command (its rows apart, read-text's `--transcript`) a feature's speech is printed among the
    /// rows, and a status line of it ("Reading") where the host's own lines go, paced by the ear as they are.
    @Test func aFeaturesStatusLineGoesWithTheSpokenLinesNotTheData() {
        let data = RecordingOutput()
        let announcer = Announcer(output: output, data: data, speaker: speaker, language: "en")
        _ = announcer.speak(
            Utterance("Reading", language: "en"), printing: "Reading", status: true, with: speaker,
            callbacks: .init())
        _ = announcer.speak(
            Utterance("Item 3.20", language: "en"), printing: "Item\t3.20", with: speaker, callbacks: .init())
        #expect(data.lines == ["Item\t3.20"], "\(data.lines)")
        #expect(output.lines == ["Reading"], "\(output.lines)")
    }
}

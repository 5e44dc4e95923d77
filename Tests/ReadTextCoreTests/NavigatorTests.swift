import ReadTextCore
import Testing

/// A fake voice: records what is spoken and lets the test play the speech service's events.
final class FakeVoice: ReadingVoice {
    var spoken: [(id: UInt64, text: String, rate: Int)] = []
    var stopped: [UInt64] = []
    var cues: [ReadingCue] = []
    private var next: UInt64 = 1

    func speakItem(_ text: String, wordsPerMinute: Int) -> UInt64? {
        defer { next += 1 }
        spoken.append((next, text, wordsPerMinute))
        return next
    }

    func stopItem(_ id: UInt64) { stopped.append(id) }
    func play(_ cue: ReadingCue) { cues.append(cue) }
    var last: (id: UInt64, text: String, rate: Int) { spoken[spoken.count - 1] }
}

@Suite("read-text: navigation")
struct NavigatorTests {
    let voice = FakeVoice()
    let navigator: ReadingNavigator

    init() {
        navigator = ReadingNavigator(voice: voice, language: "en")
        navigator.load(
            [
                ReadingItem(text: "One two three.", column: 0), ReadingItem(text: "Four five.", column: 0),
                ReadingItem(text: "Six.", column: 1),
            ], complete: true)
        navigator.columns = 2
        navigator.start()
    }

    @Test func itemsAdvanceOnlyWhenFinishedAndTheEndPlaysTheEndCue() {
        #expect(voice.last.text == "One two three." && voice.last.rate == 175)
        navigator.wordStarted(1, characterOffset: 4)
        navigator.cancelled(1)
        #expect(voice.spoken.count == 1 && navigator.state == .paused, "cancelled by other speech: paused")
        navigator.resume()
        #expect(voice.last.text == "two three.")
        navigator.finished(voice.last.id)
        #expect(voice.last.text == "Four five.")
        navigator.finished(voice.last.id)
        navigator.finished(voice.last.id)
        #expect(voice.cues == [.end] && navigator.state == .ended)
    }

    @Test func pauseMidWordResumesAtThatWord() {
        navigator.wordStarted(1, characterOffset: 4)  // "two"
        navigator.pause()
        #expect(voice.stopped == [1] && navigator.state == .paused)
        navigator.resume()
        #expect(voice.last.text == "two three.")
        navigator.wordStarted(voice.last.id, characterOffset: 4)  // "three" within the remainder
        navigator.pause()
        navigator.resume()
        #expect(voice.last.text == "three.", "offsets add up across pauses")
    }

    @Test func backPausesAfterTheItemAndResumeMovesOn() {
        navigator.finished(1)
        navigator.previous()
        #expect(voice.last.text == "One two three.")
        navigator.finished(voice.last.id)
        #expect(navigator.state == .paused)
        navigator.resume()
        #expect(voice.last.text == "Four five.")
    }

    @Test func beforeTheFirstAndPastTheLastPlayTheEndCue() {
        navigator.previous()
        #expect(voice.cues == [.end] && voice.last.text == "One two three." && navigator.index == 0)
        navigator.next()
        navigator.next()
        let count = voice.spoken.count
        navigator.next()
        #expect(voice.cues == [.end, .end] && voice.spoken.count == count, "stays silent past the end")
    }

    @Test func aSpeedChangeRestartsAtTheCurrentWordAt260() {
        navigator.wordStarted(1, characterOffset: 8)
        navigator.toggleSpeed()
        #expect(voice.cues == [.faster])
        #expect(voice.last.text == "three." && voice.last.rate == 260)
        navigator.toggleSpeed()
        #expect(voice.cues == [.faster, .slower] && voice.last.rate == 175)
    }

    @Test func readAllStartsOverFromTheFirstItem() {
        navigator.finished(1)
        navigator.start()
        #expect(voice.stopped == [2] && voice.last.text == "One two three.")
    }

    @Test func whereAmICountsSentencesAndColumns() {
        navigator.finished(1)
        navigator.finished(2)
        #expect(navigator.position == ReadingPosition(item: 3, count: 3, complete: true, column: 2, columns: 2))
    }

    @Test func streamedItemsContinueAfterWaiting() {
        let streaming = ReadingNavigator(voice: voice, language: "en")
        streaming.load([], complete: false)
        streaming.append([ReadingItem(text: "First.", column: 0)])
        let first = voice.last.id
        streaming.finished(first)
        #expect(streaming.state == .waitingForMore)
        streaming.append([ReadingItem(text: "Second.", column: 0)])
        #expect(voice.last.text == "Second.")
        streaming.finishStreaming()
        streaming.finished(voice.last.id)
        #expect(streaming.state == .ended)
    }
}

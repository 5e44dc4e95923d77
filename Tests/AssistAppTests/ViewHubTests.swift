import AssistApp
import AssistCore
import Foundation
import Speech
import Testing
import ViewState

/// The low-vision view's state, without a browser: a line is shown when it starts to sound and never before,
/// a page that opens late is given what is on screen, a page's messages are taken only when understood and not
/// too fast, and the page's settings are only those it may change.
@Suite("the view's hub")
struct ViewHubTests {
    /// The messages a page is sent, collected as they come.
    final class Page: Sendable {
        let id: UInt64

        init(_ hub: ViewHub) {
            let box = Box()
            self.box = box
            id = hub.connect(box)
        }
        private let box: Box

        /// Collects what a page is sent, as a socket would, without Swift concurrency's threads (busy with
        /// other suites' waits).
        final class Box: ViewOutlet, @unchecked Sendable {
            func send(_ message: String) { add(message) }
            func send(picture: [UInt8]) {}
            func close() {}
            // because: `items` is guarded by `lock`
            private let lock = NSLock()
            private var items: [[String: Any]] = []
            func add(_ text: String) {
                guard let data = text.data(using: .utf8),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { return }
                lock.withLock { items.append(object) }
            }
            var all: [[String: Any]] { lock.withLock { items } }
        }

        /// The messages so far, once at least `count` came (up to two seconds).
        func messages(atLeast count: Int) -> [[String: Any]] {
            let deadline = Date(timeIntervalSinceNow: 2)
            while box.all.count < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            return box.all
        }
    }

    @Test func aLineIsShownWhenItStartsToSoundNotWhenItIsQueued() {
        let hub = ViewHub()
        let page = Page(hub)
        hub.queued(id: 7, text: "Reading aloud helps.")
        hub.queued(id: 8, text: "A hint replaced before it was heard.")
        hub.ended(id: 8, finished: false)
        #expect(page.messages(atLeast: 1).map { $0["type"] as? String } == ["state"])
        hub.word(id: 7, start: 8, length: 5)
        let messages = page.messages(atLeast: 3)
        #expect(messages.map { $0["type"] as? String } == ["state", "line", "word"])
        #expect(messages[1]["text"] as? String == "Reading aloud helps.")
        #expect(messages[2]["start"] as? Int == 8 && messages[2]["length"] as? Int == 5)
        hub.ended(id: 7, finished: true)
        #expect(page.messages(atLeast: 4).last?["type"] as? String == "end")
        // A page opened now is given the line heard, and not the one never heard.
        let late = Page(hub)
        let state = late.messages(atLeast: 1)[0]
        let lines = (state["lines"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
        #expect(lines == ["Reading aloud helps."])
    }

    /// What a feature shows besides its lines (read-text's page, find-object's target, collect-videos' filming)
    /// reaches open pages, is given to a page that opens late, and goes when the feature ends.
    @Test func aFeaturesPanelsReachEveryPageAndGoWithIt() {
        let hub = ViewHub()
        let page = Page(hub)
        let filming = #"{"recording":true,"seconds":12,"max":30,"square":true}"#
        hub.panel("recording", filming)
        hub.panel("recording", filming)  // the same again is not sent again
        let messages = page.messages(atLeast: 2)
        #expect(messages.count == 2)
        #expect(messages[1]["type"] as? String == "panel" && messages[1]["kind"] as? String == "recording")
        #expect((messages[1]["data"] as? [String: Any])?["seconds"] as? Int == 12)
        let late = Page(hub)
        let panels = late.messages(atLeast: 1)[0]["panels"] as? [String: Any]
        #expect((panels?["recording"] as? [String: Any])?["max"] as? Int == 30)
        hub.clearPanels()
        let cleared = page.messages(atLeast: 3)
        #expect(cleared.last?["kind"] as? String == "recording" && cleared.last?["data"] is NSNull)
    }

    @Test func aPageIsUnderstoodOnlyInWhatItMaySay() {
        #expect(ViewHub.input(from: #"{"type":"key","key":"enter"}"#) == .key("enter"))
        #expect(ViewHub.input(from: #"{"type":"choose","index":5}"#) == .choose(5))
        #expect(ViewHub.input(from: #"{"type":"line","text":"read text"}"#) == .line("read text"))
        #expect(ViewHub.input(from: #"{"type":"setting","key":"view.scheme","value":"yellow-on-black"}"#) != nil)
        // Anything else is ignored: another setting than the view's, a negative index, junk, a huge message.
        #expect(ViewHub.input(from: #"{"type":"setting","key":"plugins.sandbox","value":"false"}"#) == nil)
        #expect(ViewHub.input(from: #"{"type":"choose","index":-1}"#) == nil)
        #expect(ViewHub.input(from: "not json") == nil)
        #expect(ViewHub.input(from: #"{"type":"line","text":""# + String(repeating: "x", count: 9_000) + #""}"#) == nil)
        #expect(ViewSettings.value("500", for: "view.text-size") == nil)
        #expect(ViewSettings.value("96", for: "view.text-size") == .int(96))
        #expect(ViewSettings.value("purple", for: "view.scheme") == nil)
    }

    @Test func messagesTooFastAreDroppedPastABurst() {
        let hub = ViewHub()
        let page = Page(hub)
        let taken = Page.Box()
        hub.onInput = { _ in taken.add("{}") }
        for _ in 0..<1_000 { hub.received(#"{"type":"key","key":"f2"}"#, from: page.id) }
        let count = taken.all.count
        #expect(count >= Int(ViewHub.burst) && count < Int(ViewHub.burst) + 20, "\(count) taken")
    }

    /// An engine that sounds the first word, and ends, before `speak` even returns (a loaded machine's mixer).
    final class HastyEngine: SpeechEngine, @unchecked Sendable {
        func speak(_ utterance: Utterance, callbacks: SpeechCallbacks) -> UInt64? {
            callbacks.onWord?(9, SpeechWord(characterOffset: 0, byteOffset: 0, byteLength: 4))
            callbacks.onDone?(9, .finished)
            return 9
        }
        func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?) {}
        func stop(id: UInt64, owner: Int) -> Bool { false }
        func cancel(owner: Int) -> Int { 0 }
        func pause(owner: Int) -> Bool { false }
        func resume(owner: Int) {}
        func isPaused(owner: Int) -> Bool { false }
        func holdForListening() {}
        func endListeningHold() {}
        var isSpeaking: Bool { false }
        func detach(owner: Int) {}
        func shutdown() {}
        func stopAll() {}
        func configure(wordsPerMinute: Int?, volume: Double?) {}
        func configure(voice: String) {}
    }

    /// Whatever the engine's timing, the watcher hears an utterance queued first, then its words, then its end:
    /// so the page never loses a line's words because the first came before the line was known.
    @Test func aWordSoundedBeforeSpeakReturnsStillFollowsItsQueueing() {
        let watch = SpeechWatch()
        let order = OrderBox()
        watch.watch { sighting in order.add(sighting) }
        _ = WatchedSpeech(HastyEngine(), watch: watch).speak(Utterance("Call Dr. Smith."), callbacks: SpeechCallbacks())
        #expect(
            order.all == [
                .queued(id: 9, text: "Call Dr. Smith.", owner: 0, echo: false), .word(id: 9, start: 0, length: 4),
                .ended(id: 9, finished: true),
            ])
    }

    final class OrderBox: @unchecked Sendable {  // because: `items` is guarded by `lock`
        private let lock = NSLock()
        private var items: [SpeechSighting] = []
        func add(_ sighting: SpeechSighting) { lock.withLock { items.append(sighting) } }
        var all: [SpeechSighting] { lock.withLock { items } }
    }

    @Test func everyWordOfAnUtteranceIsToldWithItsLengthInCharacters() {
        let scalars = Array("Grüße, 你好 world".unicodeScalars)
        // "Grüße" is 5 characters and 7 bytes; "你好" 2 characters and 6 bytes.
        #expect(
            WatchedSpeech.scalarCount(of: SpeechWord(characterOffset: 0, byteOffset: 0, byteLength: 7), in: scalars)
                == 5)
        #expect(
            WatchedSpeech.scalarCount(of: SpeechWord(characterOffset: 7, byteOffset: 9, byteLength: 6), in: scalars)
                == 2)
    }
}

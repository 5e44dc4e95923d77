import Foundation
import HostTesting
import Logging
import Speech
import Testing

/// The Speech Dispatcher backend against a private server (its own socket and config; sound to ALSA's null
/// device, since these machines have no sound card).
@Suite("Speech through Speech Dispatcher", .serialized)
struct SpeechDispatcherTests {
    final class Events: @unchecked Sendable {  // because: guarded by `lock`
        let lock = NSLock()
        var words: [Int] = []
        var lengths: [Int] = []
        var done: [(UInt64, SpeechOutcome)] = []

        /// Callbacks that record each word's offset and length, and each end.
        var callbacks: SpeechCallbacks {
            SpeechCallbacks(
                onWord: { _, word in
                    self.lock.withLock {
                        self.words.append(word.characterOffset)
                        self.lengths.append(word.byteLength)
                    }
                },
                onDone: { id, outcome in self.lock.withLock { self.done.append((id, outcome)) } })
        }
    }

    /// `body` with the service connected to a private server of its own.
    func connected(_ body: (SpeechDispatcherService) throws -> Void) throws {
        let folder = try TemporaryDirectory("assist-speechd")
        let server = try SpeechDispatcherServer(folder: folder)
        setenv("SPEECHD_ADDRESS", server.address, 1)
        defer { unsetenv("SPEECHD_ADDRESS") }
        let speech = try #require(SpeechDispatcherService(logger: Logger(label: "test")))
        defer { speech.shutdown() }
        try body(speech)
        _ = server
    }

    @Test func utterancesFinishWithWordEventsAndStopCancels() throws {
        try connected { speech in
            let events = Events()
            let callbacks = events.callbacks
            let first = try #require(
                speech.speak(Utterance("Hello <there> & world", owner: 1), callbacks: callbacks))
            speech.drain(timeoutSeconds: 20)
            for _ in 0..<100 where events.lock.withLock({ events.done.isEmpty }) { usleep(20_000) }
            #expect(events.lock.withLock { events.done.map(\.0) } == [first])
            #expect(events.lock.withLock { events.done.first?.1 } == .finished)
            #expect(events.lock.withLock { events.words } == [0, 6, 14, 16], "a mark before each word")
            let long = try #require(
                speech.speak(
                    Utterance(String(repeating: "A long sentence to stop. ", count: 30), owner: 1),
                    callbacks: callbacks))
            #expect(!speech.stop(id: long, owner: 2), "only its owner may stop it")
            #expect(speech.stop(id: long, owner: 1))
            speech.drain(timeoutSeconds: 10)
            for _ in 0..<100 where !events.lock.withLock({ events.done.contains { $0.0 == long } }) {
                usleep(20_000)
            }
            #expect(events.lock.withLock { events.done.first { $0.0 == long }?.1 } == .cancelled)
        }
    }

    /// Every word's mark is reported, those after a full stop too (espeak-ng drops a mark that follows one), and
    /// the word marked is the word without its punctuation, as espeak-ng's own word events give it.
    @Test func everyWordIsMarkedThoseAfterAFullStopToo() throws {
        try connected { speech in
            let text = "Call Dr. Smith tomorrow morning. He is in... Are you? Yes."
            let scalars = Array(text.unicodeScalars)
            let events = Events()
            let spoken = try #require(speech.speak(Utterance(text, owner: 1), callbacks: events.callbacks))
            for _ in 0..<500 where events.lock.withLock({ events.done.isEmpty }) { usleep(20_000) }
            #expect(events.lock.withLock { events.done.map(\.0) } == [spoken])
            let (offsets, lengths) = events.lock.withLock { (events.words, events.lengths) }
            // ASCII: a byte a scalar.
            let words = zip(offsets, lengths).map { String(String.UnicodeScalarView(scalars[$0..<($0 + $1)])) }
            #expect(words == ["Call", "Dr", "Smith", "tomorrow", "morning", "He", "is", "in", "Are", "you", "Yes"])
        }
    }

    @Test func anUnreachableServerMeansNoBackend() {
        setenv("SPEECHD_ADDRESS", "unix_socket:/nonexistent/speechd.sock", 1)
        setenv("SPEECHD_CMD", "/bin/false", 1)
        defer {
            unsetenv("SPEECHD_ADDRESS")
            unsetenv("SPEECHD_CMD")
        }
        #expect(SpeechDispatcherService(logger: Logger(label: "test")) == nil)
    }
}

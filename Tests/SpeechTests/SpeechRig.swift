import Audio
import Foundation
import HostTesting
import Interaction
import Logging
import Speech

/// Real speech and cues through the real mixer into a WAV file, with every callback recorded.
final class SpeechRig: @unchecked Sendable {  // because: `recorded` is guarded by `lock`
    enum Event: Equatable {
        case word(UInt64, Int)
        case done(UInt64, SpeechOutcome)
    }

    let folder: TemporaryDirectory
    let url: URL
    let mixer: AudioMixer
    let speech: SpeechService
    let cues: CuePlayer
    private let lock = NSLock()
    private var recorded: [Event] = []

    init(wordsPerMinute: Int = 300) throws {
        folder = try TemporaryDirectory("assist-speech")
        url = folder.path("out.wav")
        mixer = AudioMixer(sink: try WavFileSink(url: url)) { _, failed in failed }
        cues = CuePlayer(mixer: mixer, settings: CuePlayer.Settings(volume: 1))
        guard let speech = SpeechService(mixer: mixer, logger: Logger(label: "test"), wordsPerMinute: wordsPerMinute)
        else { throw CocoaError(.featureUnsupported) }
        self.speech = speech
    }

    var callbacks: SpeechCallbacks {
        SpeechCallbacks(
            onWord: { [self] id, word in lock.withLock { recorded.append(.word(id, word.characterOffset)) } },
            onDone: { [self] id, outcome in lock.withLock { recorded.append(.done(id, outcome)) } })
    }

    var events: [Event] { lock.withLock { recorded } }

    /// Speaks `text` at `priority` for `owner`, recording callbacks.
    @discardableResult
    func say(_ text: String, priority: SpeechPriority = .message, owner: Int = 1, voice: String? = nil) -> UInt64? {
        speech.speak(Utterance(text, voice: voice, priority: priority, owner: owner), callbacks: callbacks)
    }

    /// Waits until `condition` holds for the events, at most `seconds`.
    func wait(seconds: Double = 20, until condition: ([Event]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if condition(events) { return true }
            usleep(5_000)
        }
        return condition(events)
    }

    /// Lets queued speech finish, stops the threads and returns what was written.
    func finish() throws -> SoundAnalysis {
        speech.drain(timeoutSeconds: 20)
        speech.shutdown()
        cues.stop()
        mixer.waitUntilIdle(timeoutSeconds: 2)
        mixer.shutdown()
        return try SoundAnalysis(url: url)
    }
}

import Audio
import Foundation
import HostTesting
import Testing

/// A sound card that disappears mid-cue: the mixer moves to the replacement sink and nothing hangs.
@Suite("A vanishing sound device")
struct SinkFailureTests {
    /// Accepts `limit` writes, then fails as an unplugged ALSA device does.
    final class VanishingSink: AudioSink, @unchecked Sendable {  // because: used only on the mixer thread
        private var writes = 0
        private let limit: Int
        init(limit: Int) { self.limit = limit }
        var name: String { "the vanishing device" }
        func write(_ samples: UnsafeBufferPointer<Int16>) throws {
            writes += 1
            if writes > limit { throw AudioError.deviceLost("vanishing", cause: "No such device") }
        }
        func idle() {}
    }

    final class Failures: @unchecked Sendable {  // because: guarded by `lock`
        let lock = NSLock()
        var messages: [String] = []
    }

    @Test func soundContinuesInTheFallbackFileAndTheFailureIsReportedOnce() throws {
        let folder = try TemporaryDirectory("assist-vanish")
        let fallback = try WavFileSink(url: folder.path("fallback.wav"))
        let failures = Failures()
        let mixer = AudioMixer(sink: VanishingSink(limit: 10)) { error, _ in
            failures.lock.withLock { failures.messages.append(error.message) }
            return fallback
        }
        let cues = CuePlayer(mixer: mixer, settings: CuePlayer.Settings(volume: 1))
        cues.guidance(.continuous, intensity: 1, pan: 0)
        Thread.sleep(forTimeInterval: 0.5)
        cues.stop()
        mixer.waitUntilIdle(timeoutSeconds: 2)
        mixer.shutdown()
        #expect(failures.messages == ["The sound device vanishing has gone away."])
        #expect(mixer.currentSink === fallback)
        let sound = try SoundAnalysis(url: folder.path("fallback.wav"))
        #expect(sound.file.durationSeconds > 0.3, "the rest of the cue went to the file")
    }
}

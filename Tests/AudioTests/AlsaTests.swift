import Audio
import Foundation
import HostTesting
import Testing

/// The real ALSA playback path, into ALSA's own `file` plugin (these machines have no sound card).
@Suite("ALSA output")
struct AlsaTests {
    @Test func cuesReachAlsaWithTheirPanAndPitch() throws {
        let folder = try TemporaryDirectory("assist-alsa")
        let raw = folder.path("played.raw")
        let sink = try AlsaSink(deviceName: "file:FILE=\(raw.path),FORMAT=raw")
        let mixer = AudioMixer(sink: sink) { _, failed in failed }
        let cues = CuePlayer(mixer: mixer, settings: CuePlayer.Settings(volume: 1))
        // Target above and to the right: the up cue (880 Hz), panned right.
        cues.guidance(.dotDash, intensity: 1, pan: 0.8)
        Thread.sleep(forTimeInterval: 0.5)
        cues.stop()
        mixer.waitUntilIdle(timeoutSeconds: 2)
        mixer.shutdown()
        let bytes = try Data(contentsOf: raw)
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let sound = SoundAnalysis(WavFile(format: .playback, samples: samples))
        #expect(sound.file.durationSeconds > 0.3, "ALSA received the sound")
        #expect(sound.rms(1) > 3 * sound.rms(0), "panned right")
        #expect(sound.strength(ofHz: 880, channel: 1, seconds: 0.04) > 0.1)
    }

    @Test func aMissingDeviceIsOneClearError() {
        do {
            _ = try AlsaSink(deviceName: "hw:97")
            Issue.record("hw:97 opened")
        } catch let error as AudioError {
            #expect(error.code == .noDevice)
            #expect(error.message.hasPrefix("The sound device hw:97 cannot be opened."))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

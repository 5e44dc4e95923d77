import Audio
import Foundation
import HostTesting
import Testing

/// Cues played through the real mixer into a WAV file, then measured.
@Suite("Cues on real audio", .serialized)
struct CuePlaybackTests {
    /// Plays `body`'s cues for `seconds` into a WAV file and returns its analysis.
    static func record(
        seconds: Double, settings: CuePlayer.Settings = CuePlayer.Settings(volume: 1), _ body: (CuePlayer) -> Void
    ) throws -> SoundAnalysis {
        let folder = try TemporaryDirectory("assist-cues")
        let url = folder.path("cues.wav")
        let mixer = AudioMixer(sink: try WavFileSink(url: url)) { _, failed in failed }
        let cues = CuePlayer(mixer: mixer, settings: settings)
        body(cues)
        Thread.sleep(forTimeInterval: seconds)
        cues.stop()
        mixer.waitUntilIdle(timeoutSeconds: 2)
        mixer.shutdown()
        return try SoundAnalysis(url: url)
    }

    @Test func leftDotRepeatsAtItsCycleWithEnergyOnTheLeftAt660Hz() throws {
        // Target at (0.2, 0.5): d = 0.3, I = 0.58, pan = (0.2 - 0.5) / 0.5 = -0.6.
        let sound = try Self.record(seconds: 1.6) { $0.guidance(.dot, intensity: 0.58, pan: -0.6) }
        let onsets = sound.onsets(channel: 0, threshold: 0.005)
        #expect(onsets.count >= 3, "three dots in 1.6 s")
        for (earlier, later) in zip(onsets, onsets.dropFirst()) {
            #expect(abs((later - earlier) - 0.4875) < 0.001, "cycle 0.4875 s ± 1 ms, got \(later - earlier)")
        }
        let left = sound.rms(0)
        let right = sound.rms(1)
        #expect(abs(left / right - 0.9511 / 0.3090) < 0.05, "equal-power pan of -0.6")
        let first = try #require(onsets.first)
        #expect(sound.strength(ofHz: 660, channel: 0, fromSeconds: first, seconds: 0.04) > 0.15)
        #expect(sound.strength(ofHz: 440, channel: 0, fromSeconds: first, seconds: 0.04) < 0.03)
    }

    @Test func centredCueIsAContinuousDyad() throws {
        let sound = try Self.record(seconds: 1.0) { $0.guidance(.continuous, intensity: 1, pan: 0) }
        #expect(sound.file.durationSeconds > 0.9)
        #expect(sound.longestInnerSilence(channel: 0) < 0.002, "no gaps between 0.25 s cycles")
        let middle = sound.file.durationSeconds / 2
        #expect(sound.strength(ofHz: 523, channel: 0, fromSeconds: middle - 0.1, seconds: 0.2) > 0.1)
        #expect(sound.strength(ofHz: 784, channel: 0, fromSeconds: middle - 0.1, seconds: 0.2) > 0.1)
        #expect(abs(sound.rms(0) - sound.rms(1)) < 0.01, "centred")
    }

    @Test func theLatestRequestWinsThePendingSlot() throws {
        let sound = try Self.record(seconds: 0.9) { cues in
            cues.guidance(.dot, intensity: 0.3, pan: 0)
            cues.guidance(.dash, intensity: 0.3, pan: 0)
            cues.guidance(.dashDot, intensity: 0.3, pan: 0)
        }
        // The dot's cycle at I = 0.3 is 0.733 s; then the down cue (440 Hz) starts; the dash never plays.
        #expect(sound.strength(ofHz: 660, channel: 0, fromSeconds: 0, seconds: 0.04) > 0.05)
        #expect(sound.strength(ofHz: 440, channel: 0, fromSeconds: 0.733, seconds: 0.1) > 0.05)
        #expect(sound.strength(ofHz: 660, channel: 0, fromSeconds: 0.733, seconds: 0.1) < 0.01)
        let onsets = sound.onsets(channel: 0, threshold: 0.005)
        #expect(onsets.count == 2 && abs(onsets[1] - 0.733) < 0.002, "onsets \(onsets)")
    }

    @Test func lowPitchHalvesAndTurningCuesOffSilences() throws {
        let low = try Self.record(seconds: 0.3, settings: CuePlayer.Settings(volume: 1, lowPitch: true)) {
            $0.guidance(.dot, intensity: 1, pan: 0)
        }
        #expect(low.strength(ofHz: 330, channel: 0, seconds: 0.04) > 0.1)
        #expect(low.strength(ofHz: 660, channel: 0, seconds: 0.04) < 0.03)
        let off = try Self.record(seconds: 0.3, settings: CuePlayer.Settings(enabled: false)) {
            $0.guidance(.dot, intensity: 1, pan: 0)
            $0.play(.success)
        }
        #expect(off.file.frameCount == 0)
    }

    @Test func cueVolumeScalesAndEarconsMixOverGuidance() throws {
        let loud = try Self.record(seconds: 0.3) { $0.play(.found) }
        let quiet = try Self.record(seconds: 0.3, settings: CuePlayer.Settings(volume: 0.25)) { $0.play(.found) }
        #expect(abs(quiet.rms(0) / loud.rms(0) - 0.25) < 0.02)
        #expect(loud.strength(ofHz: 523, channel: 0, seconds: 0.08) > 0.1, "found rises from 523 Hz")
        #expect(loud.strength(ofHz: 784, channel: 0, fromSeconds: 0.08, seconds: 0.08) > 0.1, "to 784 Hz")
    }
}

import Foundation

/// Plays one recorded clip at a time through the mixer (a survey take played back to the participant).
/// A new clip replaces the one playing. Its loudness is the clip's own times `gain`, not the cue volume;
/// it is lowered while speech sounds, like cues. Requests from any thread; rendering on the mixer thread.
// because: `samples`, `position` and `gain` are guarded by `lock`
package final class ClipPlayer: MixerSource, @unchecked Sendable {
    private let lock = NSLock()
    private weak var mixer: AudioMixer?
    /// Interleaved stereo at the playback rate, full scale ±1.
    private var samples: [Float] = []
    private var frame = 0
    private var gain: Float = 1

    package init(mixer: AudioMixer) {
        self.mixer = mixer
        mixer.add(self)
    }

    /// Starts `clip` from its beginning, replacing any clip playing. Any thread.
    package func play(_ clip: WavFile, gain: Double = 1) {
        let converted = AudioConverter.convert(clip.samples, from: clip.format, to: .playback)
        let floats = converted.map { Float($0) / 32_768 }
        lock.withLock {
            samples = floats
            frame = 0
            self.gain = Float(min(1, max(0, gain)))
        }
        mixer?.wake()
    }

    /// Stops the clip. Any thread.
    package func stop() {
        lock.withLock {
            samples = []
            frame = 0
        }
    }

    /// True while a clip plays. Any thread.
    package var isPlaying: Bool { lock.withLock { frame * 2 < samples.count } }

    package func render(
        into buffer: UnsafeMutableBufferPointer<Float>, frames: Int, at position: Int64, ducked: Bool
    ) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let available = samples.count / 2 - frame
        guard available > 0 else { return false }
        let count = min(frames, available)
        let scale = gain * (ducked ? 0.25 : 1)
        for index in 0..<(count * 2) { buffer[index] += samples[frame * 2 + index] * scale }
        frame += count
        return frame * 2 < samples.count
    }
}

import Foundation

/// Where the mixer's sound goes: the sound card, a WAV file, or nowhere. All sinks take
/// `AudioFormat.playback` frames and are used only on the mixer thread.
package protocol AudioSink: AnyObject, Sendable {
    /// Names the sink for messages ("the sound card default", "the file /tmp/x.wav").
    var name: String { get }
    /// Plays or stores interleaved frames; blocks while the device's buffer is full. Mixer thread.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws
    /// Nothing will play for a while: let what was written finish. Mixer thread.
    func idle()
    /// How long after a write returns its last frame is heard: the sound card's queue, or a pacer's lead. The
    /// echo canceller lines the played sound up with the microphone by it. Mixer thread.
    var latencySeconds: Double { get }
}

extension AudioSink {
    /// A sink that plays at once.
    package var latencySeconds: Double { 0 }
}

/// Discards sound at the pace it would have played, so timing (cue cycles, speech callbacks) stays real.
// because: used only on the mixer thread
package final class NullSink: AudioSink, @unchecked Sendable {
    private var pacer = RealTimePacer(format: .playback)
    package init() {}
    package var name: String { "nowhere (audio output is off)" }
    package func write(_ samples: UnsafeBufferPointer<Int16>) throws { pacer.wait(afterFrames: samples.count / 2) }
    package func idle() { pacer.reset() }
    package var latencySeconds: Double { pacer.queuedSeconds }
}

/// Writes exactly what would have been played to a WAV file, at the pace it would have played. Silence while
/// nothing plays at all is not written, so a long session does not fill the disk.
// because: used only on the mixer thread
package final class WavFileSink: AudioSink, @unchecked Sendable {
    private let writer: WavWriter
    private var pacer = RealTimePacer(format: .playback)

    /// Creates (or truncates) the file at `url`.
    package init(url: URL) throws {
        writer = try WavWriter(url: url, format: .playback)
    }

    /// The file written.
    package var url: URL { writer.url }
    package var name: String { "the file \(writer.url.path)" }

    package func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        try writer.write(samples)
        pacer.wait(afterFrames: samples.count / AudioFormat.playback.channels)
    }

    package func idle() {
        try? writer.flush()
        pacer.reset()
    }

    package var latencySeconds: Double { pacer.queuedSeconds }
}

/// Keeps a writer that never blocks (a file) from running ahead of the wall clock by more than `leadSeconds`,
/// the way a sound card's buffer would.
package struct RealTimePacer {
    package let format: AudioFormat
    package var leadSeconds = 0.02
    private var start: UInt64?
    private var frames = 0

    package init(format: AudioFormat) { self.format = format }

    /// Counts `count` more frames written, then sleeps until at most `leadSeconds` of them are unplayed.
    package mutating func wait(afterFrames count: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        let origin = start ?? now
        start = origin
        frames += count
        let dueSeconds = Double(frames) / Double(format.sampleRateHz) - leadSeconds
        let elapsedSeconds = Double(now - origin) / 1e9
        if dueSeconds > elapsedSeconds { usleep(useconds_t((dueSeconds - elapsedSeconds) * 1e6)) }
    }

    /// How much of what was written is not yet "played" now.
    package var queuedSeconds: Double {
        guard let start else { return 0 }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return max(0, Double(frames) / Double(format.sampleRateHz) - elapsed)
    }

    /// Forgets the clock; the next write starts a new stretch of sound.
    package mutating func reset() {
        start = nil
        frames = 0
    }
}

import Foundation

/// What the speakers played, exactly as the mixer handed it to the sink, with when each period is heard: the
/// echo canceller's reference (docs/voice.md, "Barge-in"). Filled on the mixer thread without allocating,
/// drained on the voice thread. Kept in mono at the playback rate; at most `capacitySeconds` wait (the voice thread may be busy for seconds rebuilding its search), and a
/// reader that falls further behind finds the oldest dropped (and is told, so that it starts afresh).
// because: every stored property is used under `lock`
package final class PlayedSound: @unchecked Sendable {
    /// One period as the mixer wrote it: where its samples start in `samples`, and when its first is heard
    /// (monotonic seconds, `ProcessInfo.systemUptime`).
    package struct Period: Sendable {
        package var offset: Int
        package var count: Int
        package var heardAt: Double
        /// The first period after the mixer was idle: the sound before it does not run on into it.
        package var startsStretch: Bool
    }

    /// What a drain gives: the periods and their mono samples; `overflowed` when some were dropped before it.
    package struct Drained: Sendable {
        package var samples: [Int16]
        package var periods: [Period]
        package var overflowed: Bool
    }

    package static let capacitySeconds = 30.0
    package let sampleRateHz: Int
    private let lock = NSLock()
    private var samples: [Int16]
    private var periods: [Period] = []
    private var overflowed = false
    private var lastSoundEnds = -1.0
    private let capacity: Int

    package init(sampleRateHz: Int = AudioFormat.playback.sampleRateHz) {
        self.sampleRateHz = sampleRateHz
        capacity = Int(Self.capacitySeconds * Double(sampleRateHz))
        samples = []
        samples.reserveCapacity(capacity)
        periods.reserveCapacity(capacity / 64)
    }

    /// Adds a period of interleaved `channels`-channel frames whose first frame is heard at `heardAt`;
    /// `startsStretch` when the mixer was idle before it. Mixer thread.
    package func add(_ interleaved: UnsafeBufferPointer<Int16>, channels: Int, heardAt: Double, startsStretch: Bool) {
        let frames = interleaved.count / max(1, channels)
        var loud = false
        lock.lock()
        if samples.count + frames > capacity || periods.count == periods.capacity {
            samples.removeAll(keepingCapacity: true)
            periods.removeAll(keepingCapacity: true)
            overflowed = true
        }
        periods.append(Period(offset: samples.count, count: frames, heardAt: heardAt, startsStretch: startsStretch))
        for frame in 0..<frames {
            var sum = 0
            for channel in 0..<channels { sum += Int(interleaved[frame * channels + channel]) }
            let mono = Int16(sum / channels)
            loud = loud || abs(Int(mono)) > 64
            samples.append(mono)
        }
        if loud { lastSoundEnds = heardAt + Double(frames) / Double(sampleRateHz) }
        lock.unlock()
    }

    /// Takes what was added since the last drain. Voice thread.
    package func drain() -> Drained {
        lock.lock()
        defer { lock.unlock() }
        let taken = Drained(samples: samples, periods: periods, overflowed: overflowed)
        samples.removeAll(keepingCapacity: true)
        periods.removeAll(keepingCapacity: true)
        overflowed = false
        return taken
    }

    /// Whether anything audible is heard from the speakers at `time` or was within `marginSeconds` before it
    /// (monotonic seconds). Any thread.
    package func sounding(at time: Double, marginSeconds: Double = 0.3) -> Bool {
        lock.withLock { lastSoundEnds + marginSeconds >= time }
    }
}

import Foundation

/// Something the mixer plays: speech or cues. Rendered on the mixer thread.
package protocol MixerSource: AnyObject, Sendable {
    /// Adds this source's sound for frames `position ..< position + frames` into `buffer` (interleaved stereo,
    /// full scale ±1). `ducked` is true while a source that ducks others is sounding. Returns false when the
    /// source is idle, with nothing playing or due. Mixer thread.
    func render(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int, at position: Int64, ducked: Bool) -> Bool
}

/// Mixes speech and cues into one stereo stream on a thread of its own and writes it to a sink in periods of
/// `periodFrames` (5.8 ms), so a new cue or word reaches the sink within one period. The thread sleeps while
/// every source is idle. When the sink fails (a sound card unplugged), `onSinkFailure` supplies another.
// because: `sources`, `wakeCount`, `running` and `sink` are guarded by `condition`; rendering is on the mixer thread
package final class AudioMixer: @unchecked Sendable {
    /// Frames per period.
    package static let periodFrames = 128
    private let condition = NSCondition()
    private var sources: [(source: MixerSource, ducksOthers: Bool)] = []
    private var sink: AudioSink
    private var wakeCount = 0
    private var running = true
    private var framesWritten: Int64 = 0
    private var idle = true
    private let finished = DispatchSemaphore(value: 0)
    /// Where each period written goes too, for the echo canceller.
    private var played: PlayedSound?
    /// Until when (monotonic seconds) nothing is rendered: a voice command may be being said over the sound.
    private var heldUntil = 0.0
    private let onSinkFailure: @Sendable (AudioError, AudioSink) -> AudioSink

    /// Where the sound goes now (its sink's name).
    package var sinkName: String {
        condition.lock()
        defer { condition.unlock() }
        return sink.name
    }

    /// Starts the mixer thread writing to `sink`. `onSinkFailure` gets the error and the failed sink and returns
    /// the sink to use from then on; it runs on the mixer thread.
    package init(sink: AudioSink, onSinkFailure: @escaping @Sendable (AudioError, AudioSink) -> AudioSink) {
        self.sink = sink
        self.onSinkFailure = onSinkFailure
        let thread = Thread { [self] in run() }
        thread.name = "assist-mixer"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Adds a source; one that `ducksOthers` (speech) is rendered first and lowers the others while it sounds.
    package func add(_ source: MixerSource, ducksOthers: Bool = false) {
        condition.lock()
        if ducksOthers { sources.insert((source, true), at: 0) } else { sources.append((source, false)) }
        condition.unlock()
    }

    /// Hands each period written from now on, and when it is heard, to `played` (nil: to nothing). Any thread.
    package func monitor(_ played: PlayedSound?) {
        condition.withLock { self.played = played }
    }

    /// Renders nothing, so every source stops where it is, for at most `seconds` or until `release`; the
    /// sink lets what it holds play out (its latency). Voice calls this the moment it hears what may be a
    /// command over Assist's own sound. Any thread.
    package func hold(seconds: Double) {
        condition.lock()
        heldUntil = ProcessInfo.processInfo.systemUptime + seconds
        wakeCount += 1
        condition.signal()
        condition.unlock()
    }

    /// Ends a `hold`: the sources go on from where they stopped. Any thread.
    package func release() {
        condition.lock()
        heldUntil = 0
        wakeCount += 1
        condition.signal()
        condition.unlock()
    }

    /// Whether the mixer is held now. Any thread.
    package var isHeld: Bool {
        condition.withLock { heldUntil > ProcessInfo.processInfo.systemUptime }
    }

    /// Tells the mixer a source has something new to play. Any thread.
    package func wake() {
        condition.lock()
        wakeCount += 1
        condition.signal()
        condition.unlock()
    }

    /// What the mixer writes to now.
    package var currentSink: AudioSink {
        condition.lock()
        defer { condition.unlock() }
        return sink
    }

    /// Frames handed to the sink since the start. Any thread.
    package var position: Int64 {
        condition.lock()
        defer { condition.unlock() }
        return framesWritten
    }

    /// Waits until every source is idle and the sink has been told so, at most `timeoutSeconds`. Any thread.
    package func waitUntilIdle(timeoutSeconds: Double) {
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        condition.lock()
        while !(idle && wakeCount == lastSeenWake) && condition.wait(until: deadline) {}
        condition.unlock()
    }

    private var lastSeenWake = 0

    /// Ends the mixer thread after the current period. Any thread; waits at most a second.
    package func shutdown() {
        condition.lock()
        guard running else {
            condition.unlock()
            return
        }
        running = false
        condition.signal()
        condition.unlock()
        _ = finished.wait(timeout: .now() + 1)
    }

    private func run() {
        let frames = Self.periodFrames
        var mix = [Float](repeating: 0, count: frames * 2)
        var pcm = [Int16](repeating: 0, count: frames * 2)
        var seen = 0
        // After a hold the sink starts afresh, as after idleness.
        var afterHold = false
        while true {
            condition.lock()
            while idle && running && wakeCount == seen { condition.wait() }
            seen = wakeCount
            lastSeenWake = seen
            let wasIdle = idle
            let current = sources
            let position = framesWritten
            let output = sink
            let live = running
            let monitor = played
            let holdEnds = heldUntil
            condition.unlock()
            guard live else { break }
            if holdEnds > ProcessInfo.processInfo.systemUptime {
                if !wasIdle { output.idle() }
                condition.lock()
                idle = true
                condition.broadcast()
                if heldUntil > ProcessInfo.processInfo.systemUptime {
                    _ = condition.wait(
                        until: Date(timeIntervalSinceNow: heldUntil - ProcessInfo.processInfo.systemUptime))
                }
                // Woken by the end of the hold or a release: render again if anything is due.
                idle = false
                condition.unlock()
                afterHold = true
                continue
            }

            for index in mix.indices { mix[index] = 0 }
            var sounding = false
            var ducking = false
            mix.withUnsafeMutableBufferPointer { buffer in
                for entry in current {
                    let active = entry.source.render(into: buffer, frames: frames, at: position, ducked: ducking)
                    sounding = sounding || active
                    if active && entry.ducksOthers { ducking = true }
                }
            }
            guard sounding else {
                if !wasIdle { output.idle() }
                condition.lock()
                idle = true
                condition.broadcast()
                condition.unlock()
                continue
            }
            if wasIdle { condition.withLock { idle = false } }
            for index in mix.indices { pcm[index] = Int16(max(-1, min(1, mix[index])) * 32_767) }
            do {
                try pcm.withUnsafeBufferPointer { try output.write($0) }
            } catch {
                let replacement = onSinkFailure(
                    error as? AudioError ?? .deviceLost(output.name, cause: "\(error)"), output)
                condition.lock()
                sink = replacement
                condition.unlock()
                try? pcm.withUnsafeBufferPointer { try replacement.write($0) }
            }
            if let monitor {
                // The period's first frame is heard once what the sink still holds, this period included, has
                // played.
                let heardAt =
                    ProcessInfo.processInfo.systemUptime + output.latencySeconds
                    - Double(frames) / Double(AudioFormat.playback.sampleRateHz)
                pcm.withUnsafeBufferPointer {
                    monitor.add(
                        $0, channels: AudioFormat.playback.channels, heardAt: heardAt,
                        startsStretch: wasIdle || afterHold)
                }
            }
            afterHold = false
            condition.lock()
            framesWritten += Int64(frames)
            condition.unlock()
        }
        condition.withLock { sink }.idle()
        finished.signal()
    }
}

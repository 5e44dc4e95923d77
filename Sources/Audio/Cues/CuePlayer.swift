import Foundation

/// Plays guidance patterns and earcons through the mixer. Guidance keeps one pattern playing, repeating its
/// cycle, plus one pending slot that the latest request overwrites and that starts when the current cycle
/// ends. Earcons play over guidance. Cue volume is separate from speech, and cues drop 12 dB while speech
/// sounds. Requests come from any thread; rendering is on the mixer thread.
// because: every mutable member is guarded by `lock`
package final class CuePlayer: MixerSource, @unchecked Sendable {
    private struct Request {
        var cycle: CueCycle
        var pan: Double
    }

    private let lock = NSLock()
    private weak var mixer: AudioMixer?
    private let rateHz: Double
    private var current: Request?
    private var pending: Request?
    private var nextCycleFrame: Int64?
    private var stopRequested = false
    private var earconQueue: [(Earcon, Double, Double)] = []
    private var scheduled: [ScheduledTone] = []
    /// `CuePattern.tone`: sounding (or fading out) instead of a repeating cycle.
    private var steady: SteadyTone?
    private var appliedScale = 1.0
    private var settings: Settings

    /// What the user chose for cues.
    package struct Settings: Equatable, Sendable {
        /// Cue loudness, 0…1, separate from speech.
        package var volume: Double = 0.8
        /// Off silences every cue.
        package var enabled = true
        /// Halves every frequency, for users who hear low tones better.
        package var lowPitch = false

        package init(volume: Double = 0.8, enabled: Bool = true, lowPitch: Bool = false) {
            self.volume = volume
            self.enabled = enabled
            self.lowPitch = lowPitch
        }
    }

    /// Adds a cue player to `mixer`.
    package init(mixer: AudioMixer, settings: Settings = Settings()) {
        self.mixer = mixer
        self.rateHz = Double(AudioFormat.playback.sampleRateHz)
        self.settings = settings
        mixer.add(self)
    }

    /// Changes volume, on/off and low pitch. Any thread.
    package func update(_ settings: Settings) {
        lock.withLock { self.settings = settings }
    }

    /// The current settings. Any thread.
    package var currentSettings: Settings { lock.withLock { settings } }

    /// Plays guidance `pattern` at `intensity` (0.1…1), panned (−1 left … 1 right), at the pattern's own pitch
    /// unless `pitchHz` is given. Starts at once when nothing plays, else after the current cycle. Any thread.
    package func guidance(_ pattern: CuePattern, intensity: Double, pan: Double, pitchHz: Double? = nil) {
        let cycle = CueCycle.guidance(pattern, intensity: intensity, pitchHz: pitchHz)
        lock.withLock {
            guard settings.enabled else { return }
            if pattern == .tone {
                // A steady tone follows at once: no cycle to wait for. It replaces a repeating pattern.
                let hz = pitchHz ?? CueParameters.frequencies(.tone)[0]
                let level = min(1, max(0.1, intensity))
                if current != nil { stopRequested = true }
                current = nil
                pending = nil
                if steady == nil {
                    steady = SteadyTone(hz: hz, level: level, pan: pan)
                } else {
                    steady?.retarget(hz: hz, level: level, pan: pan)
                }
            } else if current == nil {
                steady?.end()
                current = Request(cycle: cycle, pan: pan)
            } else {
                pending = Request(cycle: cycle, pan: pan)
            }
        }
        mixer?.wake()
    }

    /// Plays `earcon` once at `gain` (0…1) and `pan`. Any thread.
    package func play(_ earcon: Earcon, gain: Double = 1, pan: Double = 0) {
        lock.withLock {
            guard settings.enabled else { return }
            earconQueue.append((earcon, min(1, max(0, gain)), pan))
        }
        mixer?.wake()
    }

    /// Ends guidance with a short fade; earcons already playing finish. Any thread.
    package func stop() {
        lock.withLock {
            stopRequested = true
            current = nil
            pending = nil
            steady?.end()
        }
        mixer?.wake()
    }

    /// True while guidance is playing or pending. Any thread.
    package var isGuiding: Bool { lock.withLock { current != nil || (steady.map { !$0.ending } ?? false) } }

    package func render(
        into buffer: UnsafeMutableBufferPointer<Float>, frames: Int, at position: Int64, ducked: Bool
    ) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopRequested { cutGuidance(at: position) }
        for (earcon, gain, pan) in earconQueue {
            schedule(earcon.tones, at: position, gain: gain, pan: pan, guidance: false)
        }
        earconQueue.removeAll()
        advanceGuidance(through: position + Int64(frames))
        let target = settings.enabled ? settings.volume * (ducked ? CueParameters.duckGain : 1) : 0
        let scale = (appliedScale, target)
        appliedScale = target
        for tone in scheduled { tone.render(into: buffer, at: position, count: frames, rateHz: rateHz, scale: scale) }
        scheduled.removeAll { $0.endFrame <= position + Int64(frames) }
        steady?.render(into: buffer, count: frames, rateHz: rateHz, scale: scale, halved: settings.lowPitch)
        if steady?.isDone == true { steady = nil }
        return !scheduled.isEmpty || current != nil || steady != nil
    }

    /// Starts every guidance cycle due before `end`.
    private func advanceGuidance(through end: Int64) {
        while let request = current {
            let start = nextCycleFrame ?? end - Int64(AudioMixer.periodFrames)
            guard start < end else { return }
            var previous: Request? = nil
            if nextCycleFrame != nil, let next = pending {
                previous = request
                current = next
                pending = nil
            } else if nextCycleFrame != nil {
                previous = request
            }
            guard let playing = current else { return }
            let joins = previous?.cycle.pattern == .continuous && playing.cycle.pattern == .continuous
            if previous?.cycle.pattern == .continuous && !joins, let previous {
                scheduleRelease(of: previous, at: start)
            }
            schedule(
                playing.cycle.tones, at: start, gain: 1, pan: playing.pan, guidance: true,
                joining: joins ? previous : nil)
            nextCycleFrame = start + Int64(max(1, (playing.cycle.lengthSeconds * rateHz).rounded()))
        }
    }

    private func schedule(
        _ tones: [CueTone], at start: Int64, gain: Double, pan: Double, guidance: Bool, joining: Request? = nil
    ) {
        let (left, right) = CueParameters.panGains(pan)
        let sustained = guidance && current?.cycle.pattern == .continuous
        for tone in tones {
            var envelope = ScheduledTone.Envelope.ramps(attack: true, release: !sustained)
            if let joining {
                let (fromLeft, fromRight) = CueParameters.panGains(joining.pan)
                envelope = .glide(fromLeft: fromLeft, fromRight: fromRight)
            }
            scheduled.append(
                ScheduledTone(
                    startFrame: start + Int64((tone.startSeconds * rateHz).rounded()),
                    frames: max(1, Int((tone.durationSeconds * rateHz).rounded())),
                    left: left * tone.gain * gain, right: right * tone.gain * gain,
                    frequenciesHz: tone.frequenciesHz.map { settings.lowPitch ? $0 / 2 : $0 },
                    envelope: envelope, isGuidance: guidance))
        }
    }

    private func scheduleRelease(of request: Request, at start: Int64) {
        for tone in request.cycle.tones {
            let (left, right) = CueParameters.panGains(request.pan)
            scheduled.append(
                ScheduledTone(
                    startFrame: start, frames: max(1, Int(CueParameters.rampSeconds * rateHz)),
                    left: left * tone.gain, right: right * tone.gain,
                    frequenciesHz: tone.frequenciesHz.map { settings.lowPitch ? $0 / 2 : $0 },
                    envelope: .fadeOut, isGuidance: true))
        }
    }

    /// Replaces sounding guidance tones with short fades from `position` and drops those not yet started.
    private func cutGuidance(at position: Int64) {
        stopRequested = false
        nextCycleFrame = nil
        let ramp = max(1, Int(CueParameters.rampSeconds * rateHz))
        scheduled = scheduled.compactMap { tone in
            guard tone.isGuidance else { return tone }
            guard tone.startFrame < position, tone.endFrame > position else { return nil }
            var fade = tone
            fade.startFrame = position
            fade.frames = min(ramp, Int(tone.endFrame - position))
            fade.envelope = .fadeOut
            return fade
        }
    }
}

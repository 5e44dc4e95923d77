import Foundation

/// The steady tone of `CuePattern.tone`: one sine whose pitch, loudness and side glide to each new request
/// (exponentially: 99 % of the way, pitch on a log scale, in `CueParameters.glideSeconds`), its phase carried across requests so a change
/// never clicks. Pure value; the cue player renders it on the mixer thread.
package struct SteadyTone: Sendable {
    package private(set) var hz: Double
    package private(set) var level = 0.0
    private var left = 0.0
    private var right = 0.0
    private var phase = 0.0
    private var target: (hz: Double, level: Double, left: Double, right: Double)
    /// Fading out to silence; silent and done once `level` reaches nothing.
    private(set) var ending = false

    /// Starts at `hz` from silence (the attack is the same glide).
    package init(hz: Double, level: Double, pan: Double) {
        self.hz = hz
        let (left, right) = CueParameters.panGains(pan)
        target = (hz, level, left, right)
        self.left = left
        self.right = right
    }

    /// Glides toward a new pitch, loudness and side.
    package mutating func retarget(hz: Double, level: Double, pan: Double) {
        let (left, right) = CueParameters.panGains(pan)
        target = (hz, level, left, right)
        ending = false
    }

    /// Fades out over the same glide.
    package mutating func end() {
        target.level = 0
        ending = true
    }

    /// Silent after `end`: nothing more to render.
    package var isDone: Bool { ending && level < 1e-4 }

    /// Adds `count` frames into `buffer` (interleaved stereo) from its start, scaled by `scale` (cue volume and
    /// ducking, interpolated across the period). `halved`: the user's low-pitch setting.
    package mutating func render(
        into buffer: UnsafeMutableBufferPointer<Float>, count: Int, rateHz: Double, scale: (Double, Double),
        halved: Bool
    ) {
        // Per frame, the remaining distance shrinks by this factor: 1 % is left after glideSeconds.
        let keep = exp(log(0.01) / (CueParameters.glideSeconds * rateHz))
        let step = 1 - keep
        for frame in 0..<count {
            // Pitch glides on a log scale, so a rise and a fall of an octave take the same time.
            hz *= exp(log(target.hz / hz) * step)
            level += (target.level - level) * step
            left += (target.left - left) * step
            right += (target.right - right) * step
            phase += 2 * Double.pi * (halved ? hz / 2 : hz) / rateHz
            if phase > 2 * Double.pi { phase -= 2 * Double.pi }
            let scaleNow = scale.0 + (scale.1 - scale.0) * Double(frame) / Double(count)
            let wave = sin(phase) * level * scaleNow
            buffer[2 * frame] += Float(wave * left)
            buffer[2 * frame + 1] += Float(wave * right)
        }
    }
}

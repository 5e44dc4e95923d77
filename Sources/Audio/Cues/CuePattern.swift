import Foundation

/// The guidance vocabulary: haptic patterns from Revilio, rendered as tones.
package enum CuePattern: String, CaseIterable, Sendable {
    case dot, dash, dotDash = "dot-dash", dashDot = "dash-dot", continuous
    /// A steady tone at a given pitch that glides to each new request's pitch (light's meter): no cycle, no
    /// wait for one to end (`CueParameters.glideSeconds`).
    case tone
}

/// One tone inside a cue: when it starts in the cycle, how long it lasts, how loud, and at what pitches.
package struct CueTone: Equatable, Sendable {
    package var startSeconds: Double
    package var durationSeconds: Double
    package var gain: Double
    package var frequenciesHz: [Double]

    package init(startSeconds: Double, durationSeconds: Double, gain: Double, frequenciesHz: [Double]) {
        self.startSeconds = startSeconds
        self.durationSeconds = durationSeconds
        self.gain = gain
        self.frequenciesHz = frequenciesHz
    }
}

/// One repetition of a guidance pattern: its tones and the time until the next repetition starts.
package struct CueCycle: Equatable, Sendable {
    package var tones: [CueTone]
    package var lengthSeconds: Double
    package var pattern: CuePattern

    /// The cycle for `pattern` at intensity `intensity` (0.1…1), with the pattern's pitch unless `pitchHz` is
    /// given. Timings and gains follow find-object.md §4; s = 1 + 7·I.
    package static func guidance(_ pattern: CuePattern, intensity: Double, pitchHz: Double? = nil) -> CueCycle {
        let level = min(1, max(0.1, intensity))
        let s = 1 + 7 * level
        let dashSeconds = max(CueParameters.dashMinimumSeconds, 0.5 / s)
        let pitch = pitchHz.map { [$0] }
        func dot(at start: Double, gain: Double) -> CueTone {
            CueTone(
                startSeconds: start, durationSeconds: CueParameters.dotSeconds, gain: gain,
                frequenciesHz: pitch ?? CueParameters.frequencies(pattern))
        }
        func dash(at start: Double) -> CueTone {
            CueTone(
                startSeconds: start, durationSeconds: dashSeconds, gain: 0.85 * level,
                frequenciesHz: pitch ?? CueParameters.frequencies(pattern))
        }
        switch pattern {
        case .dot:
            return CueCycle(
                tones: [dot(at: 0, gain: min(1, max(0.2, level)))],
                lengthSeconds: 0.12 + 0.75 * (8 - min(8, s)) / 6, pattern: pattern)
        case .dash:
            return CueCycle(tones: [dash(at: 0)], lengthSeconds: 1.35 / s, pattern: pattern)
        case .dotDash:
            return CueCycle(
                tones: [dot(at: 0, gain: 0.7), dash(at: 0.87 / s)], lengthSeconds: 0.12 + 3.6 / s, pattern: pattern)
        case .dashDot:
            return CueCycle(
                tones: [dash(at: 0), dot(at: 1.025 / s, gain: 0.7)], lengthSeconds: 0.12 + 3.6 / s, pattern: pattern)
        case .continuous, .tone:
            let seconds = CueParameters.continuousSeconds
            return CueCycle(
                tones: [
                    CueTone(
                        startSeconds: 0, durationSeconds: seconds, gain: 1,
                        frequenciesHz: pitch ?? CueParameters.frequencies(.continuous))
                ],
                lengthSeconds: seconds, pattern: pattern)
        }
    }
}

/// A one-shot sound for an event: a button press, success, an error, the camera steady, the end of a text, a
/// target found or lost, the start of listening, a speed change up or down.
package enum Earcon: String, CaseIterable, Sendable {
    case tap, success, error, stable, end, found, lost, listen, rise, fall

    /// The tones, in seconds from the start.
    package var tones: [CueTone] {
        func tone(_ start: Double, _ length: Double, _ hz: Double...) -> CueTone {
            CueTone(startSeconds: start, durationSeconds: length, gain: 1, frequenciesHz: hz)
        }
        switch self {
        case .tap: return [tone(0, 0.03, 1_200)]
        case .success: return [tone(0, 0.07, 660), tone(0.08, 0.12, 990)]
        case .error: return [tone(0, 0.12, 330), tone(0.16, 0.18, 247)]
        // read-text.md: the stable cue is a tick; the end cue a 0.25 s continuous tone at gain 1.
        case .stable: return [tone(0, 0.03, 1_047)]
        case .end: return [tone(0, 0.25, 523, 784)]
        // find-object.md: found plays 523 then 784 Hz, 80 ms each; lost the reverse.
        case .found: return [tone(0, 0.08, 523), tone(0.08, 0.08, 784)]
        case .lost: return [tone(0, 0.08, 784), tone(0.08, 0.08, 523)]
        case .listen: return [tone(0, 0.06, 880)]
        // read-text.md: a rising dot-dash for fast, a falling dash-dot for normal speed.
        case .rise: return [tone(0, 0.04, 660), tone(0.08, 0.10, 880)]
        case .fall: return [tone(0, 0.10, 880), tone(0.14, 0.04, 660)]
        }
    }
}

/// The numbers behind the cues, with their origin.
package enum CueParameters {
    /// A dot lasts 40 ms (find-object.md §4).
    static let dotSeconds = 0.04
    /// A dash lasts at least 100 ms (find-object.md §4).
    static let dashMinimumSeconds = 0.10
    /// The centred cue repeats every 250 ms (find-object.md §4).
    static let continuousSeconds = 0.25
    /// Raised-cosine ramps at each tone's ends, so no tone clicks (find-object.md §4).
    static let rampSeconds = 0.005
    /// A steady tone reaches a new pitch, loudness and side within this time (light.md: frame to tone ≤ 50 ms,
    /// of which a mixer period is 2.7 ms). Gliding rather than jumping keeps it free of clicks.
    package static let glideSeconds = 0.012
    /// Cues drop 12 dB under speech (find-object.md §4).
    static let duckGain = 0.251

    /// The pitch of each pattern: 660 Hz horizontal, 880 Hz up, 440 Hz down, a 523 + 784 Hz dyad centred.
    package static func frequencies(_ pattern: CuePattern) -> [Double] {
        switch pattern {
        case .dot, .dash: return [660]
        case .dotDash: return [880]
        case .dashDot: return [440]
        case .continuous: return [523, 784]
        case .tone: return [440]
        }
    }

    /// Equal-power pan: p = clamp(pan, −1, 1), L = cos((p+1)π/4), R = sin((p+1)π/4).
    package static func panGains(_ pan: Double) -> (left: Double, right: Double) {
        let p = min(1, max(-1, pan.isFinite ? pan : 0))
        return (cos((p + 1) * Double.pi / 4), sin((p + 1) * Double.pi / 4))
    }
}

import Foundation

/// A tone placed on the mixer's timeline (absolute frames), with its stereo gains and envelope. Pure value;
/// `render` adds it into a stereo buffer.
struct ScheduledTone: Sendable {
    enum Envelope: Sendable {
        /// Raised-cosine ramps at the start and/or the end.
        case ramps(attack: Bool, release: Bool)
        /// Continues a sustained tone from the previous cycle, gliding from its gains over one ramp.
        case glide(fromLeft: Double, fromRight: Double)
        /// Fades a cut tone out over one ramp.
        case fadeOut
    }

    var startFrame: Int64
    var frames: Int
    var left: Double
    var right: Double
    var frequenciesHz: [Double]
    var envelope: Envelope
    /// Part of guidance (cleared by `stop`), as opposed to an earcon.
    var isGuidance: Bool

    var endFrame: Int64 { startFrame + Int64(frames) }

    /// Adds this tone's samples that fall in `position ..< position + count` into `buffer`, scaled by `scale`
    /// (cue volume times ducking, interpolated from `scale.0` to `scale.1` across the period).
    func render(
        into buffer: UnsafeMutableBufferPointer<Float>, at position: Int64, count: Int, rateHz: Double,
        scale: (Double, Double)
    ) {
        let first = max(position, startFrame)
        let last = min(position + Int64(count), endFrame)
        guard first < last else { return }
        let ramp = max(1, Int(CueParameters.rampSeconds * rateHz))
        let voices = Double(frequenciesHz.count)
        for frame in first..<last {
            let offset = Int(frame - startFrame)
            var (gainLeft, gainRight) = (left, right)
            switch envelope {
            case .ramps(let attack, let release):
                var level = 1.0
                if attack && offset < ramp { level = Self.rise(offset, ramp) }
                let remaining = frames - offset
                if release && remaining <= ramp { level = min(level, Self.rise(remaining - 1, ramp)) }
                gainLeft *= level
                gainRight *= level
            case .glide(let fromLeft, let fromRight):
                if offset < ramp {
                    let mix = Double(offset) / Double(ramp)
                    gainLeft = fromLeft + (left - fromLeft) * mix
                    gainRight = fromRight + (right - fromRight) * mix
                }
            case .fadeOut:
                let level = Self.rise(frames - 1 - offset, ramp)
                gainLeft *= level
                gainRight *= level
            }
            let seconds = Double(frame) / rateHz
            var wave = 0.0
            for hz in frequenciesHz { wave += sin(2 * Double.pi * hz * seconds) }
            wave /= voices
            let at = Int(frame - position)
            let scaleNow = scale.0 + (scale.1 - scale.0) * Double(at) / Double(count)
            buffer[2 * at] += Float(wave * gainLeft * scaleNow)
            buffer[2 * at + 1] += Float(wave * gainRight * scaleNow)
        }
    }

    /// The raised-cosine ramp's level `step` frames into a ramp of `length` frames.
    private static func rise(_ step: Int, _ length: Int) -> Double {
        0.5 - 0.5 * cos(Double.pi * Double(max(0, min(step, length))) / Double(length))
    }
}

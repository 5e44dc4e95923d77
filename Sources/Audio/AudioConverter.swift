import Foundation

/// Converts 16-bit interleaved PCM between formats: channel mix-down or duplication, then band-limited
/// resampling with a Blackman-windowed sinc (so 44.1 kHz to 16 kHz does not alias). Pure functions.
package enum AudioConverter {
    /// Zero crossings of the sinc kept on each side of a sample; higher is sharper and slower.
    static let halfTaps = 16

    /// `samples` in `source` format, converted to `target`.
    package static func convert(_ samples: [Int16], from source: AudioFormat, to target: AudioFormat) -> [Int16] {
        let mono = remix(samples, from: source.channels, to: target.channels)
        guard source.sampleRateHz != target.sampleRateHz else { return mono }
        let channels = target.channels
        let frames = mono.count / channels
        var planes: [[Float]] = (0..<channels).map { channel in
            (0..<frames).map { Float(mono[$0 * channels + channel]) }
        }
        planes = planes.map { resample($0, fromHz: source.sampleRateHz, toHz: target.sampleRateHz) }
        let outFrames = planes.first?.count ?? 0
        var out = [Int16](repeating: 0, count: outFrames * channels)
        for frame in 0..<outFrames {
            for channel in 0..<channels {
                out[frame * channels + channel] = Int16(max(-32_768, min(32_767, planes[channel][frame].rounded())))
            }
        }
        return out
    }

    /// Averages channels down to `to` (1), duplicates mono up, or keeps the first `to` channels.
    static func remix(_ samples: [Int16], from: Int, to: Int) -> [Int16] {
        guard from != to else { return samples }
        let frames = samples.count / from
        var out = [Int16](repeating: 0, count: frames * to)
        for frame in 0..<frames {
            let base = frame * from
            if to == 1 {
                var sum = 0
                for channel in 0..<from { sum += Int(samples[base + channel]) }
                out[frame] = Int16(sum / from)
            } else {
                for channel in 0..<to { out[frame * to + channel] = samples[base + min(channel, from - 1)] }
            }
        }
        return out
    }

    /// One channel resampled from `fromHz` to `toHz`.
    static func resample(_ input: [Float], fromHz: Int, toHz: Int) -> [Float] {
        let step = Double(fromHz) / Double(toHz)
        let cutoff = min(1.0, Double(toHz) / Double(fromHz))
        let reach = Double(halfTaps) / cutoff
        let outCount = Int((Double(input.count) / step).rounded(.down))
        var output = [Float](repeating: 0, count: outCount)
        for index in 0..<outCount {
            let time = Double(index) * step
            let first = max(0, Int((time - reach).rounded(.up)))
            let last = min(input.count - 1, Int((time + reach).rounded(.down)))
            guard first <= last else { continue }
            var sum = 0.0
            for k in first...last {
                let distance = time - Double(k)
                sum += Double(input[k]) * kernel(distance * cutoff) * window(distance / reach) * cutoff
            }
            output[index] = Float(sum)
        }
        return output
    }

    private static func kernel(_ x: Double) -> Double {
        x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    /// Blackman window over -1…1.
    private static func window(_ x: Double) -> Double {
        let t = (x + 1) / 2
        return 0.42 - 0.5 * cos(2 * Double.pi * t) + 0.08 * cos(4 * Double.pi * t)
    }
}

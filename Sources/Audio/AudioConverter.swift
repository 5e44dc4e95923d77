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
        let plan = Resampling(fromHz: fromHz, toHz: toHz)
        return plan.outputs(0..<plan.outputCount(input.count), from: input[...], firstFrame: 0, frames: input.count)
    }

    /// One rate to another, computed a block of outputs at a time from the input frames they reach (so a file of
    /// any length is converted in blocks, each output the same as when the whole file is converted at once).
    package struct Resampling: Sendable {
        let step: Double
        let cutoff: Double
        let reach: Double

        package init(fromHz: Int, toHz: Int) {
            step = Double(fromHz) / Double(toHz)
            cutoff = min(1.0, Double(toHz) / Double(fromHz))
            reach = Double(AudioConverter.halfTaps) / cutoff
        }

        /// How many outputs `frames` input frames make.
        package func outputCount(_ frames: Int) -> Int { Int((Double(frames) / step).rounded(.down)) }

        /// The input frames outputs `range` reach, within a file of `frames` frames.
        package func inputs(for range: Range<Int>, frames: Int) -> Range<Int> {
            guard !range.isEmpty else { return 0..<0 }
            let first = max(0, Int((Double(range.lowerBound) * step - reach).rounded(.up)))
            let last = min(frames - 1, Int((Double(range.upperBound - 1) * step + reach).rounded(.down)))
            return first..<max(first, last + 1)
        }

        /// Outputs `range`, from `input`, which holds the input frames from `firstFrame` on (at least those
        /// `inputs(for:)` names) of a file of `frames` frames.
        package func outputs(_ range: Range<Int>, from input: ArraySlice<Float>, firstFrame: Int, frames: Int)
            -> [Float]
        {
            var output = [Float](repeating: 0, count: range.count)
            let base = input.startIndex - firstFrame
            for index in range {
                let time = Double(index) * step
                let first = max(0, Int((time - reach).rounded(.up)))
                let last = min(frames - 1, Int((time + reach).rounded(.down)))
                guard first <= last else { continue }
                var sum = 0.0
                for k in first...last {
                    let distance = time - Double(k)
                    sum +=
                        Double(input[base + k]) * AudioConverter.kernel(distance * cutoff)
                        * AudioConverter.window(distance / reach) * cutoff
                }
                output[index - range.lowerBound] = Float(sum)
            }
            return output
        }
    }

    fileprivate static func kernel(_ x: Double) -> Double {
        x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
    }

    /// Blackman window over -1…1.
    fileprivate static func window(_ x: Double) -> Double {
        let t = (x + 1) / 2
        return 0.42 - 0.5 * cos(2 * Double.pi * t) + 0.08 * cos(4 * Double.pi * t)
    }
}

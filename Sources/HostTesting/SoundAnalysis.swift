import Audio
import Foundation

/// Measurements on real audio that tests assert on: loudness per channel, the strength of a frequency, and
/// where sounds start. Works on one channel of a `WavFile`.
package struct SoundAnalysis {
    package let file: WavFile

    package init(_ file: WavFile) {
        self.file = file
    }

    /// Reads `url`.
    package init(url: URL) throws {
        file = try WavFile.read(url)
    }

    /// The samples of `channel` as -1…1, from `fromSeconds` for `seconds` (to the end when nil).
    package func channel(_ channel: Int, fromSeconds: Double = 0, seconds: Double? = nil) -> [Double] {
        let channels = file.format.channels
        let first = min(file.frameCount, file.format.frames(seconds: fromSeconds))
        let last = seconds.map { min(file.frameCount, first + file.format.frames(seconds: $0)) } ?? file.frameCount
        return (first..<last).map { Double(file.samples[$0 * channels + channel]) / 32_768 }
    }

    /// The median pitch of the voiced stretches of `channel`, in Hz (autocorrelation of 40 ms frames, from 70
    /// to 400 Hz); nil when nothing sounds voiced.
    package func medianPitchHz(channel: Int) -> Double? {
        let values = self.channel(channel)
        let rate = Double(file.format.sampleRateHz)
        let frame = Int(rate * 0.04)
        let shortest = Int(rate / 400)
        let longest = Int(rate / 70)
        var pitches: [Double] = []
        var start = 0
        while start + frame + longest < values.count {
            let window = values[start..<(start + frame)]
            let energy = window.reduce(0) { $0 + $1 * $1 }
            if energy / Double(frame) > 1e-4 {
                var best = 0.0
                var bestLag = 0
                for lag in shortest...longest {
                    var sum = 0.0
                    for index in start..<(start + frame) { sum += values[index] * values[index + lag] }
                    if sum > best {
                        best = sum
                        bestLag = lag
                    }
                }
                // Voiced: the best lag repeats most of the frame's energy.
                if bestLag > 0, best > 0.5 * energy { pitches.append(rate / Double(bestLag)) }
            }
            start += frame
        }
        guard !pitches.isEmpty else { return nil }
        return pitches.sorted()[pitches.count / 2]
    }

    /// Root mean square of `channel` (over the stretch, or the whole file).
    package func rms(_ channel: Int, fromSeconds: Double = 0, seconds: Double? = nil) -> Double {
        let values = self.channel(channel, fromSeconds: fromSeconds, seconds: seconds)
        guard !values.isEmpty else { return 0 }
        return (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }

    /// Amplitude of `frequencyHz` in `channel` (Goertzel), about 0.5 for a full-scale sine filling the stretch.
    package func strength(ofHz frequencyHz: Double, channel: Int, fromSeconds: Double = 0, seconds: Double? = nil)
        -> Double
    {
        let values = self.channel(channel, fromSeconds: fromSeconds, seconds: seconds)
        guard !values.isEmpty else { return 0 }
        let coefficient = 2 * cos(2 * Double.pi * frequencyHz / Double(file.format.sampleRateHz))
        var (previous, beforePrevious) = (0.0, 0.0)
        for value in values {
            let current = value + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return power.squareRoot() / Double(values.count)
    }

    /// Times (seconds) where `channel` rises above `threshold` after at least `gapSeconds` below it.
    package func onsets(channel: Int, threshold: Double = 0.01, gapSeconds: Double = 0.02) -> [Double] {
        let values = self.channel(channel)
        let rate = Double(file.format.sampleRateHz)
        let gap = Int(gapSeconds * rate)
        var result: [Double] = []
        var quiet = gap
        for (index, value) in values.enumerated() {
            if abs(value) > threshold {
                if quiet >= gap { result.append(Double(index) / rate) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return result
    }

    /// The longest stretch (seconds) where `channel` stays below `threshold` between its first and last sound.
    package func longestInnerSilence(channel: Int, threshold: Double = 0.001) -> Double {
        let values = self.channel(channel)
        guard let first = values.firstIndex(where: { abs($0) > threshold }),
            let last = values.lastIndex(where: { abs($0) > threshold })
        else { return 0 }
        var longest = 0
        var run = 0
        for value in values[first...last] {
            run = abs(value) > threshold ? 0 : run + 1
            longest = max(longest, run)
        }
        return Double(longest) / Double(file.format.sampleRateHz)
    }

    /// Seconds from the first sound on `channel` to the last (above `threshold`), or 0 in silence.
    package func soundingSeconds(channel: Int, threshold: Double = 0.001) -> Double {
        let values = self.channel(channel)
        guard let first = values.firstIndex(where: { abs($0) > threshold }),
            let last = values.lastIndex(where: { abs($0) > threshold })
        else { return 0 }
        return Double(last - first) / Double(file.format.sampleRateHz)
    }
}

import Foundation

/// Finds how long after the speakers play a sound it reaches the microphone, from the two sounds' loudness over
/// time (10 ms blocks): the lag at which the microphone's loudness envelope best follows the played one.
/// Envelopes are log energies with their mean taken off, compared by normalised cross-correlation over the
/// last `windowBlocks`. Pure; the echo canceller calls it every half second while Assist's sound plays.
package struct DelayEstimator: Sendable {
    /// What one estimate found: the lag in blocks (negative: the microphone hears it before it is played,
    /// which only a misaligned reference can give) and how alike the envelopes are there (0–1).
    package struct Estimate: Equatable, Sendable {
        package var lagBlocks: Int
        package var strength: Double
    }

    /// The shortest and longest lag searched, in 10 ms blocks: half a second early to a second late.
    package var lags = -50...100
    /// How much of the past the envelopes are compared over: 4 s.
    package var windowBlocks = 400
    /// The least strength an estimate is believed at.
    package var believedAt = 0.35

    package init() {}

    /// The log energy of a 10 ms block, floored at a quiet room's so that digital silence is not −∞.
    package static func level(_ energy: Double) -> Double { log10(max(energy, 160 * 25.0)) }

    /// The lag at which `mic` best follows `played` (block levels on one time line, the last block of each
    /// the newest), or nil when the played sound was silent for most of the window or nothing follows it
    /// closely enough.
    package func estimate(mic: [Double], played: [Double]) -> Estimate? {
        let count = min(mic.count, played.count)
        let maxLag = lags.upperBound
        let minLag = lags.lowerBound
        let span = min(windowBlocks, count - maxLag + min(0, minLag))
        guard span >= 100 else { return nil }
        let end = count
        // The played blocks compared: [end - span - lag, end - lag) against the microphone's [end - span, end).
        let micWindow = Array(mic[(end - span)..<end])
        let quiet = Self.level(0)
        let micMean = micWindow.reduce(0, +) / Double(span)
        let micCentred = micWindow.map { $0 - micMean }
        let micNorm = sqrt(micCentred.reduce(0) { $0 + $1 * $1 })
        guard micNorm > 0 else { return nil }
        var best: Estimate?
        for lag in lags {
            let start = end - span - lag
            guard start >= 0, start + span <= played.count else { continue }
            let window = played[start..<(start + span)]
            // Assist must have been sounding for at least a fifth of it.
            let active = window.lazy.filter { $0 > quiet + 0.5 }.count
            guard active * 5 >= span else { continue }
            let mean = window.reduce(0, +) / Double(span)
            var dot = 0.0
            var norm = 0.0
            for (index, value) in window.enumerated() {
                let centred = value - mean
                dot += centred * micCentred[index]
                norm += centred * centred
            }
            guard norm > 0 else { continue }
            let strength = dot / (sqrt(norm) * micNorm)
            if strength > (best?.strength ?? -1) { best = Estimate(lagBlocks: lag, strength: strength) }
        }
        guard let best, best.strength >= believedAt else { return nil }
        return best
    }
}

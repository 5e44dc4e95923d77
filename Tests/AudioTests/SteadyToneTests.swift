import Audio
import Foundation
import Testing

/// The steady tone behind light's meter (CuePattern.tone), rendered frame by frame: it follows a new pitch
/// within the glide time and never clicks on the way.
@Suite("A steady tone that glides")
struct SteadyToneTests {
    static let rate = 48_000.0

    /// Renders `frames` frames of `tone` in mixer periods; returns the left channel.
    static func render(_ tone: inout SteadyTone, frames: Int, halved: Bool = false) -> [Float] {
        var left: [Float] = []
        var done = 0
        while done < frames {
            let count = min(128, frames - done)
            var buffer = [Float](repeating: 0, count: 2 * count)
            buffer.withUnsafeMutableBufferPointer {
                tone.render(into: $0, count: count, rateHz: rate, scale: (1, 1), halved: halved)
            }
            left += stride(from: 0, to: buffer.count, by: 2).map { buffer[$0] }
            done += count
        }
        return left
    }

    /// Frequency from the zero crossings of `samples`.
    static func hz(_ samples: ArraySlice<Float>) -> Double {
        let crossings = zip(samples, samples.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        return Double(crossings) * rate / Double(samples.count)
    }

    @Test func aNewPitchIsReachedWithinTheGlideAndNoSampleJumps() {
        var tone = SteadyTone(hz: 300, level: 1, pan: 0)
        let before = Self.render(&tone, frames: 4_800)
        tone.retarget(hz: 1_200, level: 1, pan: 0)
        let glide = Self.render(&tone, frames: Int(CueParameters.glideSeconds * Self.rate))
        // 99 % of the way on a log scale: two octaves up, 1.4 % short of the target at the glide's end.
        #expect(abs(log(tone.hz / 1_200)) <= 0.01 * log(4.0) + 1e-9, "after the glide: \(tone.hz)")
        let after = Self.render(&tone, frames: 9_600)
        #expect(abs(Self.hz(after[...]) - 1_200) < 15, "\(Self.hz(after[...])) Hz")
        #expect(abs(Self.hz(before[2_400...]) - 300) < 15)
        // A click is a jump larger than the steepest slope of the highest pitch: 2π·1200/48000·(√2/2 peak).
        let all = before + glide + after
        let steepest = 2 * Double.pi * 1_200 / Self.rate * 0.7072
        let jumps = zip(all, all.dropFirst()).map { abs(Double($1 - $0)) }
        #expect((jumps.max() ?? 0) <= steepest + 1e-3, "largest step \(jumps.max() ?? 0)")
    }

    @Test func itFadesInAndOutWithoutAClickAndLowPitchHalvesIt() {
        var tone = SteadyTone(hz: 800, level: 0.5, pan: 0)
        let start = Self.render(&tone, frames: 4_800, halved: true)
        #expect(abs(Double(start[0])) < 0.01, "starts from silence")
        #expect(abs(Self.hz(start[1_200...]) - 400) < 15, "halved: \(Self.hz(start[1_200...]))")
        tone.end()
        _ = Self.render(&tone, frames: Int(3 * CueParameters.glideSeconds * Self.rate))
        #expect(tone.isDone)
    }
}

import Audio
import Foundation
import Testing

@Suite("Guidance cue timing (find-object.md §4)")
struct CueCycleTests {
    /// The spec's table: distance d from centre, intensity I, and the cycle of dot, dash and the two-part cues.
    @Test(arguments: [
        (0.5, 0.30, 0.733, 0.435, 1.281),
        (0.4, 0.44, 0.610, 0.331, 1.002),
        (0.3, 0.58, 0.488, 0.267, 0.831),
        (0.2, 0.72, 0.365, 0.224, 0.716),
        (0.1, 0.86, 0.243, 0.192, 0.633),
    ])
    func cycleLengthsMatchTheTable(distance: Double, intensity: Double, dot: Double, dash: Double, twoPart: Double) {
        let level = min(1, max(0.1, 0.3 + 0.7 * (1 - min(1, distance / 0.5))))
        #expect(abs(level - intensity) < 0.001)
        #expect(abs(CueCycle.guidance(.dot, intensity: level).lengthSeconds - dot) < 0.001)
        #expect(abs(CueCycle.guidance(.dash, intensity: level).lengthSeconds - dash) < 0.001)
        #expect(abs(CueCycle.guidance(.dotDash, intensity: level).lengthSeconds - twoPart) < 0.001)
        #expect(abs(CueCycle.guidance(.dashDot, intensity: level).lengthSeconds - twoPart) < 0.001)
    }

    @Test func tonesHaveTheSpecifiedLengthsGainsAndPitches() throws {
        let s = 1 + 7 * 0.58
        let dot = try #require(CueCycle.guidance(.dot, intensity: 0.58).tones.first)
        #expect(dot.durationSeconds == 0.04 && abs(dot.gain - 0.58) < 1e-9 && dot.frequenciesHz == [660])
        #expect(CueCycle.guidance(.dot, intensity: 0.1).tones.first?.gain == 0.2, "a dot is never quieter than 0.2")
        let dash = try #require(CueCycle.guidance(.dash, intensity: 0.58).tones.first)
        #expect(abs(dash.durationSeconds - max(0.1, 0.5 / s)) < 1e-9 && abs(dash.gain - 0.85 * 0.58) < 1e-9)
        let up = CueCycle.guidance(.dotDash, intensity: 0.58).tones
        #expect(up.map(\.startSeconds) == [0, 0.87 / s] && up.first?.gain == 0.7 && up.first?.frequenciesHz == [880])
        let down = CueCycle.guidance(.dashDot, intensity: 0.58).tones
        #expect(
            down.map(\.startSeconds) == [0, 1.025 / s] && down.last?.gain == 0.7 && down.last?.frequenciesHz == [440])
        let centred = CueCycle.guidance(.continuous, intensity: 0.3)
        #expect(centred.lengthSeconds == 0.25 && centred.tones.first?.frequenciesHz == [523, 784])
        #expect(centred.tones.first?.gain == 1 && centred.tones.first?.durationSeconds == 0.25)
    }

    @Test(arguments: [
        (-1.0, 1.0, 0.0), (0.0, 0.7071, 0.7071), (1.0, 0.0, 1.0), (-0.6, 0.9511, 0.3090), (-5.0, 1.0, 0.0),
    ])
    func panIsEqualPower(pan: Double, left: Double, right: Double) {
        let gains = CueParameters.panGains(pan)
        #expect(abs(gains.left - left) < 0.001 && abs(gains.right - right) < 0.001)
        #expect(abs(gains.left * gains.left + gains.right * gains.right - 1) < 1e-9)
    }
}

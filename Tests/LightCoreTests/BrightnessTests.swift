import Foundation
import Testing

@testable import LightCore

/// The meter's measure on pictures made here: uniform greys, a lamp in a dim room, a white wall.
@Suite("Brightness")
struct BrightnessTests {
    /// A `width` × `height` picture of `grey`, with `patch` (x, y, side, value) painted on it.
    static func picture(
        grey: UInt8, width: Int = 320, height: Int = 240, patch: (x: Int, y: Int, side: Int, value: UInt8)? = nil,
        padding: Int = 0
    ) -> Brightness {
        let stride = width + padding
        var pixels = [UInt8](repeating: grey, count: stride * height)
        if let patch {
            for y in patch.y..<min(height, patch.y + patch.side) {
                for x in patch.x..<min(width, patch.x + patch.side) { pixels[y * stride + x] = patch.value }
            }
        }
        return Brightness(grey: pixels, width: width, height: height, stride: stride)
    }

    @Test func thePitchRisesWithEveryOneOfTwelveLevelsFrom150To1500Hz() {
        let greys = (0..<12).map { UInt8(($0 * 255) / 11) }
        let pitches = greys.map { Self.picture(grey: $0).pitchHz }
        #expect(zip(pitches, pitches.dropFirst()).allSatisfy { $0 < $1 }, "\(pitches)")
        #expect(abs(pitches[0] - 150) < 0.01 && abs(pitches[11] - 1_500) < 0.01)
        // A log scale: each step of grey is the same musical interval (a tenth of a decade per 25.5).
        for (grey, pitch) in zip(greys, pitches) {
            #expect(abs(log10(pitch / 150) - Double(grey) / 255) < 1e-9)
        }
    }

    @Test func levelsInWordsFromDarkToVeryBright() {
        let named = [
            (5, "dark"), (24, "dark"), (25, "dim"), (60, "dim"), (120, "normal"), (200, "bright"), (240, "very-bright"),
        ]
        for (grey, word) in named {
            #expect(Self.picture(grey: UInt8(grey)).level.rawValue == word, "grey \(grey)")
        }
        #expect(Self.picture(grey: 128).percent == 50)
    }

    @Test func onlyTheMiddleCounts() {
        // A bright frame around a black middle is dark where the camera points.
        let width = 320
        let height = 240
        var pixels = [UInt8](repeating: 230, count: width * height)
        for y in 90..<150 { for x in 120..<200 { pixels[y * width + x] = 10 } }
        let reading = Brightness(grey: pixels, width: width, height: height, stride: width)
        #expect(reading.level == .dark)
    }

    @Test func aLampInADimRoomIsALightOnItsSide() {
        #expect(Self.picture(grey: 60, patch: (10, 40, 60, 255)).lightSource == .left)
        #expect(Self.picture(grey: 60, patch: (135, 90, 50, 255)).lightSource == .middle)
        #expect(Self.picture(grey: 60, patch: (250, 100, 60, 254), padding: 16).lightSource == .right)
    }

    @Test func noLampInAWhiteWallADarkRoomOrAGreyPatch() {
        #expect(Self.picture(grey: 255).lightSource == nil, "white all over is exposure, not a lamp")
        #expect(Self.picture(grey: 3).lightSource == nil)
        #expect(Self.picture(grey: 60, patch: (10, 40, 60, 200)).lightSource == nil, "a pale patch is no light")
        #expect(Self.picture(grey: 230, patch: (10, 40, 60, 255)).lightSource == nil, "a bright room around it")
    }

    @Test func tinyAndOddSizedPicturesAreMeasured() {
        #expect(Self.picture(grey: 100, width: 1, height: 1).centre == 100)
        #expect(Self.picture(grey: 100, width: 3, height: 7, padding: 5).centre == 100)
    }

    @Test func aChangeIsSaidOnceItHoldsForASecondAndNeverTwice() {
        var watch = LevelWatch()
        #expect(watch.settle(.dark, at: 0) == nil, "the first level is the start's")
        #expect(watch.settle(.bright, at: 1) == nil)
        #expect(watch.settle(.bright, at: 1.5) == nil)
        #expect(watch.settle(.dark, at: 1.6) == nil, "back before a second: nothing")
        #expect(watch.settle(.bright, at: 2) == nil)
        #expect(watch.settle(.bright, at: 3) == .bright)
        #expect(watch.settle(.bright, at: 9) == nil, "said once")
    }
}

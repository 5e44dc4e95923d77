import Foundation
import ObjectDetection
import Testing

@testable import FindObjectCore

/// The pure parts of teaching a person's own things (issue 39): names, the stored prototypes, where a search
/// looks, which region wins, and the threshold's bounds. The embedder itself runs in the CLI tests.
@Suite("Your own things")
struct ThingTests {
    @Test func namesMatchWithoutMyOrTheAndRefuseWhatCannotBeSaid() {
        #expect(Thing.key(for: "My  Keys") == "keys")
        #expect(Thing.key(for: "the blue mug.") == "blue mug")
        #expect(Thing.key(for: "my") == "my", "a name that is only 'my' stays a key, and is refused as a name")
        #expect(Thing.problem(with: "my") == "thing-name-filler")
        #expect(Thing.problem(with: "The") == "thing-name-filler")
        #expect(Thing.problem(with: "my thing") == "thing-name-filler")
        // Issue 73: names heard the same are one name: spaces, full-width letters, invisible characters, case.
        for alike in ["Red  cup", "Ｒｅｄ cup", "red\u{00a0}cup", "RED\u{200b} CUP", "my red cup"] {
            #expect(Thing.key(for: alike) == "red cup", "\(alike)")
        }
        #expect(Thing.key(for: "Straße") == Thing.key(for: "STRASSE"))
        #expect(Thing.problem(with: "  ") == "thing-name-empty")
        #expect(Thing.problem(with: "!!") == "thing-name-empty")
        #expect(Thing.problem(with: String(repeating: "k", count: 41)) == "thing-name-too-long")
        #expect(Thing.problem(with: "ke\u{1b}ys") == "thing-name-control")
        #expect(Thing.problem(with: "ключи") == nil)
    }

    @Test func aPrototypeComesBackExactlyAndADamagedOneNotAtAll() {
        var vector = (0..<ObjectEmbedder.dimension).map { Float(($0 % 7) + 1) }
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        vector = vector.map { $0 / norm }
        #expect(ThingStore.decode(ThingStore.encode(vector)) == vector)
        #expect(ThingStore.decode("AAAA") == nil, "too short")
        #expect(ThingStore.decode("not base64 at all") == nil)
        #expect(ThingStore.decode(ThingStore.encode(vector.map { $0 * 2 })) == nil, "not of length 1")
        #expect(ThingStore.decode(ThingStore.encode([Float.nan] + vector.dropFirst())) == nil)
    }

    @Test func windowsCoverThePictureAtEachSizeAndShape() {
        let aspect = 4.0 / 3
        let windows = ThingSearch.windows(aspect: aspect)
        #expect(
            windows.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x + $0.width <= 1.0001 && $0.y + $0.height <= 1.0001 })
        // Square, twice as tall as wide and twice as wide as tall, in the picture's pixels.
        let shape = { (window: Region) in
            "\(window.height) \(((window.width * aspect / window.height) * 100).rounded() / 100)"
        }
        let shapes = Set(windows.map(shape))
        #expect(shapes == ["0.6 1.0", "0.4 1.0", "0.27 1.0", "0.5 0.5", "0.33 0.5", "0.4 2.0", "0.27 2.0"])
        // Every point of the picture is inside a window of each size and shape.
        for kind in shapes {
            let some = windows.filter { shape($0) == kind }
            for x in stride(from: 0.0, through: 1, by: 0.05) {
                for y in stride(from: 0.0, through: 1, by: 0.05) {
                    #expect(some.contains { $0.contains(x, y) }, "\(kind) at \(x), \(y)")
                }
            }
        }
    }

    @Test func theSmallestRegionAsAlikeAsTheBestWins() {
        let thing = Thing(key: "k", words: "k", threshold: 0.6, prototypes: [[1, 0]], source: "video")
        let large = Region(x: 0.1, y: 0.1, width: 0.6, height: 0.6)
        let small = Region(x: 0.3, y: 0.3, width: 0.2, height: 0.2)
        let elsewhere = Region(x: 0.8, y: 0.8, width: 0.1, height: 0.1)
        let found = ThingSearch.best(
            thing: thing, regions: [large, small, elsewhere], embeddings: [[0.9, 0.1], [0.88, 0.1], [0.95, 0.1]])
        #expect(found?.region == elsewhere, "the most alike, alone inside itself")
        let inside = ThingSearch.best(thing: thing, regions: [large, small], embeddings: [[0.9, 0.1], [0.88, 0.1]])
        #expect(inside?.region == small)
        let far = ThingSearch.best(thing: thing, regions: [large, small], embeddings: [[0.9, 0.1], [0.8, 0.1]])
        #expect(far?.region == large, "0.1 less alike is not the same thing")
        #expect(ThingSearch.best(thing: thing, regions: [large], embeddings: [[0.5, 0.5]]) == nil)
    }

    @Test func theThingIsWhatMovedNearTheMiddleElseTheMiddle() {
        #expect(Teacher.region(moving: nil) == Teacher.centre)
        #expect(Teacher.region(moving: Region(x: 0, y: 0, width: 0.1, height: 0.1)) == Teacher.centre, "a corner")
        #expect(Teacher.region(moving: Region(x: 0, y: 0, width: 1, height: 0.9)) == Teacher.centre, "everything")
        let moved = Teacher.region(moving: Region(x: 0.4, y: 0.4, width: 0.2, height: 0.2))
        #expect(abs(moved.width - 0.248) < 1e-9 && abs(moved.centreX - 0.5) < 1e-9)
    }

    @Test func theThresholdStaysWithinItsBounds() {
        let a: [Float] = [1, 0, 0]
        let b: [Float] = [0.99, 0.141, 0]
        let c: [Float] = [0.98, 0, 0.199]
        let background: [Float] = [0, 1, 0]
        let calibrated = Teacher.threshold(views: [a, b, c], background: [background])
        #expect(calibrated.threshold == 0.65, "a background unlike the thing leaves the floor: \(calibrated)")
        let alike = Teacher.threshold(views: [a, b, c], background: [a])
        #expect(alike.threshold == 0.9, "a background like the thing sets the ceiling: \(alike)")
    }
}

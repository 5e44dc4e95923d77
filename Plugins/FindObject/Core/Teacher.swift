import Foundation
import ObjectDetection

/// Teaching a thing from views of it (docs/find-object.md, "Your own things"): each view is measured
/// (sharpness, brightness, contrast, what moved since the last one), the thing is told from its background by
/// what moved (a hand turning it) or else by where a person holds it (the middle), and that part is embedded
/// with four background corners. `finish` keeps the sharpest views that differ from each other as prototypes
/// and sets the similarity a region must reach halfway between how alike the views are and how alike the
/// background is. Used by one thread at a time.
final class Teacher {
    enum Seen: Equatable {
        /// Nothing to learn in this view: flat (a covered lens, a blank wall) or dark.
        case nothing
        /// A view kept, with the part taken for the thing.
        case view(Region)
    }

    enum Problem: Error, Equatable {
        /// Most views showed nothing.
        case nothingSeen
        /// Most views were grain without shapes (a television's static, a sensor's noise in the dark).
        case onlyGrain
        /// Too few clear views that differ (how many there were).
        case tooFewViews(Int)
    }

    struct View {
        var sharpness: Double
        var region: Region
        var embedding: [Float]
        var background: [[Float]]
    }

    /// The middle, where a person holds what they show the camera, when nothing moved.
    static let centre = Region(x: 0.25, y: 0.2, width: 0.5, height: 0.6)
    static let corners = [
        Region(x: 0, y: 0, width: 0.3, height: 0.3), Region(x: 0.7, y: 0, width: 0.3, height: 0.3),
        Region(x: 0, y: 0.7, width: 0.3, height: 0.3), Region(x: 0.7, y: 0.7, width: 0.3, height: 0.3),
    ]
    static let minimumViews = 4
    static let maximumViews = 12

    let embedder: ObjectEmbedder
    private(set) var views: [View] = []
    private(set) var sampled = 0
    private(set) var empty = 0
    /// Views that were grain alone (`Grain.isOnlyGrain`).
    private(set) var grainy = 0
    /// How alike the kept views were and the nearest background, after `finish` (reported when taught).
    private(set) var calibration = (alike: 0.0, nearest: 0.0)
    private var previous: [UInt8] = []
    private var previousSize = (0, 0, 0)

    init(embedder: ObjectEmbedder) { self.embedder = embedder }

    /// Takes one view (BGR24).
    @discardableResult
    func add(bgr: UnsafeRawPointer, width: Int, height: Int, stride: Int) -> Seen {
        sampled += 1
        let size = (width, height, stride)
        let before = previousSize == size && !previous.isEmpty ? previous : nil
        let measures =
            before.flatMap { before in
                before.withUnsafeBytes {
                    PictureMeasure.measure(
                        bgr: bgr, previous: $0.baseAddress, width: width, height: height, stride: stride)
                }
            } ?? PictureMeasure.measure(bgr: bgr, previous: nil, width: width, height: height, stride: stride)
        previous = Array(UnsafeRawBufferPointer(start: bgr, count: stride * (height - 1) + width * 3))
        previousSize = size
        guard let measures, measures.contrast >= 0.035, measures.brightness >= 0.06, measures.brightness <= 0.97
        else {
            empty += 1
            return .nothing
        }
        if Grain.isOnlyGrain(bgr: bgr, width: width, height: height, stride: stride) {
            empty += 1
            grainy += 1
            return .nothing
        }
        let region = Self.region(moving: measures.moving)
        let background = Self.corners.filter { $0.overlap(region) < 0.05 }
        let embedded = embedder.embed(
            bgr: bgr, width: width, height: height, stride: stride, regions: [region] + background)
        guard let first = embedded.first else {
            empty += 1
            return .nothing
        }
        views.append(
            View(
                sharpness: measures.sharpness, region: region, embedding: first, background: Array(embedded.dropFirst())
            ))
        return .view(region)
    }

    /// The part of a view taken for the thing: around what moved when that is a part of the picture near its
    /// middle, else the middle.
    static func region(moving: Region?) -> Region {
        guard let moving, moving.area >= 0.02, moving.area <= 0.7, abs(moving.centreX - 0.5) <= 0.35,
            abs(moving.centreY - 0.5) <= 0.35
        else { return centre }
        let grow = 0.12
        return Region(
            x: moving.x - moving.width * grow, y: moving.y - moving.height * grow, width: moving.width * (1 + 2 * grow),
            height: moving.height * (1 + 2 * grow)
        ).clamped
    }

    /// The thing, or why it cannot be learned from these views.
    func finish(key: String, words: String, source: String) -> Result<Thing, Problem> {
        if sampled > 0, Double(grainy) >= 0.6 * Double(sampled) { return .failure(.onlyGrain) }
        if sampled > 0, Double(empty) >= 0.6 * Double(sampled) { return .failure(.nothingSeen) }
        let sharpness = views.map(\.sharpness).sorted()
        let median = sharpness.isEmpty ? 0 : sharpness[sharpness.count / 2]
        var chosen: [View] = []
        for view in views.sorted(by: { $0.sharpness > $1.sharpness }) where view.sharpness >= 0.35 * median {
            guard chosen.count < Self.maximumViews else { break }
            if chosen.allSatisfy({ Thing.dot($0.embedding, view.embedding) < 0.985 }) { chosen.append(view) }
        }
        guard chosen.count >= Self.minimumViews else { return .failure(.tooFewViews(chosen.count)) }
        let calibrated = Self.threshold(views: chosen.map(\.embedding), background: views.flatMap(\.background))
        calibration = (calibrated.alike, calibrated.nearest)
        return .success(
            Thing(
                key: key, words: words, threshold: calibrated.threshold, prototypes: chosen.map(\.embedding),
                source: source))
    }

    /// A fifth of the way from how alike the most alike background is to the thing towards how alike the views
    /// are (each to the nearest other, the fifth lowest in twenty), within 0.65…0.9. The views are of one
    /// session and more alike than the thing will be elsewhere, so the threshold stays near the background;
    /// other scenes' regions stay below about 0.6 (the most alike of 960 pictures without the thing, two runs of
    /// `bench/find_things_bench.py`, was 0.648, an eagle among animals, hence the floor). A third of the way, as
    /// before, left a thing that looks like the wall it was taught on (a patch of cloth, a bicycle photo) unfound
    /// in most scenes. Returns the threshold, how alike the views are and the nearest background.
    static func threshold(views: [[Float]], background: [[Float]]) -> (
        threshold: Double, alike: Double, nearest: Double
    ) {
        let alike = views.indices.map { index in
            views.indices.filter { $0 != index }.map { Double(Thing.dot(views[index], views[$0])) }.max() ?? 1
        }.sorted()
        let low = alike.isEmpty ? 0.9 : alike[alike.count / 5]
        let nearest = background.map { Thing.similarity(of: $0, to: views) }.max() ?? 0.5
        return (min(0.9, max(0.65, nearest + 0.2 * (low - nearest))), low, nearest)
    }
}

/// Whether a picture is grain without shapes (issue 73: ten seconds of static were "learned from 12 views"). A
/// photograph keeps most of its contrast when each 4 × 4 block is averaged (a brick wall 0.87 of it, grass 0.71,
/// a dog 0.95), because its light and dark come in shapes; grain loses it (random noise 0.25: the average of 16
/// independent pixels varies a quarter as much).
enum Grain {
    /// Below this share of contrast left in the block averages, a picture is grain.
    static let kept = 0.45

    static func isOnlyGrain(bgr: UnsafeRawPointer, width: Int, height: Int, stride: Int) -> Bool {
        let columns = width / 4
        let rows = height / 4
        guard columns >= 4, rows >= 4 else { return false }
        let bytes = bgr.assumingMemoryBound(to: UInt8.self)
        var whole = (sum: 0.0, squares: 0.0)
        var blocks = (sum: 0.0, squares: 0.0)
        var sums = [Double](repeating: 0, count: columns)
        for row in 0..<rows {
            for column in 0..<columns { sums[column] = 0 }
            for y in row * 4..<row * 4 + 4 {
                let line = bytes + y * stride
                for x in 0..<columns * 4 {
                    // Green is most of what the eye calls brightness; enough to tell shapes from grain.
                    let value = Double(line[x * 3 + 1])
                    whole.sum += value
                    whole.squares += value * value
                    sums[x / 4] += value
                }
            }
            for total in sums {
                let mean = total / 16
                blocks.sum += mean
                blocks.squares += mean * mean
            }
        }
        let pixels = Double(rows * columns * 16)
        let count = Double(rows * columns)
        let wholeVariance = whole.squares / pixels - (whole.sum / pixels) * (whole.sum / pixels)
        let blockVariance = blocks.squares / count - (blocks.sum / count) * (blocks.sum / count)
        guard wholeVariance > 1 else { return false }
        return (max(0, blockVariance) / wholeVariance).squareRoot() < kept
    }
}

/// Finding a taught thing in a picture: the places it may be (the detector's boxes of any class, a little
/// larger, and windows of three sizes and three shapes), compared coarsely, the most alike embedded closely, the
/// best above the thing's threshold (`SearchState.matchThing`).
enum ThingSearch {
    /// Windows overlapping by half: square ones of 60 %, 40 % and 27 % of the picture's height, and, for a tall or
    /// long thing (a cane, a rocket, a bicycle), ones twice as tall as wide of 50 % and 33 % and twice as wide as
    /// tall of 40 % and 27 %.
    static func windows(aspect: Double) -> [Region] {
        let shapes: [(height: Double, ratio: Double)] = [
            (0.6, 1), (0.4, 1), (0.27, 1), (0.5, 0.5), (0.33, 0.5), (0.4, 2), (0.27, 2),
        ]
        var regions: [Region] = []
        for shape in shapes {
            let width = min(1, shape.height * shape.ratio / aspect)
            let height = shape.height
            let columns = max(1, Int(((1 - width) / (width / 2)).rounded(.up)) + 1)
            let rows = max(1, Int(((1 - height) / (height / 2)).rounded(.up)) + 1)
            for row in 0..<rows {
                for column in 0..<columns {
                    let x = columns == 1 ? (1 - width) / 2 : (1 - width) * Double(column) / Double(columns - 1)
                    let y = rows == 1 ? (1 - height) / 2 : (1 - height) * Double(row) / Double(rows - 1)
                    regions.append(Region(x: x, y: y, width: width, height: height))
                }
            }
        }
        return regions
    }

    /// The detector's boxes grown by a tenth on each side.
    static func proposals(detections: [Detection]) -> [Region] {
        detections.prefix(8).map {
            Region(
                x: $0.x - $0.width * 0.1, y: $0.y - $0.height * 0.1, width: $0.width * 1.2, height: $0.height * 1.2
            ).clamped
        }
    }

    /// Regions inside `region` to look closer at: 70 % of it, at its middle and towards each side.
    static func inside(_ region: Region) -> [Region] {
        let width = region.width * 0.7
        let height = region.height * 0.7
        return [(0.5, 0.5), (0.0, 0.5), (1.0, 0.5), (0.5, 0.0), (0.5, 1.0)].map { fx, fy in
            Region(
                x: region.x + (region.width - width) * fx, y: region.y + (region.height - height) * fy, width: width,
                height: height)
        }
    }

    /// The best of `regions` for `thing` given their embeddings, when it reaches the threshold: of the regions
    /// within 0.03 of the most alike one and centred inside it, the smallest (a large window around the thing
    /// can be as alike as the thing itself, and the cue must point at the thing).
    static func best(thing: Thing, regions: [Region], embeddings: [[Float]]) -> (region: Region, score: Double)? {
        let scored = zip(regions, embeddings).map { (region: $0, score: thing.similarity($1)) }
        guard let top = scored.max(by: { $0.score < $1.score }), top.score >= thing.threshold else { return nil }
        let inside = scored.filter {
            $0.score >= max(thing.threshold, top.score - 0.03)
                && top.region.contains($0.region.centreX, $0.region.centreY)
        }
        return inside.min { $0.region.area < $1.region.area } ?? top
    }
}

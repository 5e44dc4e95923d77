import Foundation

/// How bright a picture is where the camera points, and whether a light is in view (light.md). Pure: 8-bit
/// grey pixels in, a reading out, so the camera's frames and a photo given with `--image` are measured alike.
public struct Brightness: Equatable, Sendable {
    /// The mean grey level of the middle of the picture (a box a quarter of each side), 0…255.
    public var centre: Double
    /// Where a light source is, when one is in view: a bright, saturated patch that is not the whole picture.
    public var lightSource: Side?

    public enum Side: String, Sendable { case left, middle, right }

    /// The level in words, darkest first.
    public enum Level: String, CaseIterable, Sendable {
        case dark, dim, normal, bright, veryBright = "very-bright"
    }

    /// Upper bounds of each level's mean grey, but the last: at most 24 is dark, at most 79 dim, and so on.
    /// A sheet of white paper in a lit room reads about 180–220 on an auto-exposed camera, a closed cupboard
    /// under 20, a lamp's bulb 250 and over.
    static let levelBounds: [Double] = [24, 79, 169, 229]

    public var level: Level {
        let index = Self.levelBounds.firstIndex { centre <= $0 } ?? Self.levelBounds.count
        return Level.allCases[index]
    }

    /// The share of the scale, 0…100, that `centre` is: what `w` says beside the word.
    public var percent: Int { Int((centre / 255 * 100).rounded()) }

    /// The tone's pitch: 150 Hz for black to 1,500 Hz for white on a log scale (one decade), so each step of
    /// grey raises it by the same musical interval.
    public var pitchHz: Double { Self.pitch(forGrey: centre) }

    public static func pitch(forGrey grey: Double) -> Double {
        150 * pow(10, min(255, max(0, grey)) / 255)
    }

    public init(centre: Double, lightSource: Side?) {
        self.centre = centre
        self.lightSource = lightSource
    }

    /// Measures `height` rows of `width` grey pixels, `stride` bytes apart.
    public init(grey pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) {
        precondition(width > 0 && height > 0 && stride >= width)
        // The middle box, every second pixel of every second row: at 640×480, 4,800 samples.
        let (left, top) = (width * 3 / 8, height * 3 / 8)
        let (right, bottom) = (max(left + 1, width * 5 / 8), max(top + 1, height * 5 / 8))
        var sum = 0
        var count = 0
        for y in Swift.stride(from: top, to: bottom, by: 2) {
            let row = pixels + y * stride
            for x in Swift.stride(from: left, to: right, by: 2) {
                sum += Int(row[x])
                count += 1
            }
        }
        centre = Double(sum) / Double(max(1, count))
        lightSource = Self.findLight(pixels, width: width, height: height, stride: stride)
    }

    /// A grid of 16 × 12 cells; a cell is saturated when most of its samples are at 250 or over. A light is in
    /// view when some cells are saturated but at most a third of them (a picture white all over is
    /// over-exposed, or a white wall, not a lamp), and the rest of the picture is darker than the lamp by a
    /// clear step (its mean at most 200).
    static func findLight(_ pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> Side? {
        let (columns, rows) = (16, 12)
        var saturated: [(x: Int, y: Int)] = []
        var restSum = 0
        var restCount = 0
        for cellY in 0..<rows {
            for cellX in 0..<columns {
                let (x0, x1) = (
                    cellX * width / columns, max(cellX * width / columns + 1, (cellX + 1) * width / columns)
                )
                let (y0, y1) = (cellY * height / rows, max(cellY * height / rows + 1, (cellY + 1) * height / rows))
                var bright = 0
                var samples = 0
                var sum = 0
                let step = max(1, (x1 - x0) / 8)
                for y in Swift.stride(from: y0, to: min(y1, height), by: max(1, (y1 - y0) / 8)) {
                    let row = pixels + y * stride
                    for x in Swift.stride(from: x0, to: min(x1, width), by: step) {
                        let value = Int(row[x])
                        if value >= 250 { bright += 1 }
                        sum += value
                        samples += 1
                    }
                }
                if bright * 2 > samples {
                    saturated.append((cellX, cellY))
                } else {
                    restSum += sum
                    restCount += samples
                }
            }
        }
        guard !saturated.isEmpty, saturated.count * 3 <= columns * rows, restCount > 0,
            Double(restSum) / Double(restCount) <= 200
        else { return nil }
        let middle = Double(saturated.map(\.x).reduce(0, +)) / Double(saturated.count) + 0.5
        switch middle / Double(columns) {
        case ..<(1.0 / 3): return .left
        case ..<(2.0 / 3): return .middle
        default: return .right
        }
    }
}

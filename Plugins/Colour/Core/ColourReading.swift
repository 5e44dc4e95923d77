import Foundation

/// A picture's pixels as colour reads them: the camera's BGR frames or a photo's RGB bytes, rows `stride`
/// bytes apart.
public struct ColourPicture {
    public enum Order: Sendable { case rgb, bgr }

    public let pixels: UnsafePointer<UInt8>
    public let width: Int
    public let height: Int
    public let stride: Int
    public let order: Order

    public init(pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, order: Order) {
        precondition(width > 0 && height > 0 && stride >= width * 3)
        self.pixels = pixels
        self.width = width
        self.height = height
        self.stride = stride
        self.order = order
    }

    /// Linear red, green and blue of the pixel at `x`, `y`.
    func linear(_ x: Int, _ y: Int) -> (Double, Double, Double) {
        let at = pixels + y * stride + x * 3
        let (first, second, third) = (SRGB.linear(at[0]), SRGB.linear(at[1]), SRGB.linear(at[2]))
        return order == .rgb ? (first, second, third) : (third, second, first)
    }

    /// The middle box, an eighth of each side (at least 3 pixels): what the camera points at.
    var middle: (x: Range<Int>, y: Range<Int>) {
        let (boxWidth, boxHeight) = (max(3, width / 8), max(3, height / 8))
        let left = max(0, (width - boxWidth) / 2)
        let top = max(0, (height - boxHeight) / 2)
        return (left..<min(width, left + boxWidth), top..<min(height, top + boxHeight))
    }
}

/// What colour reads in one picture: the middle's colour (white-balanced), its names, and whether there is
/// light enough to name anything.
public struct ColourReading: Equatable, Sendable {
    public var lab: Lab
    public var name: ColourName
    /// `fine.<name>`: the nearest finer name.
    public var fineKey: String
    /// The whole picture is too dark for colours (colour.md: said, rather than naming black).
    public var tooDark: Bool
    /// The middle's linear red, green and blue before any balance: what a calibration takes as white.
    public var middle: [Double]

    /// Under this mean light (linear, about grey 20 of 255 all over) colours are not named.
    static let darkestMean = 0.007

    public init(_ picture: ColourPicture, balance: WhiteBalance) {
        let light = Self.middleLight(picture)
        middle = [light.0, light.1, light.2]
        let gains = balance.gains(for: picture)
        lab = Lab(linear: light.0 * gains.0, light.1 * gains.1, light.2 * gains.2)
        name = ColourName(lab)
        fineKey = FineColour.key(for: lab)
        tooDark = WhiteBalance.meanLight(picture) < Self.darkestMean && lab.l < 25
    }
}

extension ColourReading {
    /// The mean linear light of the middle box (every second pixel of every second row), before any balance.
    public static func middleLight(_ picture: ColourPicture) -> (Double, Double, Double) {
        let middle = picture.middle
        var sum = (0.0, 0.0, 0.0)
        var count = 0.0
        for y in Swift.stride(from: middle.y.lowerBound, to: middle.y.upperBound, by: 2) {
            for x in Swift.stride(from: middle.x.lowerBound, to: middle.x.upperBound, by: 2) {
                let (r, g, b) = picture.linear(x, y)
                sum = (sum.0 + r, sum.1 + g, sum.2 + b)
                count += 1
            }
        }
        return (sum.0 / count, sum.1 / count, sum.2 / count)
    }
}

/// How colour takes the light's own colour out: from the picture around the middle (automatic), from a white
/// paper the person held up (calibrated), or not at all (the camera's own balance). Gains keep a colour's
/// brightness and change only its tint.
public enum WhiteBalance: Equatable, Sendable {
    case automatic
    case calibrated(red: Double, green: Double, blue: Double)
    case camera

    /// The gains for red, green and blue: the light's tint taken out, then the exposure brought to where a
    /// white thing in the picture reads white (`exposure`). The camera's own balance changes nothing.
    public func gains(for picture: ColourPicture) -> (Double, Double, Double) {
        let tint: (Double, Double, Double)
        switch self {
        case .camera: return (1, 1, 1)
        case .calibrated(let red, let green, let blue): tint = (red, green, blue)
        case .automatic: tint = Self.limited(Self.surroundLight(picture))
        }
        let scale = Self.exposure(picture, tint: tint)
        return (tint.0 * scale, tint.1 * scale, tint.2 * scale)
    }

    /// Cameras expose a room so that its middle greys look right, which leaves a white paper anywhere from
    /// about 180 to 245 of 255: the lightness of everything moves with it, and light and dark with it. The
    /// brightest twentieth of the picture around the middle is taken as its white and brought to 0.8 linear
    /// (about 231), by at most a half up or a fifth down; a picture with nothing light in it is left as it is
    /// (a dark thing in a dim room stays dark).
    static func exposure(_ picture: ColourPicture, tint: (Double, Double, Double)) -> Double {
        var levels = surround(picture).map { r, g, b in 0.2126 * r * tint.0 + 0.7152 * g * tint.1 + 0.0722 * b * tint.2
        }
        guard !levels.isEmpty else { return 1 }
        levels.sort()
        let white = levels[min(levels.count - 1, levels.count * 95 / 100)]
        guard white >= 0.3 else { return 1 }
        return min(1.5, max(0.8, 0.8 / white))
    }

    /// The gains that make `white` (a white paper's linear light) neutral at its own brightness; nil when
    /// it is too dark or too strongly coloured to be a white paper under any lamp.
    public static func calibration(white: (Double, Double, Double)) -> WhiteBalance? {
        let (r, g, b) = white
        let luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
        // A white paper under a bare tungsten bulb, to a camera that does not balance at all, is red 8 to blue 1.
        guard luminance >= 0.12, min(r, g, b) > 0, max(r, g, b) / min(r, g, b) <= 9 else { return nil }
        return .calibrated(red: luminance / r, green: luminance / g, blue: luminance / b)
    }

    /// The light around the middle by the "shades of grey" estimate (the 4-norm of each channel over a grid
    /// outside the middle box): between grey-world's mean and white-patch's brightest.
    static func surroundLight(_ picture: ColourPicture) -> (Double, Double, Double) {
        let samples = surround(picture)
        let sums = samples.reduce((0.0, 0.0, 0.0)) { sum, pixel in
            (sum.0 + pow4(pixel.0), sum.1 + pow4(pixel.1), sum.2 + pow4(pixel.2))
        }
        let count = Double(samples.count)
        guard count > 0 else { return (1, 1, 1) }
        return (root4(sums.0 / count), root4(sums.1 / count), root4(sums.2 / count))
    }

    /// Linear light of a 48 × 36 grid of the picture, the middle box left out: what the balance and the
    /// exposure are judged on.
    static func surround(_ picture: ColourPicture) -> [(Double, Double, Double)] {
        let middle = picture.middle
        var samples: [(Double, Double, Double)] = []
        for y in Swift.stride(from: 0, to: picture.height, by: max(1, picture.height / 36)) {
            for x in Swift.stride(from: 0, to: picture.width, by: max(1, picture.width / 48))
            where !(middle.x.contains(x) && middle.y.contains(y)) {
                samples.append(picture.linear(x, y))
            }
        }
        return samples
    }

    /// Gains from an estimated light, kept to what lamps and daylight can be as a camera that balances a little
    /// records them (red to blue from 0.6, blue sky, to 4.5, a bulb; green within a fifth of their mean): a
    /// picture of one blue shirt is not taken for a blue lamp.
    static func limited(_ light: (Double, Double, Double)) -> (Double, Double, Double) {
        var (r, g, b) = light
        guard r > 1e-4, g > 1e-4, b > 1e-4 else { return (1, 1, 1) }
        let redOverBlue = min(4.5, max(0.6, r / b))
        let middle = (r * b).squareRoot()
        r = middle * redOverBlue.squareRoot()
        b = middle / redOverBlue.squareRoot()
        let greenOverMean = min(1.2, max(0.8, g / ((r + b) / 2)))
        g = greenOverMean * (r + b) / 2
        let luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
        return (luminance / r, luminance / g, luminance / b)
    }

    /// The mean linear light of the picture (a grid), for "too dark".
    static func meanLight(_ picture: ColourPicture) -> Double {
        var sum = 0.0
        var count = 0.0
        for y in Swift.stride(from: 0, to: picture.height, by: max(1, picture.height / 24)) {
            for x in Swift.stride(from: 0, to: picture.width, by: max(1, picture.width / 32)) {
                let (r, g, b) = picture.linear(x, y)
                sum += 0.2126 * r + 0.7152 * g + 0.0722 * b
                count += 1
            }
        }
        return sum / max(1, count)
    }
}

/// The main colours of the whole picture (`p`): each sampled pixel named by its basic colour, the largest
/// shares first.
public enum Palette {
    public static func shares(_ picture: ColourPicture, balance: WhiteBalance, most: Int = 3) -> [(BasicColour, Int)] {
        let gains = balance.gains(for: picture)
        var counts: [BasicColour: Int] = [:]
        var total = 0
        for y in Swift.stride(from: 0, to: picture.height, by: max(1, picture.height / 48)) {
            for x in Swift.stride(from: 0, to: picture.width, by: max(1, picture.width / 64)) {
                let (r, g, b) = picture.linear(x, y)
                counts[ColourName(Lab(linear: r * gains.0, g * gains.1, b * gains.2)).basic, default: 0] += 1
                total += 1
            }
        }
        // Shares of at least 8 %, in whole percent, largest first (ties in the basic colours' order).
        var shares: [(BasicColour, Int)] = []
        for colour in BasicColour.allCases {
            let share = Int((Double(counts[colour] ?? 0) / Double(max(1, total)) * 100).rounded())
            if share >= 8 { shares.append((colour, share)) }
        }
        // A stable sort: equal shares keep the basic colours' order.
        let sorted = shares.enumerated().sorted { left, right in
            left.element.1 != right.element.1 ? left.element.1 > right.element.1 : left.offset < right.offset
        }
        return Array(sorted.map(\.element).prefix(most))
    }
}

private func pow4(_ x: Double) -> Double { x * x * x * x }
private func root4(_ x: Double) -> Double { x.squareRoot().squareRoot() }

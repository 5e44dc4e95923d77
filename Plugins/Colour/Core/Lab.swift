import Foundation

/// A colour in CIELAB (D65): lightness 0…100 and two opponent axes, where distances are roughly what the
/// eye sees as different. From and to sRGB bytes.
public struct Lab: Equatable, Sendable {
    public var l: Double
    public var a: Double
    public var b: Double

    public init(l: Double, a: Double, b: Double) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// How colourful: 0 for greys.
    public var chroma: Double { (a * a + b * b).squareRoot() }

    /// The hue angle in degrees, 0…360 (red about 40, yellow 100, green 140, blue 280).
    public var hue: Double {
        let angle = atan2(b, a) * 180 / Double.pi
        return angle < 0 ? angle + 360 : angle
    }

    /// The CIE 1976 distance.
    public func distance(to other: Lab) -> Double {
        let (dl, da, db) = (l - other.l, a - other.a, b - other.b)
        return (dl * dl + da * da + db * db).squareRoot()
    }

    /// From linear RGB, 0…1 each (sRGB primaries, D65 white).
    public init(linear red: Double, _ green: Double, _ blue: Double) {
        let x = (0.4124564 * red + 0.3575761 * green + 0.1804375 * blue) / 0.95047
        let y = 0.2126729 * red + 0.7151522 * green + 0.0721750 * blue
        let z = (0.0193339 * red + 0.1191920 * green + 0.9503041 * blue) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24_389 ? cbrt(t) : (24_389.0 / 27 * t + 16) / 116 }
        let (fx, fy, fz) = (f(x), f(y), f(z))
        self.init(l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    /// From an sRGB colour written as six hex digits ("1e50c8").
    public init(hex: String) {
        let value = Int(hex, radix: 16) ?? 0
        let bytes = [(value >> 16) & 255, (value >> 8) & 255, value & 255].map { SRGB.linear(UInt8($0)) }
        self.init(linear: bytes[0], bytes[1], bytes[2])
    }
}

/// sRGB's transfer curve, both ways.
public enum SRGB {
    /// The linear light of an sRGB byte, 0…1 (from a table: it is asked for every sampled pixel).
    public static func linear(_ byte: UInt8) -> Double { table[Int(byte)] }

    /// The sRGB byte for linear light `value` (clamped to 0…1).
    public static func byte(_ value: Double) -> UInt8 {
        let v = min(1, max(0, value))
        let encoded = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8((encoded * 255).rounded())
    }

    private static let table: [Double] = (0...255).map { byte in
        let c = Double(byte) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }
}

import Foundation
import PluginAPI

/// What to play and say for a target at a point (find-object.md §4): horizontal guidance first, then
/// vertical, then centred; intensity from the distance to the centre; pan from x.
public struct GuidanceDecision: Equatable, Sendable {
    public enum Direction: String, Sendable {
        case left, right, up, down, centered
    }

    public var direction: Direction
    /// ASSIST_CUE_*.
    public var pattern: Int32
    /// 0.1…1; 1 when centred.
    public var intensity: Double
    /// −1 (left) … 1 (right).
    public var pan: Double
    /// The vertical hint added in the horizontal phase ("left, up").
    public var verticalHint: Direction?

    public static let centreRadius = 0.1

    public init(x: Double, y: Double) {
        let distance = ((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5)).squareRoot()
        let low = 0.5 - Self.centreRadius
        let high = 0.5 + Self.centreRadius
        intensity = min(1, max(0.1, 0.3 + 0.7 * (1 - min(1, distance / 0.5))))
        pan = min(1, max(-1, (x - 0.5) / 0.5))
        let vertical: Direction? = y < low ? .up : (y > high ? .down : nil)
        verticalHint = nil
        if x < low || x > high {
            direction = x < low ? .left : .right
            pattern = x < low ? ASSIST_CUE_DOT : ASSIST_CUE_DASH
            verticalHint = vertical
        } else if let vertical {
            direction = vertical
            pattern = vertical == .up ? ASSIST_CUE_DOT_DASH : ASSIST_CUE_DASH_DOT
        } else {
            direction = .centered
            pattern = ASSIST_CUE_CONTINUOUS
            intensity = 1
        }
    }

    /// The spoken form: "left", "left, up", "Object centered!", in the phrase book's words.
    public func phrase(_ words: (String) -> String, centred: String) -> String {
        guard direction != .centered else { return centred }
        return [words(direction.rawValue), verticalHint.map { words($0.rawValue) }].compactMap { $0 }
            .joined(separator: ", ")
    }

    /// "cup at 1 o'clock": the hour for `x` with a camera of `fieldOfView` degrees across.
    public static func clockHour(x: Double, fieldOfView: Double = 60) -> Int {
        let hour = 12 + Int(((x - 0.5) * fieldOfView / 30).rounded())
        return ((hour - 1) % 12 + 12) % 12 + 1
    }
}

/// Drops a phrase or pattern identical to the last one within 0.15 s (find-object.md §4).
public struct RepeatFilter: Sendable {
    private var last: (key: String, time: Double)?
    public let window: Double

    public init(window: Double = 0.15) { self.window = window }

    /// True when `key` should go out at `time` (seconds).
    public mutating func allows(_ key: String, at time: Double) -> Bool {
        if let last, last.key == key, time - last.time < window { return false }
        last = (key, time)
        return true
    }
}

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
    /// How far past a boundary a target must go to change a word said for the one before (`previous`): a target
    /// that sits on a boundary, its box jittering a little from picture to picture, was "right" and
    /// "right, down" by turns (issue 72).
    public static let hysteresis = 0.04

    /// The decision for a target at (`x`, `y`), each word kept from `previous` until the target is clearly past
    /// the boundary it sits near.
    public init(x: Double, y: Double, previous: GuidanceDecision? = nil) {
        let distance = ((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5)).squareRoot()
        intensity = min(1, max(0.1, 0.3 + 0.7 * (1 - min(1, distance / 0.5))))
        pan = min(1, max(-1, (x - 0.5) / 0.5))
        let before = previous.map { previous -> (horizontal: Direction?, vertical: Direction?) in
            switch previous.direction {
            case .left, .right: (previous.direction, previous.verticalHint)
            case .up, .down: (nil, previous.direction)
            case .centered: (nil, nil)
            }
        }
        /// The side of the centre band `value` is on: a side said before is kept up to the band's edge less the
        /// margin, a new one needs the edge plus the margin.
        func side(_ value: Double, _ kept: Direction??, low lowSide: Direction, high highSide: Direction) -> Direction?
        {
            let margin = kept == nil ? 0 : Self.hysteresis
            let kept = kept ?? nil
            let low = 0.5 - Self.centreRadius + (kept == lowSide ? margin : -margin)
            let high = 0.5 + Self.centreRadius + (kept == highSide ? -margin : margin)
            return value < low ? lowSide : (value > high ? highSide : nil)
        }
        let vertical = side(y, before.map(\.vertical), low: .up, high: .down)
        let horizontal = side(x, before.map(\.horizontal), low: .left, high: .right)
        verticalHint = nil
        if let horizontal {
            direction = horizontal
            pattern = horizontal == .left ? ASSIST_CUE_DOT : ASSIST_CUE_DASH
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

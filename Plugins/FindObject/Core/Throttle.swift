import Foundation

/// How hard the machine is pressed, from processing times or heat (find-object.md §3).
public enum Pressure: Int, Comparable, Sendable {
    case nominal, fair, serious, critical

    /// The share of the last processing time waited before the next frame.
    public var factor: Double { [0, 0.3, 0.7, 1.5][rawValue] }

    public static func < (lhs: Pressure, rhs: Pressure) -> Bool { lhs.rawValue < rhs.rawValue }

    /// From the hottest thermal zone: 70, 80 and 90 °C raise it to fair, serious and critical.
    public init(celsius: Double) {
        self = celsius >= 90 ? .critical : celsius >= 80 ? .serious : celsius >= 70 ? .fair : .nominal
    }
}

/// The detection back-off: from the median of the last 8 processing times against a 62.5 ms budget, raised
/// by heat where the machine reports it, a delay before the next frame, capped (150 ms for detection, 500 ms
/// for OCR).
public struct Throttle: Sendable {
    private var times: [Double] = []
    public let budgetMilliseconds: Double
    public let capMilliseconds: Double

    public init(budgetMilliseconds: Double = 62.5, capMilliseconds: Double = 150) {
        self.budgetMilliseconds = budgetMilliseconds
        self.capMilliseconds = capMilliseconds
    }

    /// The pressure the recorded times show.
    public var pressure: Pressure {
        guard !times.isEmpty else { return .nominal }
        let ratio = times.sorted()[times.count / 2] / budgetMilliseconds
        return ratio <= 1 ? .nominal : ratio <= 1.5 ? .fair : ratio <= 2.5 ? .serious : .critical
    }

    /// Records one processing time and returns the delay before the next frame, in milliseconds; `heat` can
    /// only raise the pressure the times show.
    public mutating func delay(afterProcessing milliseconds: Double, heat: Pressure = .nominal) -> Double {
        times.append(milliseconds)
        if times.count > 8 { times.removeFirst() }
        return min(capMilliseconds, milliseconds * max(pressure, heat).factor)
    }

    /// Milliseconds from the start of one detection to the next while the follower carries a found target.
    public static let followingInterval = 200.0

    /// The delay before the next detection once it found the target, which the follower carries from frame
    /// to frame in between: what is left of `followingInterval` since this detection began, or the back-off
    /// when that is longer. The rest of the time is left to speech, voice and the echo canceller (issue 37).
    public static func whileFollowing(afterProcessing milliseconds: Double, backOff: Double) -> Double {
        max(backOff, followingInterval - milliseconds)
    }
}

/// The machine's readable thermal zones (`/sys/class/thermal/thermal_zone*/temp`, millidegrees), read at
/// most once every `interval` seconds. Machines without zones (most virtual ones) report no heat.
public struct ThermalZones: Sendable {
    public let root: String
    public let interval: Double
    private var last: (time: Double, pressure: Pressure)?

    public init(root: String = "/sys/class/thermal", interval: Double = 2) {
        self.root = root
        self.interval = interval
    }

    /// The hottest readable zone in °C, or nil when none can be read.
    public func hottest() -> Double? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let readings = names.filter { $0.hasPrefix("thermal_zone") }.compactMap { name -> Double? in
            guard let text = try? String(contentsOfFile: "\(root)/\(name)/temp", encoding: .utf8),
                let millidegrees = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { return nil }
            return millidegrees / 1000
        }
        return readings.max()
    }

    /// The pressure the heat gives at `time` (seconds), re-read once `interval` has passed.
    public mutating func pressure(at time: Double) -> Pressure {
        if let last, time - last.time < interval { return last.pressure }
        let pressure = hottest().map(Pressure.init(celsius:)) ?? .nominal
        last = (time, pressure)
        return pressure
    }
}

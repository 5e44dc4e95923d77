/// Follows one target across processed frames (find-object.md §3): conviction rises by 4 on a hit and falls
/// by 1 (2 in text search) on a miss, within 0…10; positions are smoothed; the next position is predicted
/// from the last three. Guidance runs only while conviction is at least 4.
public struct Tracker: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
    }

    public private(set) var conviction = 0
    public private(set) var smoothed: Point?
    public private(set) var frameIndex = 0
    public private(set) var history: [(index: Int, point: Point)] = []
    /// How much a miss costs: 1 for objects, 2 for text.
    public let missPenalty: Int

    public init(missPenalty: Int = 1) { self.missPenalty = missPenalty }

    public var isGuiding: Bool { conviction >= 4 }

    /// Takes one frame's result: the target's position, or nil when it was not seen.
    public mutating func update(_ seen: Point?) {
        guard let seen else {
            if conviction > 0 { conviction = max(0, conviction - missPenalty) }
            if conviction == 0 { reset() }
            return
        }
        conviction = min(10, conviction + 4)
        if let previous = smoothed {
            smoothed = Point(x: 0.1 * previous.x + 0.9 * seen.x, y: 0.1 * previous.y + 0.9 * seen.y)
        } else {
            smoothed = seen
        }
        frameIndex += 1
        if let smoothed { history.append((frameIndex, smoothed)) }
        if history.count > 3 { history.removeFirst() }
    }

    /// Where the target should be on the next frame: a least-squares line through the history, clamped to the
    /// picture; the smoothed point with fewer than three entries.
    public var predicted: Point? {
        guard history.count == 3 else { return smoothed }
        let next = Double(frameIndex + 1)
        func fit(_ value: (Point) -> Double) -> Double {
            let xs = history.map { Double($0.index) }
            let ys = history.map { value($0.point) }
            let meanX = xs.reduce(0, +) / 3
            let meanY = ys.reduce(0, +) / 3
            let spread = xs.map { ($0 - meanX) * ($0 - meanX) }.reduce(0, +)
            let slope = spread == 0 ? 0 : zip(xs, ys).map { ($0 - meanX) * ($1 - meanY) }.reduce(0, +) / spread
            return min(1, max(0, meanY + slope * (next - meanX)))
        }
        return Point(x: fit(\.x), y: fit(\.y))
    }

    /// Forgets everything (conviction 0, or stop).
    public mutating func reset() {
        conviction = 0
        smoothed = nil
        frameIndex = 0
        history = []
    }

    public static func == (lhs: Tracker, rhs: Tracker) -> Bool {
        lhs.conviction == rhs.conviction && lhs.smoothed == rhs.smoothed && lhs.frameIndex == rhs.frameIndex
            && lhs.history.map(\.index) == rhs.history.map(\.index)
            && lhs.history.map(\.point) == rhs.history.map(\.point)
    }
}

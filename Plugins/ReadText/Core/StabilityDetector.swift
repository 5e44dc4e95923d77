/// Decides when the camera has been still long enough to read (read-text.md §2): the mean absolute
/// difference of 80×60 luma thumbnails stays at or below 2.5 for 4 consecutive pairs, at least 0.3 s after
/// arming, and any focus or exposure control has settled. Fires once, then waits for `rearm`. Pure.
public struct StabilityDetector: Sendable {
    private var previous: [UInt8]?
    /// Consecutive pairs of thumbnails that matched, up to the last one added.
    public private(set) var matchingPairs = 0
    private var armedAtNs: UInt64?
    private var fired = false
    private var controls: [String: ControlSettling] = [:]

    public init() {}

    /// Starts a new wait at `timeNs`.
    public mutating func rearm(at timeNs: UInt64) {
        armedAtNs = timeNs
        fired = false
        matchingPairs = 0
        previous = nil
    }

    /// Records a control reading (focus or exposure); polled every 50 ms while the camera adjusts it.
    public mutating func controlReading(_ name: String, value: Int64, step: Int64) {
        controls[name, default: ControlSettling()].add(value: value, step: step)
    }

    /// Adds an 80×60 thumbnail taken at `timeNs`; true when the picture has just become stable.
    public mutating func add(thumbnail: [UInt8], at timeNs: UInt64) -> Bool {
        if armedAtNs == nil { armedAtNs = timeNs }
        defer { previous = thumbnail }
        guard let previous, previous.count == thumbnail.count, !thumbnail.isEmpty else { return false }
        var total = 0
        for index in thumbnail.indices { total += abs(Int(thumbnail[index]) - Int(previous[index])) }
        let mad = Double(total) / Double(thumbnail.count)
        matchingPairs = mad <= ReadTextParameters.stableMAD ? matchingPairs + 1 : 0
        let waited = Double(timeNs &- (armedAtNs ?? timeNs)) / 1e9 >= ReadTextParameters.stableMinimumSeconds
        let settled = controls.values.allSatisfy(\.isSettled)
        guard !fired, waited, settled, matchingPairs >= ReadTextParameters.stableFrames else { return false }
        fired = true
        return true
    }

    /// True while the picture is settling (`earlyFrames` pairs matched, any control settled) and the wait has
    /// not fired: a frame now may be recognised early, to be kept if the wait then fires with no pair between
    /// failing.
    public var isSettling: Bool {
        !fired && matchingPairs >= ReadTextParameters.earlyFrames && controls.values.allSatisfy(\.isSettled)
    }

    /// An 80×60 thumbnail of 8-bit luma: each cell the mean of a 4×4 grid of samples spread over its area
    /// (close to an area average, at a fixed cost whatever the frame size, so `on_frame` stays short).
    public static func thumbnail(luma: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> [UInt8] {
        let (w, h) = (80, 60)
        var out = [UInt8](repeating: 0, count: w * h)
        guard width >= w, height >= h else { return out }
        // Where the samples are, worked out once a frame (320 columns, 240 rows), so the loop below only adds.
        let columns = (0..<(w * 4)).map { $0 * width / (w * 4) }
        let rows = (0..<(h * 4)).map { $0 * height / (h * 4) * stride }
        columns.withUnsafeBufferPointer { columns in
            rows.withUnsafeBufferPointer { rows in
                out.withUnsafeMutableBufferPointer { out in
                    var cell = 0
                    for y in 0..<h {
                        let first = y * 4
                        for x in 0..<w {
                            var sum = 0
                            let left = x * 4
                            for sy in first..<(first + 4) {
                                let line = luma + rows[sy]
                                sum &+=
                                    Int(line[columns[left]]) &+ Int(line[columns[left + 1]])
                                    &+ Int(line[columns[left + 2]]) &+ Int(line[columns[left + 3]])
                            }
                            out[cell] = UInt8(truncatingIfNeeded: sum >> 4)
                            cell += 1
                        }
                    }
                }
            }
        }
        return out
    }
}

/// A focus or exposure control is settled when two consecutive polls differ by at most one step and 2 %.
public struct ControlSettling: Sendable {
    private var last: Int64?
    public private(set) var isSettled = true

    public init() {}

    public mutating func add(value: Int64, step: Int64) {
        if let last {
            let change = abs(value - last)
            isSettled = change <= max(1, step) && Double(change) <= 0.02 * Double(max(1, abs(last)))
        }
        last = value
    }
}

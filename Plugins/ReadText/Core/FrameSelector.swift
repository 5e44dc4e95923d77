/// Best-frame selection (read-text.md §3): keeps up to 3 candidates and sends the sharpest to OCR once a
/// candidate reaches the requirement, which starts at 1800 sharp cells and shrinks by 1.5 after each miss.
/// Pure; `Candidate` is whatever the caller keeps (a retained frame).
public struct FrameSelector<Candidate> {
    /// What to do after a candidate.
    public enum Decision {
        /// Recognise this one; the others are released.
        case recognize(Candidate, released: [Candidate])
        /// Keep waiting for a steadier picture; these candidates are no longer needed.
        case wait(released: [Candidate])
    }

    private var pool: [(candidate: Candidate, count: Int)] = []
    /// The sharp-cell count a candidate needs now.
    public private(set) var requirement = ReadTextParameters.initialRequirement

    public init() {}

    /// True when no candidate waits (the first steady picture since the last reading).
    public var isEmpty: Bool { pool.isEmpty }

    /// Considers `candidate` with `sharpCount` sharp cells.
    public mutating func offer(_ candidate: Candidate, sharpCount: Int) -> Decision {
        let all = pool + [(candidate, sharpCount)]
        if let best = all.max(by: { $0.count < $1.count }), Double(best.count) >= requirement {
            pool.removeAll()
            var released = all.map(\.candidate)
            if let index = all.firstIndex(where: { $0.count == best.count }) { released.remove(at: index) }
            return .recognize(best.candidate, released: released)
        }
        var released: [Candidate] = []
        if pool.count < ReadTextParameters.candidatePool {
            pool.append((candidate, sharpCount))
        } else if let lowest = pool.indices.min(by: { pool[$0].count < pool[$1].count }),
            pool[lowest].count < sharpCount
        {
            released.append(pool[lowest].candidate)
            pool[lowest] = (candidate, sharpCount)
        } else {
            released.append(candidate)
        }
        requirement = max(1, requirement / ReadTextParameters.requirementDecay)
        return .wait(released: released)
    }

    /// Starts over after an OCR attempt.
    public mutating func reset() -> [Candidate] {
        defer { pool.removeAll() }
        requirement = ReadTextParameters.initialRequirement
        return pool.map(\.candidate)
    }
}

/// The veto (read-text.md §5): discard a result whose median line confidence is under 40.
public enum ConfidenceVeto {
    /// True when the result should be discarded. The median is the element at ⌊n/2⌋ of the sorted values.
    public static func rejects(_ confidences: [Double]) -> Bool {
        guard !confidences.isEmpty else { return true }
        return confidences.sorted()[confidences.count / 2] < ReadTextParameters.vetoConfidence
    }
}

/// Timers ordered by deadline. Small and simple: the host has tens of timers, not thousands.
struct TimerQueue {
    struct Entry {
        let id: UInt64
        var deadlineNs: UInt64
        let intervalNs: UInt64?
        let action: @Sendable () -> Void
    }

    private var entries: [Entry] = []

    var earliestDeadlineNs: UInt64? { entries.first?.deadlineNs }

    mutating func insert(_ entry: Entry) {
        let index = entries.firstIndex { $0.deadlineNs > entry.deadlineNs } ?? entries.endIndex
        entries.insert(entry, at: index)
    }

    mutating func remove(id: UInt64) -> Bool {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
        entries.remove(at: index)
        return true
    }

    mutating func popDue(nowNs: UInt64) -> Entry? {
        guard let first = entries.first, first.deadlineNs <= nowNs else { return nil }
        return entries.removeFirst()
    }
}

import Foundation

/// The host's main loop: the thread every `[main]` ABI call runs on.
///
/// Work is posted from any thread and runs in order; timers fire on the same thread. One instance runs on
/// the thread that calls `run()`.
package final class MainLoop: @unchecked Sendable {  // because: every mutable field is guarded by `condition`
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var timers = TimerQueue()
    private var nextTimerID: UInt64 = 1
    private var stopRequested = false
    private var loopThread: pthread_t?
    private let clock: MonotonicClock

    /// Creates a loop whose timers use `clock`.
    package init(clock: MonotonicClock = SystemClock()) {
        self.clock = clock
    }

    /// True when called on the thread running `run()`. Any thread.
    package var isOnLoop: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let loopThread else { return false }
        return pthread_equal(loopThread, pthread_self()) != 0
    }

    /// Queues `work` to run on the loop after the work already queued. Any thread.
    package func post(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(work)
        condition.signal()
        condition.unlock()
    }

    /// Runs `action` on the loop after `milliseconds`, and again every `milliseconds` when `repeating`.
    /// Returns an id for `cancelTimer`. Any thread.
    @discardableResult
    package func addTimer(
        milliseconds: UInt32, repeating: Bool, _ action: @escaping @Sendable () -> Void
    ) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        let id = nextTimerID
        nextTimerID += 1
        let interval = UInt64(max(milliseconds, repeating ? 1 : 0)) * 1_000_000
        timers.insert(
            TimerQueue.Entry(
                id: id, deadlineNs: clock.nowNs() + interval, intervalNs: repeating ? interval : nil, action: action
            )
        )
        condition.signal()
        return id
    }

    /// Cancels a timer; returns false when it had already fired for good or never existed. Any thread.
    @discardableResult
    package func cancelTimer(_ id: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return timers.remove(id: id)
    }

    /// Asks `run()` to return once the work in hand is done. Any thread.
    package func stop() {
        condition.lock()
        stopRequested = true
        condition.signal()
        condition.unlock()
    }

    /// Runs the work queued so far (and what it queues in turn, ahead of the marker) and returns as soon as it
    /// is done, or after `timeoutSeconds`; true when it finished. Work is first in, first out, so a marker
    /// posted now runs after everything already queued: no polling, no fixed wait.
    @discardableResult
    package func drain(timeoutSeconds: Double) -> Bool {
        let finished = DrainMarker()
        post { [self] in
            finished.done = true
            stop()
        }
        let guardTimer = addTimer(milliseconds: UInt32(timeoutSeconds * 1000), repeating: false) { [self] in
            stop()
        }
        let deadline = clock.nowNs() + UInt64(max(0, timeoutSeconds) * 1e9)
        // Queued work may stop the loop itself; the guard timer ends the last round by the deadline.
        while !finished.done && clock.nowNs() < deadline { run() }
        cancelTimer(guardTimer)
        return finished.done
    }

    /// Drops the work and timers still queued, which would never run: the last thing a host does before it
    /// ends. Closures left in the queue hold what they capture, and what they capture often holds the loop,
    /// so without this those objects would never be freed. Any thread, once the loop no longer runs.
    package func discardPending() {
        condition.lock()
        let dropped = queue
        queue = []
        timers = TimerQueue()
        condition.unlock()
        _ = dropped  // released here, outside the lock: a capture's deinit may post again
    }

    /// Runs queued work and timers until `stop()`. Call on the thread that is to be `[main]`.
    package func run() {
        condition.lock()
        loopThread = pthread_self()
        stopRequested = false
        condition.unlock()
        while let work = nextWork() {
            work()
        }
    }

    /// Runs until `done()` is true or `timeoutSeconds` pass; returns `done()`. For tests and one-shot commands.
    package func run(until done: @escaping @Sendable () -> Bool, timeoutSeconds: Double) -> Bool {
        // Both timers are cancelled before this returns, so holding the loop strongly never outlives the call.
        let guardTimer = addTimer(milliseconds: UInt32(timeoutSeconds * 1000), repeating: false) { [self] in
            stop()
        }
        let poll = addTimer(milliseconds: 5, repeating: true) { [self] in
            if done() { stop() }
        }
        if !done() { run() }
        cancelTimer(guardTimer)
        cancelTimer(poll)
        return done()
    }

    private func nextWork() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if !queue.isEmpty {
                return queue.removeFirst()
            }
            if stopRequested {
                stopRequested = false
                return nil
            }
            let now = clock.nowNs()
            if let due = timers.popDue(nowNs: now) {
                if let interval = due.intervalNs {
                    var again = due
                    again.deadlineNs = max(due.deadlineNs + interval, now)
                    timers.insert(again)
                }
                return due.action
            }
            if let deadline = timers.earliestDeadlineNs {
                let waitNs = deadline > now ? deadline - now : 0
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(waitNs) / 1e9))
            } else {
                condition.wait()
            }
        }
    }
}

/// Set by `drain`'s marker on the loop thread, read there after `run` returns.
private final class DrainMarker: @unchecked Sendable {  // because: only the loop thread touches it
    var done = false
}

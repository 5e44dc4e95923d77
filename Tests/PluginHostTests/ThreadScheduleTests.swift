import Foundation
import Runtime
import Testing

/// The host's camera rule counts a plugin's `on_frame` time less what its thread waited for a processor:
/// Linux's schedstat, read for the calling thread, tells the two apart.
@Suite("A thread's wait for a processor")
struct ThreadScheduleTests {
    /// Runs `body` on a new thread.
    func onAThread(_ body: @escaping @Sendable () -> Void) -> Thread {
        let thread = Thread { body() }
        thread.start()
        return thread
    }

    static func spin(milliseconds: Double) {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds * 1e6)
        var x = 0
        while DispatchTime.now().uptimeNanoseconds < end { x &+= 1 }
        _ = x
    }

    @Test func waitingBesideABusyThreadIsCountedAndSleepingIsNot() throws {
        guard ThreadSchedule.runQueueWaitNs() != nil else {
            print("skipped: this kernel does not give /proc/thread-self/schedstat (the rule counts wall time there)")
            return
        }
        let sleeping = Locked<UInt64?>(nil)
        let alone = onAThread {
            let before = ThreadSchedule.runQueueWaitNs() ?? 0
            Thread.sleep(forTimeInterval: 0.1)
            sleeping.set(ThreadSchedule.runQueueWaitNs().map { $0 - before })
        }
        while !alone.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(
            (sleeping.get() ?? .max) < 20_000_000,
            "blocking is no wait for a processor: \(String(describing: sleeping.get()))")

        // One spinning thread more than there are processors: each waits about a third of the time or more.
        let waited = Locked<UInt64?>(nil)
        let rivals = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            onAThread { Self.spin(milliseconds: 400) }
        }
        let measured = onAThread {
            let before = ThreadSchedule.runQueueWaitNs() ?? 0
            Self.spin(milliseconds: 200)
            waited.set(ThreadSchedule.runQueueWaitNs().map { $0 - before })
        }
        while !measured.isFinished || rivals.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
        #expect((waited.get() ?? 0) > 20_000_000, "\(String(describing: waited.get())) ns waited")
    }
}

/// A value set on one thread and read on another.
final class Locked<Value: Sendable>: @unchecked Sendable {  // because: `value` is guarded by `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ new: Value) { lock.withLock { value = new } }
    func get() -> Value { lock.withLock { value } }
}

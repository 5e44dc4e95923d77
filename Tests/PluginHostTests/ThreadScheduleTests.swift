import Foundation
import HostTesting
import Runtime
import Testing

/// The host's camera rule counts a plugin's `on_frame` time less what its thread waited for a processor:
/// Linux's schedstat, read for the calling thread, tells the two apart.
@Suite("A thread's wait for a processor")
struct ThreadScheduleTests {
    /// Runs `body` on a new thread, kept to one processor when `pinned` (true when that worked).
    func onAThread(pinned: Bool = false, _ body: @escaping @Sendable (Bool) -> Void) -> Thread {
        let thread = Thread { body(pinned ? Self.pinToOneProcessor() : false) }
        thread.start()
        return thread
    }

    /// Keeps the calling thread on processor 0 (glibc's `sched_setaffinity`, which Swift's Glibc module does not
    /// declare): the test's rivals then share one processor, and the other tests of the run keep the rest.
    static func pinToOneProcessor() -> Bool {
        var mask = [UInt8](repeating: 0, count: 128)  // a cpu_set_t
        mask[0] = 1
        return mask.withUnsafeBytes { bytes in bytes.baseAddress.map { setAffinity(0, 128, $0) } } == 0
    }

    static func spin(milliseconds: Double) {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds * 1e6)
        var x = 0
        while DispatchTime.now().uptimeNanoseconds < end { x &+= 1 }
        _ = x
    }

    @Test func waitingBesideABusyThreadIsCountedAndSleepingIsNot() throws {
        // A sanitizer's lane adds nothing here, and its real-time tests beside this one need the processors.
        guard ProcessRunner.timeScale == 1 else {
            print("skipped: a slowed lane (ASSIST_TEST_TIME_SCALE); the plain lane runs it")
            return
        }
        guard ThreadSchedule.runQueueWaitNs() != nil else {
            print("skipped: this kernel does not give /proc/thread-self/schedstat (the rule counts wall time there)")
            return
        }
        let sleeping = Locked<UInt64?>(nil)
        let alone = onAThread { _ in
            let before = ThreadSchedule.runQueueWaitNs() ?? 0
            Thread.sleep(forTimeInterval: 0.1)
            sleeping.set(ThreadSchedule.runQueueWaitNs().map { $0 - before })
        }
        while !alone.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(
            (sleeping.get() ?? .max) < 20_000_000,
            "blocking is no wait for a processor: \(String(describing: sleeping.get()))")

        // Two spinning threads on one processor: each waits about half the time.
        let waited = Locked<UInt64?>(nil)
        let pinned = Locked<[Bool]>([])
        let rival = onAThread(pinned: true) { ok in
            pinned.set(pinned.get() + [ok])
            if ok { Self.spin(milliseconds: 250) }
        }
        let measured = onAThread(pinned: true) { ok in
            pinned.set(pinned.get() + [ok])
            guard ok else { return }
            let before = ThreadSchedule.runQueueWaitNs() ?? 0
            Self.spin(milliseconds: 120)
            waited.set(ThreadSchedule.runQueueWaitNs().map { $0 - before })
        }
        while !measured.isFinished || !rival.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        guard pinned.get() == [true, true] else {
            print("skipped: threads cannot be kept to one processor here, and the test will not busy every one")
            return
        }
        #expect((waited.get() ?? 0) > 20_000_000, "\(String(describing: waited.get())) ns waited")
    }
}

@_silgen_name("sched_setaffinity")
private func setAffinity(_ pid: pid_t, _ size: Int, _ mask: UnsafeRawPointer) -> Int32

/// A value set on one thread and read on another.
final class Locked<Value: Sendable>: @unchecked Sendable {  // because: `value` is guarded by `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func set(_ new: Value) { lock.withLock { value = new } }
    func get() -> Value { lock.withLock { value } }
}

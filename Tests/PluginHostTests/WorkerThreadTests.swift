import Foundation
import PluginKit
import Testing

@Suite("A plugin's own worker thread (PluginKit)")
struct WorkerThreadTests {
    /// What the jobs did, in order.
    final class Journal: @unchecked Sendable {  // because: `entries` is guarded by `lock`
        let lock = NSLock()
        var entries: [String] = []
        func add(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }
    }

    /// `stop` returns only once the job in progress has returned, so nothing of a stopped plugin runs on (and
    /// calls its host) after `destroy`; queued jobs are dropped and later ones refused.
    @Test func stopWaitsForTheJobInProgressAndDropsTheRest() {
        let worker = WorkerThread(name: "test-worker")
        let journal = Journal()
        let started = DispatchSemaphore(value: 0)
        worker.run {
            started.signal()
            Thread.sleep(forTimeInterval: 0.3)
            journal.add("first ended")
        }
        worker.run { journal.add("queued") }
        started.wait()
        #expect(worker.stop())
        journal.add("stopped")
        worker.run { journal.add("after") }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(journal.all == ["first ended", "stopped"])
    }

    /// A job may stop its own worker without waiting for itself.
    @Test func aJobMayStopItsOwnWorker() {
        let worker = WorkerThread(name: "test-worker")
        let done = DispatchSemaphore(value: 0)
        worker.run {
            #expect(worker.stop())
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}

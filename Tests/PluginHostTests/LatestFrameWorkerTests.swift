import Foundation
import HostTesting
import PluginAPI
import PluginKit
import Testing

@Suite("The latest frame to a worker (PluginKit)")
struct LatestFrameWorkerTests {
    /// Counts frames retained and not yet released, and the most at once.
    final class Ledger: @unchecked Sendable {  // because: the counters are guarded by `lock`
        let lock = NSLock()
        var held = 0
        var most = 0
        func retain() {
            lock.withLock {
                held += 1
                most = max(most, held)
            }
        }
        func release() { lock.withLock { held -= 1 } }

        /// A mailbox whose retain and release are counted here.
        func mailbox(process: @escaping @Sendable (assist_frame) -> Double) -> LatestFrameWorker {
            LatestFrameWorker(
                name: "test-mailbox",
                retain: { frame in
                    self.retain()
                    return frame
                }, release: { _ in self.release() }, process: process)
        }
    }

    @Test func aSlowSearchSeesOnlyTheNewestFramesInOrderWithinTheRetainBudget() throws {
        let frames = UnsafeMutablePointer<assist_frame>.allocate(capacity: 60)
        defer { frames.deallocate() }
        for index in 0..<60 {
            var frame = assist_frame()
            frame.seq = UInt64(index + 1)
            (frames + index).initialize(to: frame)
        }
        let ledger = Ledger()
        let searched = Collected<UInt64>()
        let mailbox = ledger.mailbox { frame in
            searched.append(frame.seq)
            Thread.sleep(forTimeInterval: 0.1)  // a slow search: about 3 frames arrive meanwhile
            return 0
        }
        for index in 0..<60 {
            mailbox.offer(UnsafePointer(frames + index))
            Thread.sleep(forTimeInterval: 1.0 / 30)
        }
        Thread.sleep(forTimeInterval: 0.25)
        mailbox.stop()
        Thread.sleep(forTimeInterval: 0.15)
        let seen = searched.values
        #expect(seen.count < 60 && seen.count > 5, "most frames were replaced while the search ran: \(seen)")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "sequence numbers only increase: \(seen)")
        #expect(seen.last == 60, "the newest frame is always searched")
        #expect(ledger.most <= 3, "one searched, one waiting, and the newest while it replaces that one: under 4")
        #expect(ledger.held == 0, "every retained frame was released")
        #expect(mailbox.replaced + seen.count == 60)
    }

    @Test func stopWaitsUntilTheFrameBeingSearchedIsReleased() throws {
        let frame = UnsafeMutablePointer<assist_frame>.allocate(capacity: 1)
        defer { frame.deallocate() }
        frame.initialize(to: assist_frame())
        let ledger = Ledger()
        let started = DispatchSemaphore(value: 0)
        let mailbox = ledger.mailbox { _ in
            started.signal()
            Thread.sleep(forTimeInterval: 0.3)
            return 400  // a long back-off, which the stop cuts short
        }
        mailbox.offer(UnsafePointer(frame))
        #expect(started.wait(timeout: .now() + 5) == .success)
        mailbox.offer(UnsafePointer(frame))  // waiting while the first is searched
        mailbox.stop()
        #expect(ledger.held == 0, "the searched frame and the waiting one are both released before stop returns")
        #expect(ledger.most == 2)
    }
}

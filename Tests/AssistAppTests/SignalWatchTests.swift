import AssistCore
import Foundation
import Testing

/// A signal sent the moment it is watched for is heard (systemd's stop as the kiosk starts again), and a
/// cancelled watch hears nothing more.
@Suite("Signals watched")
struct SignalWatchTests {
    /// Counts calls from the signal thread.
    final class Calls: @unchecked Sendable {
        private let condition = NSCondition()
        private var count = 0

        func add() {
            condition.withLock {
                count += 1
                condition.broadcast()
            }
        }

        /// Waits up to `seconds` for at least `wanted` calls; the count then.
        func wait(for wanted: Int, seconds: Double) -> Int {
            let deadline = Date().addingTimeInterval(seconds)
            return condition.withLock {
                while count < wanted, condition.wait(until: deadline) {}
                return count
            }
        }
    }

    /// SIGUSR2 sent to the process at once after `watch`, 200 times: every one is heard. With a dispatch source after
    /// `signal(_, SIG_IGN)`, as the shell had, 195 of 200 were lost.
    @Test func aSignalSentAtOnceIsHeard() {
        let calls = Calls()
        for round in 1...200 {
            let token = SignalWatch.watch(SIGUSR2) { calls.add() }
            kill(getpid(), SIGUSR2)
            let heard = calls.wait(for: round, seconds: 5)
            token.cancel()
            #expect(heard == round, "round \(round): \(heard) heard")
            if heard != round { return }
        }
    }

    @Test func aCancelledWatchHearsNothingMore() {
        let kept = Calls()
        let dropped = Calls()
        let keep = SignalWatch.watch(SIGUSR1) { kept.add() }
        let drop = SignalWatch.watch(SIGUSR1) { dropped.add() }
        drop.cancel()
        kill(getpid(), SIGUSR1)
        #expect(kept.wait(for: 1, seconds: 5) == 1)
        keep.cancel()
        kill(getpid(), SIGUSR1)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(kept.wait(for: 2, seconds: 0.1) == 1, "cancelled: not called again")
        #expect(dropped.wait(for: 1, seconds: 0.1) == 0)
    }
}

import Foundation
import Runtime
import Testing

/// `MainLoop.drain`: what is queued runs, in order, and the loop returns when it is done.
@Suite("Main loop drain")
struct MainLoopDrainTests {
    final class Log: @unchecked Sendable {  // because: only the loop thread appends, the test reads after
        var entries: [String] = []
    }

    @Test func queuedWorkAndWhatItQueuesRunBeforeDrainReturns() {
        let loop = MainLoop()
        let log = Log()
        for index in 1...3 {
            loop.post {
                log.entries.append("work \(index)")
                loop.post { log.entries.append("follow-up \(index)") }
            }
        }
        #expect(loop.drain(timeoutSeconds: 30))
        #expect(log.entries.prefix(3) == ["work 1", "work 2", "work 3"])
        #expect(log.entries.count == 3 || log.entries.count == 6, "follow-ups queued before the marker may run")
        #expect(loop.drain(timeoutSeconds: 30), "an empty loop drains at once")
        #expect(log.entries.count == 6)
    }

    @Test func workThatStopsTheLoopDoesNotEndTheDrainEarly() {
        let loop = MainLoop()
        let log = Log()
        loop.post { loop.stop() }
        loop.post { log.entries.append("after the stop") }
        #expect(loop.drain(timeoutSeconds: 30))
        #expect(log.entries == ["after the stop"])
    }
}

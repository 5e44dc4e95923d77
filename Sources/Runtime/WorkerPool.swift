import Foundation

/// A small pool of threads the host owns, for blocking plugin work (`assist.worker/1`).
package final class WorkerPool: Sendable {
    private let state = State()

    /// Starts `threadCount` named threads.
    package init(threadCount: Int, name: String = "assist-worker") {
        for index in 0..<max(1, threadCount) {
            let state = self.state
            let thread = Thread { state.loop() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    deinit {
        state.shutdown()
    }

    /// Queues `work` for the next free thread. Any thread.
    package func schedule(_ work: @escaping @Sendable () -> Void) {
        state.schedule(work)
    }

    /// Lets the queued work finish, then ends the threads. Any thread.
    package func shutdown() {
        state.shutdown()
    }

    private final class State: @unchecked Sendable {  // because: `queue` and `stopping` are guarded by `condition`
        private let condition = NSCondition()
        private var queue: [@Sendable () -> Void] = []
        private var stopping = false

        func schedule(_ work: @escaping @Sendable () -> Void) {
            condition.lock()
            queue.append(work)
            condition.signal()
            condition.unlock()
        }

        func shutdown() {
            condition.lock()
            stopping = true
            condition.broadcast()
            condition.unlock()
        }

        func loop() {
            while true {
                condition.lock()
                while queue.isEmpty && !stopping {
                    condition.wait()
                }
                if queue.isEmpty {
                    condition.unlock()
                    return
                }
                let work = queue.removeFirst()
                condition.unlock()
                work()
            }
        }
    }
}

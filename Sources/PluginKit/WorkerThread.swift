import Foundation

/// A thread the plugin owns, running jobs in order: for engines that must stay on one thread (a tesseract
/// handle, a detector).
///
/// `stop` waits for the job in progress, so a plugin that stops its workers in `stop` never calls the host
/// after it is destroyed (the ABI's lifecycle: nothing of the plugin runs after `destroy`).
// because: `jobs`, `running`, `finished` and `thread` are guarded by `condition`
public final class WorkerThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var running = true
    private var finished = false
    private var thread: Thread?

    public init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.stackSize = 8 << 20
        condition.withLock { self.thread = thread }
        thread.start()
    }

    /// Queues `job`. Any thread.
    public func run(_ job: @escaping () -> Void) {
        condition.withLock {
            guard running else { return }
            jobs.append(job)
            condition.signal()
        }
    }

    /// Ends the thread: queued jobs are dropped, and the job in progress is waited for (at most `timeout`
    /// seconds) unless `stop` is called from a job. Any thread; a job must not wait for the caller of `stop`.
    /// Returns false when the job in progress was still running at the deadline.
    @discardableResult
    public func stop(timeout: Double = 10) -> Bool {
        condition.withLock {
            running = false
            jobs.removeAll()
            condition.broadcast()
            guard Thread.current != thread else { return true }
            let deadline = Date(timeIntervalSinceNow: timeout)
            while !finished, condition.wait(until: deadline) {}
            return finished
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while running && jobs.isEmpty { condition.wait() }
            guard running else {
                finished = true
                thread = nil
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

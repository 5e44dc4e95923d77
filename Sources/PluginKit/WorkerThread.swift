import Foundation

/// A thread the plugin owns, running jobs in order: for engines that must stay on one thread (a tesseract
/// handle, a detector).
public final class WorkerThread: @unchecked Sendable {  // because: `jobs` and `running` are guarded by `condition`
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var running = true

    public init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Queues `job`. Any thread.
    public func run(_ job: @escaping () -> Void) {
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Ends the thread after the job in progress; queued jobs are dropped. Any thread.
    public func stop() {
        condition.withLock {
            running = false
            jobs.removeAll()
            condition.signal()
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while running && jobs.isEmpty { condition.wait() }
            guard running else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

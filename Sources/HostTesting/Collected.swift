import Foundation

/// Values gathered from other threads, for tests and benchmarks that wait on callbacks.
package final class Collected<Value: Sendable>: @unchecked Sendable {  // because: `items` is guarded by `lock`
    private let lock = NSLock()
    private var items: [Value] = []

    package init() {}
    package var values: [Value] { lock.withLock { items } }
    /// Adds `value`; returns how many values there are with it (1 for the first).
    @discardableResult
    package func append(_ value: Value) -> Int {
        lock.withLock {
            items.append(value)
            return items.count
        }
    }
    package func wait(count: Int, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while values.count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return values.count >= count
    }
}

import Foundation

/// A value that threads share, reached only under its lock (a pthread mutex, through `NSLock`).
///
/// Not the standard library's `Synchronization.Mutex`: on Linux, a `Mutex` taken by another thread waits in the
/// kernel (a priority-inheritance futex) inside the uninstrumented standard library, so ThreadSanitizer never sees
/// the hand-over and reports a race between two accesses that the lock orders. ThreadSanitizer knows
/// `pthread_mutex_lock`, so a value behind this lock is checked for what it is.
package final class Locked<Value>: @unchecked Sendable {  // because: `value` is read and written only under `lock`
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock for its whole run.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

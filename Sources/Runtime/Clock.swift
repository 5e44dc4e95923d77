import Foundation

/// A source of monotonic time, so tests can drive time by hand.
package protocol MonotonicClock: Sendable {
    /// Nanoseconds on CLOCK_MONOTONIC.
    func nowNs() -> UInt64
    /// Milliseconds since the Unix epoch.
    func wallMs() -> Int64
}

/// The real clock. Wraps `clock_gettime(CLOCK_MONOTONIC)` and `clock_gettime(CLOCK_REALTIME)`. Any thread.
package struct SystemClock: MonotonicClock {
    package init() {}

    package func nowNs() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    package func wallMs() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

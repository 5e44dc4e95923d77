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

/// What Linux says of the calling thread's scheduling (`/proc/thread-self/schedstat`). Any thread.
package enum ThreadSchedule {
    /// Nanoseconds the calling thread has spent runnable but waiting for a processor, since it started; nil
    /// where the kernel does not say (no schedstat, or a sandbox that hides /proc).
    package static func runQueueWaitNs() -> UInt64? {
        let descriptor = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 96)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        // "<on the processor> <waiting for one> <time slices>", in nanoseconds.
        let fields = buffer[..<count].split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        guard fields.count >= 2 else { return nil }
        return UInt64(String(decoding: fields[1], as: UTF8.self))
    }
}

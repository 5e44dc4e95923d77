import Audio
import Foundation

/// Small measurements the benchmarks share: medians and the process's CPU time.
package enum BenchFigures {
    /// The middle value (the upper one of two); 0 for no values.
    package static func median(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.sorted()[values.count / 2]
    }

    /// The value at fraction `p` of the way through the sorted values (0.95: the 95th percentile, nearest
    /// rank); NaN for no values.
    package static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// Milliseconds between two `DispatchTime` readings in nanoseconds.
    package static func milliseconds(_ from: UInt64, _ to: UInt64) -> Double { Double(to &- from) / 1e6 }

    /// User and system CPU seconds of the process so far.
    package static func cpuSeconds() -> (user: Double, system: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return (
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        )
    }
}

/// What `/proc` says of a running process, and optionally of its descendants, summed: CPU seconds (user and
/// system) and resident memory in MB, now (VmRSS), its private anonymous part (RssAnon: heap and stacks, not the
/// libraries' pages) and its peak (VmHWM). Zeros for a process that is gone.
package struct ProcessSample: Sendable {
    package var cpuSeconds = 0.0
    package var residentMB = 0.0
    package var anonymousMB = 0.0
    package var peakMB = 0.0

    package init(_ pid: Int32, withDescendants: Bool) {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var pending = [pid]
        while let next = pending.popLast() {
            if let stat = try? String(contentsOfFile: "/proc/\(next)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            {
                // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 12 { cpuSeconds += ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks }
            }
            let status = (try? String(contentsOfFile: "/proc/\(next)/status", encoding: .utf8)) ?? ""
            for line in status.split(separator: "\n") {
                let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard parts.count >= 2, let kilobytes = Double(parts[1]) else { continue }
                switch parts[0] {
                case "VmRSS:": residentMB += kilobytes / 1024
                case "RssAnon:": anonymousMB += kilobytes / 1024
                case "VmHWM:": peakMB += kilobytes / 1024
                default: break
                }
            }
            guard withDescendants else { continue }
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(next)/task")) ?? []
            for task in tasks {
                let children =
                    (try? String(contentsOfFile: "/proc/\(next)/task/\(task)/children", encoding: .utf8)) ?? ""
                pending += children.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
            }
        }
    }
}

/// A sound "card" for benchmarks that notes when sound first reaches it (a sample above 64), paced like a
/// device by sleeping `pauseMicroseconds` per period written.
package final class FirstSoundSink: AudioSink, @unchecked Sendable {  // because: `heardAt` is guarded by `lock`
    private let lock = NSLock()
    private var heardAt: UInt64?
    private let pauseMicroseconds: UInt32

    package init(pauseMicroseconds: UInt32 = 2_000) { self.pauseMicroseconds = pauseMicroseconds }

    package var name: String { "timing" }
    package func reset() { lock.withLock { heardAt = nil } }
    /// `DispatchTime` nanoseconds of the first sound since `reset`.
    package var heard: UInt64? { lock.withLock { heardAt } }
    package func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        if samples.contains(where: { abs(Int($0)) > 64 }) {
            lock.withLock { if heardAt == nil { heardAt = DispatchTime.now().uptimeNanoseconds } }
        }
        usleep(pauseMicroseconds)
    }
    package func idle() {}
}

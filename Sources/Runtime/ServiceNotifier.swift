import Foundation

/// systemd's service notifications (the protocol of sd_notify(3), written here): one datagram of
/// `KEY=value` lines to the socket in `NOTIFY_SOCKET`. A unit with `Type=notify` is started once `READY=1`
/// arrives; with `WatchdogSec=` it is restarted when `WATCHDOG=1` stops arriving.
///
/// Outside systemd (no `NOTIFY_SOCKET`) there is no notifier and nothing is sent. The variables are taken out
/// of the environment once read, so the programs the host starts (helpers, ffmpeg) never speak for it.
package final class ServiceNotifier: @unchecked Sendable {  // because: fixed after init; sendto is thread-safe
    /// How often to send `WATCHDOG=1`: half the `WATCHDOG_USEC` systemd gives, as sd_watchdog_enabled(3)
    /// advises; nil when no watchdog is asked for (or it is meant for another process).
    package let watchdogInterval: Double?
    private let descriptor: Int32
    private let address: UnixSocketAddress

    /// The notifier for `environment` (the process's by default), or nil when there is no usable
    /// `NOTIFY_SOCKET`: the path must be absolute or abstract (`@name`) and fit a socket address. The three
    /// variables are taken out of the process's environment either way.
    /// The variables systemd sets for it, which a notifier takes out of the environment.
    package static let variables = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"]

    package static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ServiceNotifier? {
        defer { for name in variables { unsetenv(name) } }
        guard let path = environment["NOTIFY_SOCKET"], path.hasPrefix("/") || path.hasPrefix("@") else {
            return nil
        }
        var interval: Double?
        if let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 {
            let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
            if forUs { interval = Double(microseconds) / 2e6 }
        }
        return ServiceNotifier(socketPath: path, watchdogInterval: interval)
    }

    /// A notifier writing to `socketPath` (`@` first for an abstract socket); nil when it cannot be used.
    package init?(socketPath: String, watchdogInterval: Double? = nil) {
        guard let address = UnixSocketAddress(socketPath) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.address = address
        self.watchdogInterval = watchdogInterval
    }

    deinit { close(descriptor) }

    /// Sends `lines` (`READY=1`, `STATUS=…`) as one datagram; false when systemd could not be reached.
    @discardableResult
    package func send(_ lines: [String]) -> Bool {
        // A status line is one line: a newline inside would start a key of its own.
        let text = lines.map { $0.replacingOccurrences(of: "\n", with: " ") }.joined(separator: "\n")
        let data = Array(text.utf8)
        let sent = address.withSockaddr { socketAddress, length in
            data.withUnsafeBytes { buffer in
                sendto(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, length)
            }
        }
        return sent == data.count
    }

    /// The service is up: `READY=1` with what it is doing.
    package func ready(status: String) { send(["READY=1", "STATUS=\(status)", "MAINPID=\(getpid())"]) }

    /// What the service is doing now, for `systemctl status`.
    package func status(_ text: String) { send(["STATUS=\(text)"]) }

    /// The main loop is alive.
    package func watchdog() { send(["WATCHDOG=1"]) }

    /// The service is ending on purpose (not a failure to restart from).
    package func stopping(status: String) { send(["STOPPING=1", "STATUS=\(status)"]) }
}

/// An `AF_UNIX` socket address for a path, or for an abstract name written `@name`.
package struct UnixSocketAddress: Sendable {
    private let storage: sockaddr_un
    private let length: socklen_t

    /// nil when `path` is empty or does not fit (a path needs room for its NUL; an abstract name is its
    /// bytes exactly).
    package init?(_ path: String) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity || (abstract && bytes.count <= capacity) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        storage = address
        length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr` and its length, for `bind`, `connect` or `sendto`.
    package func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

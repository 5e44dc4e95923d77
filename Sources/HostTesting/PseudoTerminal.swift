import Foundation

/// A program run on a pseudo-terminal of its own, as on a console: it is started as the leader of a new
/// session and opens the terminal as its controlling one, so Ctrl+C, Ctrl+Z and Ctrl+\\ typed here signal it
/// as they would on tty1 (unless it turns them into keys). Bytes are typed into the terminal; what it prints
/// is collected as it comes.
///
/// When the test lets go of it, a program still running is killed with its process group (a kiosk, made to
/// outlive its input, would otherwise run on for the rest of the test run: CI rehearsals found a dozen, one
/// decoding its microphone at a quarter of a core).
package final class PseudoTerminal: TerminalScreen, @unchecked Sendable {  // because: `status` is guarded by `lock`
    private let master: Int32
    package let processIdentifier: pid_t
    private let lock = NSLock()
    private var status: Int32?
    /// What the program printed, filled by the reader thread, which holds this and not the terminal (holding the
    /// terminal, it kept it alive as long as the program ran, and the program as long as the terminal lived).
    private let screen = Printed()

    private final class Printed: @unchecked Sendable {  // because: every field is guarded by `lock`
        let lock = NSLock()
        var bytes = Data()
        var done = false
        /// When each read arrived, and how many bytes had arrived with it.
        var arrivals: [(at: Date, end: Int)] = []
    }

    /// glibc's POSIX_SPAWN_SETSID (spawn.h, with _GNU_SOURCE).
    private static let spawnSetSID: Int16 = 0x80
    /// POSIX_SPAWN_SETSIGDEF.
    private static let spawnSetSigDefault: Int16 = 0x04

    /// F12, as a Linux console and xterm send it.
    package static let f12 = Array("\u{1B}[24~".utf8)

    /// Starts `executable` with `arguments` (and `environment` added) on a new terminal.
    package init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let slave: String
        (master, slave) = try openPseudoTerminal()
        // The child: a new session (setsid), whose first terminal opened becomes its controlling one.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // As a login shell starts a program: the signals this test process ignores (SIGPIPE, for its own pipes)
        // are back to their defaults.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTSTP, SIGTTIN, SIGTTOU] {
            sigaddset(&defaults, number)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Self.spawnSetSID | Self.spawnSetSigDefault)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        let all = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = all.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw CocoaError(.executableLoad) }
        processIdentifier = pid
        // The reader has a descriptor of its own, which it closes: the terminal's may be closed while it reads.
        let descriptor = fcntl(master, F_DUPFD_CLOEXEC, 0)
        let screen = screen
        guard descriptor >= 0 else {
            screen.lock.withLock { screen.done = true }
            return
        }
        Thread { Self.readAll(descriptor, into: screen) }.start()
    }

    deinit {
        if isRunning {
            // The program leads its own session and process group: what it started goes with it.
            kill(-processIdentifier, SIGKILL)
            kill(processIdentifier, SIGKILL)
            _ = waitForExit(timeout: 5)
        }
        close(master)
    }

    private static func readAll(_ descriptor: Int32, into screen: Printed) {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            // EIO once the program and every holder of the terminal are gone.
            guard count > 0 else {
                screen.lock.withLock { screen.done = true }
                return
            }
            let now = Date()
            screen.lock.withLock {
                screen.bytes.append(contentsOf: buffer.prefix(count))
                screen.arrivals.append((now, screen.bytes.count))
            }
        }
    }

    /// True until the program has ended (and been reaped).
    package var isRunning: Bool {
        lock.withLock {
            if status != nil { return false }
            var raw: Int32 = 0
            guard waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier else { return true }
            // WIFEXITED: the low 7 bits are 0; then the status is the next byte. A signal gives 128 + it.
            status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            return false
        }
    }

    /// Everything printed so far, with the terminal's CR LF made LF.
    package var text: String {
        String(decoding: screen.lock.withLock { screen.bytes }, as: UTF8.self).replacingOccurrences(
            of: "\r\n", with: "\n")
    }

    /// The lines printed so far, each with when its end arrived (its newline was read), in order; empty lines and
    /// a last line without its newline are left out.
    package var timedLines: [(text: String, at: Date)] {
        let (bytes, arrivals) = screen.lock.withLock { (screen.bytes, screen.arrivals) }
        var lines: [(String, Date)] = []
        var start = bytes.startIndex
        var arrival = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            while arrival < arrivals.count && arrivals[arrival].end <= index - bytes.startIndex { arrival += 1 }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if !text.isEmpty, arrival < arrivals.count { lines.append((text, arrivals[arrival].at)) }
            start = index + 1
        }
        return lines
    }

    /// Types `bytes` (keys as the terminal sends them).
    package func type(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits up to `timeout` seconds for the program to end, and for what it printed last to be read; its exit
    /// status (128 + the signal that ended it), or nil if it still ran (it is killed then).
    package func waitForExit(timeout: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout * ProcessRunner.timeScale)
        while isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard !isRunning else {
            kill(processIdentifier, SIGKILL)
            while isRunning { Thread.sleep(forTimeInterval: 0.01) }
            return nil
        }
        // What it wrote last is still in the terminal until the reader has drained it.
        let drained = Date().addingTimeInterval(2)
        while !screen.lock.withLock({ screen.done }) && Date() < drained { Thread.sleep(forTimeInterval: 0.01) }
        return lock.withLock { status }
    }
}

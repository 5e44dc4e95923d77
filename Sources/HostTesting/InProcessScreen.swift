import AssistApp
import Foundation
import Interaction
import Runtime

/// The app in process on a terminal of its own, as `PseudoTerminal` runs the built `assist` on one: `assist run …`
/// or `assist shell …` on a thread of this process whose session reads its keys from, and prints its lines and
/// echo to, a pseudo-terminal. So keys are read one at a time as on a console, what asks only at a terminal asks,
/// and the screen reads as a spawned `assist`'s does. What differs: no process, so no signals (`hangUp()` is what
/// SIGHUP is to `assist`), and what the process itself writes to its standard error (the log) is not on it.
package final class InProcessScreen: TerminalScreen, @unchecked Sendable {  // because: its state is `Locked`
    private let master: Int32
    private let slave: Int32
    private let hungUp = TerminalHangUp()
    private let status = Locked<Int32?>(nil)
    private let ended = DispatchSemaphore(value: 0)
    private let screen = Locked(Data())
    private let closing = Locked(false)
    private let readerDone = DispatchSemaphore(value: 0)

    /// Starts `arguments` ("shell" or "run", then the host's options and the feature's, as `assist` takes them)
    /// with `environment` laid over this process's.
    package init(_ arguments: [String], environment: [String: String] = [:]) throws {
        let body = try InProcessApp.body(for: arguments, environment: environment)
        let path: String
        (master, path) = try openPseudoTerminal()
        // Its terminal opened here, as the session's own (not this process's controlling terminal).
        slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard slave >= 0 else {
            close(master)
            throw CocoaError(.fileReadNoPermission)
        }
        let printed = StandardOutput(descriptor: slave)
        let terminal = SessionTerminal(
            input: slave, output: printed, errors: printed, outputIsScreen: true, errorsAreScreen: true,
            echo: { [slave] text in _ = Array(text.utf8).withUnsafeBytes { write(slave, $0.baseAddress, $0.count) } },
            hangUp: hungUp)
        let environment = InProcessApp.merged(environment)
        let (status, ended) = (status, ended)
        let thread = Thread {
            var code: Int32 = 1
            do {
                code = try InProcessApp.exitStatus(errors: printed) { try body(environment, terminal) }
            } catch {
                // Any other error ends `assist` with status 1 and a line saying it: on the screen here too.
                printed.writeLine("\(error)")
            }
            status.withLock { $0 = code }
            ended.signal()
        }
        thread.name = "in-process-screen"
        thread.stackSize = 8 << 20
        thread.start()
        // The reader looks every 100 ms whether the screen is let go of, then closes its descriptor: the terminal's
        // other end closed, the session's console reads the end of its input and stops.
        let (reader, screen, closing, readerDone) = (fcntl(master, F_DUPFD_CLOEXEC, 0), screen, closing, readerDone)
        Thread {
            defer {
                close(reader)
                readerDone.signal()
            }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !closing.withLock({ $0 }) {
                var descriptor = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let count = read(reader, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                screen.withLock { $0.append(contentsOf: buffer.prefix(count)) }
            }
        }.start()
    }

    deinit {
        if isRunning {
            hungUp.hangUp()
            _ = ended.wait(timeout: .now() + 30 * ProcessRunner.timeScale)
        }
        closing.withLock { $0 = true }
        _ = readerDone.wait(timeout: .now() + 2)
        close(master)
        // The terminal itself is left open: the session's console thread may still be reading it (it reads the
        // end now), and closing a descriptor under a read made it fail with a bad descriptor, which traps. One
        // descriptor is left per screen, as the virtual terminal's pipe leaves one per run.
    }

    /// True until the session has ended.
    package var isRunning: Bool { status.withLock { $0 == nil } }

    /// Everything printed so far, with the terminal's CR LF made LF.
    package var text: String {
        String(decoding: screen.withLock { $0 }, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    }

    /// Types `bytes` (keys as the terminal sends them).
    package func type(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// The terminal hangs up: the session ends as `assist` does on SIGHUP.
    package func hangUp() { hungUp.hangUp() }

    /// Waits up to `timeout` seconds for the session to end; the status `assist` would end with, or nil if it
    /// still ran (its terminal is hung up then, and it is given 30 seconds more to end).
    package func waitForExit(timeout: Double = 20) -> Int32? {
        guard ended.wait(timeout: .now() + timeout * ProcessRunner.timeScale) == .success else {
            hungUp.hangUp()
            _ = ended.wait(timeout: .now() + 30 * ProcessRunner.timeScale)
            return nil
        }
        ended.signal()  // for a later wait, and deinit
        // What it printed last is read from the terminal's other end before the status is given: nothing is left
        // to read twice running.
        var quiet = 0
        let deadline = Date().addingTimeInterval(2)
        while quiet < 2 && Date() < deadline {
            var pending: Int32 = 0
            quiet = ioctl(master, UInt(FIONREAD), &pending) == 0 && pending == 0 ? quiet + 1 : 0
            Thread.sleep(forTimeInterval: 0.01)
        }
        return status.withLock { $0 }
    }
}

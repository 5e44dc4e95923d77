import Foundation

/// Signals (SIGTERM from systemd, SIGINT, SIGHUP when the terminal closes) turned into calls on a thread of
/// their own, with no moment in which one is lost.
///
/// A dispatch signal source is armed some time after `resume()`, on libdispatch's own thread, and the usual
/// `signal(SIGTERM, SIG_IGN)` before it (so the default action does not end the process) drops every signal
/// sent in between: 195 of 200 sent right after `resume()` were lost in a test program, and a kiosk stopped by
/// systemd as it started again for the next person ran on. Here the handler is in place when `watch` returns:
/// it writes the signal's number to a pipe (all it may do in a handler), and a thread reads the pipe and calls
/// whoever watches that signal. A byte in a pipe waits to be read, so nothing sent after `watch` is dropped.
package enum SignalWatch {
    /// What a `watch` returns: `cancel` stops the calls. The handler stays, so a later signal of that number is
    /// read and dropped, as an ignored one would be.
    package final class Token: Sendable {
        fileprivate let signal: Int32
        fileprivate let id: Int
        fileprivate init(signal: Int32, id: Int) {
            self.signal = signal
            self.id = id
        }

        package func cancel() { SignalWatch.remove(self) }
    }

    // because: `watchers` and `nextID` are guarded by `lock`; `pipeWriteEnd` is set once, before any handler
    // that reads it is installed
    nonisolated(unsafe) private static var watchers: [Int32: [(id: Int, call: @Sendable () -> Void)]] = [:]
    nonisolated(unsafe) private static var nextID = 0
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1
    private static let lock = NSLock()

    /// The pipe and the thread that reads it, made on first use. False when the system gave no pipe.
    private static let started: Bool = {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return false }
        // Nothing a plugin or helper starts inherits it; and the handler must never block: a full pipe drops
        // the byte (a signal already waiting says the same).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        pipeWriteEnd = ends[1]
        let readEnd = ends[0]
        let reader = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                let calls = lock.withLock { watchers[Int32(byte)] ?? [] }
                for watcher in calls { watcher.call() }
            }
        }
        reader.name = "assist-signals"
        reader.start()
        return true
    }()

    /// Calls `call` on the signal thread each time `number` arrives from now on, until the token is cancelled.
    /// Signals that are not watched keep what they did. Call it from a thread that lasts (the main one).
    package static func watch(_ number: Int32, _ call: @escaping @Sendable () -> Void) -> Token {
        let token = lock.withLock {
            nextID += 1
            watchers[number, default: []].append((nextID, call))
            return Token(signal: number, id: nextID)
        }
        guard started else {
            // No pipe: the signal keeps its default action (it ends the process) rather than being lost.
            return token
        }
        // A program started with the signal blocked (a test runner's thread, some launchers) would never see
        // it: the thread that watches (the main loop's, which lives as long as the process) takes it.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(SignalWatch.pipeWriteEnd, &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(number, &action, nil)
        return token
    }

    fileprivate static func remove(_ token: Token) {
        lock.withLock { watchers[token.signal]?.removeAll { $0.id == token.id } }
    }
}

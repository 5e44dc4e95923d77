import Foundation

/// On a terminal, a crash ends the host at once. Swift's crash backtracer, left to itself there, asks
/// "Press space to interact" for 30 s and then (measured here, a debug build on a pseudo-terminal) did not
/// end within 90 s: a console kiosk would hang until systemd's watchdog, and a person at `assist shell` would
/// wait for nothing. So where standard input or output is a terminal, the fatal signals get a handler that
/// writes one line to standard error and ends the process with the same signal (so the crash mark, the exit
/// status and core dumps stay as they were). Elsewhere (pipes, files, the journal) the backtracer runs as
/// usual and prints its backtrace. A non-empty `SWIFT_BACKTRACE` leaves everything to the backtracer.
package enum CrashExit {
    package static let signals = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

    package static func installOnTerminal() {
        guard (ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"] ?? "").isEmpty, isatty(0) == 1 || isatty(1) == 1
        else {
            return
        }
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                // Only async-signal-safe calls: write(2), signal(2), raise(3).
                CrashExit.message.withUnsafeBufferPointer { _ = write(2, $0.baseAddress, $0.count) }
                signal(number, SIG_DFL)
                raise(number)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)
            sigaction(number, &action, nil)
        }
    }

    /// Made before any crash, so the handler allocates nothing.
    private static let message = Array(
        "assist: crashed; it ends now (the next start says which feature was open). A backtrace: run it with SWIFT_BACKTRACE=enable=yes,interactive=no and its output not on a terminal.\n"
            .utf8)
}

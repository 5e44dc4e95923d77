import AssistCore
import Foundation
import Interaction
import Runtime

/// Where a session's keys come from and its lines go. `assist` gives every session the process's own standard
/// streams (`standard`); a test that drives the app in process gives it a virtual terminal: keys written into
/// a pipe, lines kept in memory, no signals taken from the process.
package struct SessionTerminal: Sendable {
    /// Where keys and typed lines are read from.
    package var input: Int32
    /// Standard output: what is said, as lines (and a data command's rows).
    package var output: any LineOutput
    /// Standard error: a data command's lines for people, and warnings.
    package var errors: any LineOutput
    /// True when `output` (or, for a data command, `errors`) is a screen a person reads beside hearing speech.
    package var outputIsScreen: Bool
    package var errorsAreScreen: Bool
    /// Raw text for a typed line's echo.
    package var echo: @Sendable (String) -> Void
    /// SIGINT, SIGTERM and SIGHUP end a running feature or shell cleanly (the process's own terminal).
    package var takesSignals: Bool
    /// A virtual terminal's hang-up: what SIGHUP is to the process's own terminal (a test that closes it).
    package var hangUp: TerminalHangUp?

    package init(
        input: Int32, output: any LineOutput, errors: any LineOutput, outputIsScreen: Bool = false,
        errorsAreScreen: Bool = false, echo: @escaping @Sendable (String) -> Void = { _ in },
        takesSignals: Bool = false, hangUp: TerminalHangUp? = nil
    ) {
        self.input = input
        self.output = output
        self.errors = errors
        self.outputIsScreen = outputIsScreen
        self.errorsAreScreen = errorsAreScreen
        self.echo = echo
        self.takesSignals = takesSignals
        self.hangUp = hangUp
    }

    /// The process's standard input, output and error, and its signals.
    package static var standard: SessionTerminal {
        SessionTerminal(
            input: STDIN_FILENO, output: StandardOutput(), errors: StandardErrorOutput(),
            outputIsScreen: isatty(STDOUT_FILENO) == 1, errorsAreScreen: isatty(STDERR_FILENO) == 1,
            echo: Console.writeRaw, takesSignals: true)
    }
}

/// A virtual terminal's hang-up: a session ends on it as on SIGHUP, features stopped cleanly. Any thread.
package final class TerminalHangUp: Sendable {
    private let state = Locked<(hungUp: Bool, calls: [@Sendable () -> Void])>((false, []))

    package init() {}

    /// Calls `call` when the terminal hangs up (at once when it already has).
    package func watch(_ call: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if !state.hungUp { state.calls.append(call) }
            return state.hungUp
        }
        if now { call() }
    }

    /// Hangs the terminal up.
    package func hangUp() {
        let calls = state.withLock { state -> [@Sendable () -> Void] in
            state.hungUp = true
            defer { state.calls = [] }
            return state.calls
        }
        calls.forEach { $0() }
    }
}

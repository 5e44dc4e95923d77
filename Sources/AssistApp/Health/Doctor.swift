import Foundation

/// `assist doctor`: every check of the session's folders, plugins, devices, language and voice, a line each on
/// the terminal's output; ends with status 1 when something Assist needs is broken.
package enum Doctor {
    package static func run(
        _ options: HostOptions, environment: [String: String] = ProcessInfo.processInfo.environment,
        terminal: SessionTerminal = .standard
    ) throws {
        let session = try HostSession(
            options: options, interactive: false, environment: environment, terminal: terminal)
        let checks = HealthChecks(session: session)
        var broken = false
        for result in checks.all() {
            terminal.output.writeLine(checks.line(result))
            if result.level == .broken { broken = true }
        }
        if broken { throw ExitStatus(code: 1) }
    }
}

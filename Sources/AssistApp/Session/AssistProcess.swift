import AssistCore
import Foundation
import Logging
import Runtime

/// What belongs to the `assist` process rather than to one session: the logging backend, the environment its
/// plugins and their libraries read, and systemd's notification socket. `main.swift` sets it up once, before
/// any session is made; a `HostSession` only reads it, so a test process can make as many sessions as it likes
/// (each from its own options and environment) without one changing what the next finds.
package enum AssistProcess {
    /// systemd's notifications (`Type=notify`), taken out of the environment by `prepare`; nil elsewhere.
    package static var notifier: ServiceNotifier? { state.withLock { $0.notifier } }
    /// The variables `prepare` took for `notifier`, for a kiosk that starts itself again (exec) to hand on.
    package static var systemdVariables: [(String, String)] { state.withLock { $0.systemdVariables } }
    /// True when log lines go to systemd's journal: notices are kept there, a terminal shows warnings and worse.
    package static var logsToJournal: Bool { state.withLock { $0.logsToJournal } }

    private struct State {
        var prepared = false
        var notifier: ServiceNotifier?
        var systemdVariables: [(String, String)] = []
        var logsToJournal = false
        var logFile: LogFile?
    }
    private static let state = Locked(State())

    /// Sets the process up: called once by `main.swift` with the global options found on the command line
    /// (`--verbose`, `--data-dir`, `--share-dir`), before any session, plugin or thread is started.
    package static func prepare(verbose: Bool, dataDir: String?, shareDir: String?) {
        guard state.withLock({ !$0.prepared }) else { return }
        let environment = ProcessInfo.processInfo.environment
        let paths = AssistPaths.resolve(dataDir: dataDir, shareDir: shareDir, environment: environment)
        // Tesseract's libgomp reads this only when it loads, so it must be set before any plugin is opened.
        setenv("OMP_THREAD_LIMIT", "1", 0)
        // The host's share folder, for plugins that use its shared data (find-object's and photo-sensor's
        // models), in process or in a helper: the one `--share-dir` chose, or the one found from the executable.
        setenv("ASSIST_SHARE_DIR", paths.share.path, 1)
        // Read (and taken out of the environment) before anything is started that could inherit it.
        let taken = ServiceNotifier.variables.compactMap { name in
            environment[name].map { (name, $0) }
        }
        let notifier = ServiceNotifier.fromEnvironment(environment)
        // Under systemd, with standard error going to the journal, lines go to it with their fields.
        let journal = JournalSocket.fromEnvironment(environment)
        // On a terminal a person reads, log lines would fall between the lines Assist says: they go to a file
        // under the data folder instead, unless --verbose asks to see them. A pipe or a file still gets them.
        let file =
            journal == nil && !verbose && isatty(2) == 1
            ? LogFile(folder: paths.data.appendingPathComponent("logs")) : nil
        state.withLock {
            $0 = State(
                prepared: true, notifier: notifier, systemdVariables: taken, logsToJournal: journal != nil,
                logFile: file)
        }
        LoggingSystem.bootstrap { label in
            if let journal { return SinkLogHandler(label: label, level: verbose ? .debug : .notice, sink: journal) }
            if let file { return SinkLogHandler(label: label, level: .notice, sink: file) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
    }

    /// A kiosk's sitting becomes the data folder after `prepare` ran: its log lines go with it (and leave with
    /// it), not into the device's folder. Only before the first line is written.
    package static func logInto(dataFolder: URL) {
        state.withLock { $0.logFile }?.move(to: dataFolder.appendingPathComponent("logs"))
    }
}

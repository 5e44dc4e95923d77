import Foundation
import PluginAPI
import PluginHost

/// Runs one feature until it finishes or the user stops it: `assist run`, and the host commands that pass
/// their words on to a plugin (`assist survey …`).
package enum FeatureRun {
    /// Runs feature `id` with `featureArguments` in a session made from `global` and `environment`, its keys
    /// and lines through `terminal` (the process's own for `assist run`; a virtual one for a test in process).
    package static func run(
        _ global: HostOptions, id: String, arguments featureArguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment, terminal: SessionTerminal = .standard
    ) throws {
        let session = try HostSession(options: global, interactive: true, environment: environment, terminal: terminal)
        for crash in session.watchForCrashes() { session.announcer.say(session.crashNote(crash), priority: .important) }
        let record = try PluginLookup.find(id, in: session)
        let state = RunState()
        session.features.onFeatureEnded = { [loop = session.loop] endedRecord, status in
            guard endedRecord === record else { return }
            state.exitStatus = status == ASSIST_OK ? 0 : 1
            state.ended = true
            loop.stop()
        }
        // Without more input the feature keeps running until it finishes, as under a kiosk or systemd.
        session.dispatcher.onEndOfInput = {}
        // Weak: libdispatch may keep a cancelled source's handler past this function.
        let signals = session.handleSignals { [weak session] in
            state.ended = true
            state.interrupted = true
            session?.features.stopAll()
            session?.loop.stop()
        }
        defer {
            signals.forEach { $0.cancel() }
            session.shutdown()
        }
        session.loop.post {
            if !session.features.activate(record, arguments: featureArguments) {
                state.exitStatus = 1
                state.ended = true
                session.loop.stop()
            }
        }
        session.startView()
        session.startInput()
        let started = DispatchTime.now().uptimeNanoseconds
        while !state.ended { session.loop.run() }
        // A background feature asked to run with no work given, that ends at once with nothing wrong, has nothing
        // to do here (photo-sensor with no folder to watch): said, rather than an exit without a word.
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        if record.manifest?.isBackground == true, featureArguments.isEmpty, state.exitStatus == 0, seconds < 3,
            !state.interrupted
        {
            session.announcer.say(
                session.phrases.text(
                    "host.background-idle",
                    ["name": record.name, "short": record.manifest?.shortName ?? record.id]))
        }
        if state.exitStatus != 0 { throw ExitStatus(code: state.exitStatus) }
    }
}

/// How `assist run` ends; set on the main loop.
private final class RunState: @unchecked Sendable {  // because: read and written only on the main loop thread
    package var exitStatus: Int32 = 0
    package var ended = false
    /// Ended by a signal (Ctrl+C), not by the feature.
    package var interrupted = false
}

/// Finds a plugin by id or short name, or fails with the closest ids.
package enum PluginLookup {
    package static func find(_ id: String, in session: HostSession) throws -> PluginRecord {
        if let exact = session.features.record(id: id) { return exact }
        let short = session.features.records.filter { $0.manifest?.shortName == id || $0.id == "assist.\(id)" }
        if short.count == 1 { return short[0] }
        let suggestions = session.suggestions(for: id)
        let hint =
            suggestions.isEmpty
            ? "Run 'assist plugins list' to see the installed plugins."
            : "Did you mean \(suggestions.joined(separator: ", "))?"
        let message = session.phrases.text("host.unknown-plugin", ["id": id, "hint": hint])
        session.announcer.silence()
        throw CLIFailure(message: message)
    }
}

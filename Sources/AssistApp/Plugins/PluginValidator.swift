import AssistCore
import Foundation
import Interaction
import Logging
import PluginAPI
import PluginHost

/// What `assist plugins check` does after the plugin loads (issue 17): runs it for real in a helper process,
/// against the host's own services in a scratch data folder, twice over: start with no arguments, every
/// command it registered and the host's, pause and resume, stop and destroy, then start with odd arguments
/// and stop again. Each call has the helper's time limit. A crash, hang or protocol breach is a failure named
/// by the call it happened in ("crashed in start (SIGSEGV)"); so is a plugin that cannot be created.
package struct PluginValidator {
    /// One step and how it went.
    package struct Step: Encodable {
        package var step: String
        package var ok: Bool
        package var detail: String?
    }

    package let manifest: URL
    package let libraryDirectory: URL
    package let timeoutSeconds: Double

    package init(manifest: URL, libraryDirectory: URL, timeoutSeconds: Double) {
        self.manifest = manifest
        self.libraryDirectory = libraryDirectory
        self.timeoutSeconds = timeoutSeconds
    }

    /// Arguments no plugin expects: empty, an unknown option, control characters, a long word, non-ASCII.
    package static let oddArguments = [
        "", "--no-such-option", "\u{1}\u{7}\u{1b}[2J", String(repeating: "A", count: 10_000), "📷 кружка 杯子", "-1",
    ]

    /// Runs the plugin; returns the steps in order (the first failure ends the run).
    package func run() throws -> [Step] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "assist-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try AssistPaths.ensurePrivateDirectory(scratch)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let paths = AssistPaths.resolve(dataDir: scratch.path, shareDir: nil)
        let settings = SettingsStore()
        settings.setDefault("plugins.isolated", .list(["*"]))
        settings.setDefault("plugins.helper-timeout-ms", .int(Int64(max(0.1, timeoutSeconds) * 1000)))
        var logger = Logger(label: "assist-check")
        logger.logLevel = .critical
        let folder = manifest.deletingLastPathComponent()
        let entry: PluginSearchPath.Entry =
            libraryDirectory.standardizedFileURL == folder.standardizedFileURL
            ? .installed(folder.deletingLastPathComponent())
            : .development(manifests: folder.deletingLastPathComponent(), libraries: libraryDirectory)
        let output = QuietOutput()
        var configuration = HostAssembly.Configuration(
            paths: paths, settings: settings, language: "en", output: output, speaker: nil,
            searchPath: PluginSearchPath(entries: [entry]), logger: logger)
        configuration.helperExecutable = paths.executable
        let assembly = try HostAssembly(configuration)
        let id = (try? PluginManifest.load(from: manifest))?.id ?? ""
        guard let record = assembly.features.record(id: id) else {
            return [Step(step: "load", ok: false, detail: "the plugin was not found beside its manifest")]
        }
        let run = Run(assembly: assembly, record: record)
        return run.all()
    }

    /// The script, on the host's main loop.
    private final class Run: @unchecked Sendable {  // because: used from one thread, through the main loop
        let assembly: HostAssembly
        let record: PluginRecord
        var steps: [Step] = []
        var crash: String?
        var ended = false

        init(assembly: HostAssembly, record: PluginRecord) {
            self.assembly = assembly
            self.record = record
        }

        var features: FeatureController { assembly.features }

        func all() -> [Step] {
            let events = assembly.services.events
            let subscription = events.subscribe(prefix: "assist.plugin.crashed") { [weak self] _, json in
                let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
                self?.crash = self?.crash ?? (object?["how"] as? String ?? "stopped unexpectedly")
            }
            defer { events.unsubscribe(subscription) }
            features.onFeatureEnded = { [weak self] _, _ in self?.ended = true }
            for round in 1...2 {
                let suffix = round == 1 ? "" : " (again)"
                guard start([], "start with no arguments" + suffix) else { break }
                commands(suffix)
                guard pauseAndResume(suffix), stop("stop and destroy" + suffix) else { break }
                guard start(PluginValidator.oddArguments, "start with odd arguments" + suffix),
                    stop("stop after odd arguments" + suffix)
                else { break }
            }
            features.stopAll()
            return steps
        }

        /// Runs `body` on the loop, lets what it set off run for a moment, and records the step.
        @discardableResult
        func step(_ name: String, _ body: @escaping @Sendable () -> String?) -> Bool {
            let loop = assembly.loop
            let box = StepBox()
            loop.post {
                box.detail = body() ?? ""; box.done = true
            }
            _ = loop.run(until: { box.done }, timeoutSeconds: 120)
            // Timers, posted tasks and callbacks it set off, for a moment.
            _ = loop.run(until: { false }, timeoutSeconds: 0.15)
            if let crash {
                steps.append(Step(step: name, ok: false, detail: crash))
                return false
            }
            steps.append(Step(step: name, ok: true, detail: box.detail.isEmpty ? nil : box.detail))
            return true
        }

        func start(_ arguments: [String], _ name: String) -> Bool {
            ended = false
            return step(name) { [self] in
                let started = features.activate(record, arguments: arguments)
                if !started, crash == nil, record.state != .available, record.state != .loaded {
                    return "refused: \(record.reason ?? record.state.rawValue)"
                }
                return started ? nil : "it did not start (a clean refusal)"
            }
        }

        func commands(_ suffix: String) {
            let router = assembly.interaction.router
            let own = router.allBindings.filter { $0.owner == record.id }.map(\.id)
            let host = ["next", "previous", "faster", "slower", "repeat", "help"]
            for id in own + host {
                guard !ended, record.context?.instance != nil else { return }
                let owner = own.contains(id) ? record.id : CommandRouter.hostOwner
                guard
                    step(
                        "command \(id)" + suffix,
                        { [self] in
                            features.handle(RoutedCommand(id: id, owner: owner))
                            return nil
                        })
                else { return }
            }
        }

        func pauseAndResume(_ suffix: String) -> Bool {
            guard !ended, record.context?.instance != nil else { return crash == nil }
            return step("pause and resume" + suffix) { [self] in
                features.handle(RoutedCommand(id: "pause", owner: CommandRouter.hostOwner))
                features.handle(RoutedCommand(id: "resume", owner: CommandRouter.hostOwner))
                return nil
            }
        }

        func stop(_ name: String) -> Bool {
            step(name) { [self] in
                if record.context?.instance != nil { features.deactivate(record, status: ASSIST_OK) }
                return nil
            }
        }
    }

    private final class StepBox: @unchecked Sendable {  // because: written on the loop, read after it ran
        var detail = ""
        var done = false
    }
}

/// Where the checked plugin's lines go: nowhere (the check prints its own verdict).
private struct QuietOutput: LineOutput {
    package func writeLine(_ line: String) {}
}

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
    /// Only started with no arguments and stopped, once (`plugins install`: what a person does first, in about a
    /// third of a second); otherwise the whole script, twice over (`plugins check`).
    package var firstStartOnly = false

    /// Arguments no plugin expects: empty, an unknown option, control characters, a long word, non-ASCII.
    package static let oddArguments = [
        "", "--no-such-option", "\u{1}\u{7}\u{1b}[2J", String(repeating: "A", count: 10_000), "📷 кружка 杯子", "-1",
    ]

    /// What the plugin used against what its manifest declares, as `plugins check` reports it.
    package struct PermissionReport: Encodable, Equatable {
        /// What the manifest asks for: "camera", "network".
        package var declared: [String] = []
        /// What it used while checked.
        package var used: [String] = []
        /// The servers it sent to.
        package var servers: [String] = []
        /// Declared and not used while checked.
        package var unused: [String] = []
        /// What it asked for and was refused, one sentence each: the services' refusals and its sandbox's.
        package var refused: [String] = []

        init() {}

        init(
            declared: Set<PluginPermission>,
            use: (used: Set<PluginPermission>, servers: Set<String>, refused: Set<Refusal>)
        ) {
            let order = PluginPermission.allCases
            self.declared = order.filter(declared.contains).map(\.rawValue)
            used = order.filter(use.used.contains).map(\.rawValue)
            servers = use.servers.sorted()
            unused = order.filter { declared.contains($0) && !use.used.contains($0) }.map(\.rawValue)
            refused = use.refused.map { refusal in
                switch refusal {
                case .permission(let permission) where !declared.contains(permission):
                    "\(permission.spoken), which its manifest does not declare (add it to \(permission == .network ? "network" : "devices"), or stop asking)"
                case .permission(let permission): "\(permission.spoken), which was turned off"
                case .server(let host): "sending to \(host), a server its manifest's network does not list"
                case .sandbox: PermissionGate.logLine(refusal)
                case .service(let kind): "\(kind.rawValue): \(kind.logLine)"
                }
            }.sorted()
        }
    }

    /// Runs the plugin; returns the steps in order (the first failure ends the run) and what it used.
    package func run() throws -> (steps: [Step], permissions: PermissionReport) {
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
        let entry = PluginSearchPath.Entry.single(manifest: manifest, libraries: libraryDirectory)
        let output = QuietOutput()
        var configuration = HostAssembly.Configuration(
            paths: paths, settings: settings, language: "en", output: output, speaker: nil,
            searchPath: PluginSearchPath(entries: [entry]), logger: logger)
        configuration.helperExecutable = paths.executable
        // The check judges the plugin, not this computer's rules for plugins.
        configuration.policy = AdminPluginPolicy()
        let assembly = try HostAssembly(configuration)
        let id = (try? PluginManifest.load(from: manifest))?.id ?? ""
        guard let record = assembly.features.record(id: id) else {
            return ([Step(step: "load", ok: false, detail: "the plugin was not found beside its manifest")], .init())
        }
        let run = Run(assembly: assembly, record: record, firstStartOnly: firstStartOnly)
        let steps = run.all()
        return (
            steps,
            PermissionReport(
                declared: record.manifest?.declaredPermissions ?? [],
                use: assembly.services.permissionUse.report(id))
        )
    }

    /// The script, on the host's main loop.
    private final class Run: @unchecked Sendable {  // because: used from one thread, through the main loop
        let assembly: HostAssembly
        let record: PluginRecord
        var steps: [Step] = []
        var crash: String?
        var ended = false
        let firstStartOnly: Bool

        init(assembly: HostAssembly, record: PluginRecord, firstStartOnly: Bool) {
            self.assembly = assembly
            self.record = record
            self.firstStartOnly = firstStartOnly
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
            if firstStartOnly {
                if start([], "start with no arguments") { _ = stop("stop and destroy") }
                features.stopAll()
                return steps
            }
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

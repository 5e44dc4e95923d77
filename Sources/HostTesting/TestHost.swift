import AssistCore
import Camera
import Foundation
import Interaction
import Logging
import PluginHost
import Runtime
import Speech

/// Collects every printed line, for assertions.
package final class RecordingOutput: LineOutput, @unchecked Sendable {  // because: `stored` is guarded by `lock`
    private let lock = NSLock()
    private var stored: [String] = []

    package init() {}

    package func writeLine(_ line: String) {
        lock.lock()
        stored.append(line)
        lock.unlock()
    }

    /// Every line so far.
    package var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// Records what would have been spoken.
package final class RecordingSpeaker: Speaker, @unchecked Sendable {  // because: `stored` is guarded by `lock`
    private let lock = NSLock()
    private var stored: [(String, SpeechPriority)] = []
    private var storedLanguages: [String] = []
    private var storedGroups: [SpeechGroup?] = []
    private var storedCancels: [SpeechGroup] = []

    package init() {}

    package func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?) {
        lock.lock()
        stored.append((text, priority))
        storedLanguages.append(language)
        storedGroups.append(group)
        lock.unlock()
    }

    package func cancel(group: SpeechGroup) {
        lock.withLock { storedCancels.append(group) }
    }

    /// The group each utterance was said in, in order (nil for none).
    package var groups: [SpeechGroup?] { lock.withLock { storedGroups } }

    /// The groups stopped, in order.
    package var cancels: [SpeechGroup] { lock.withLock { storedCancels } }

    /// The language each utterance was spoken in, in order.
    package var languages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storedLanguages
    }

    package func stopAll() {}

    /// Every utterance so far.
    package var spoken: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored.map(\.0)
    }
}

/// A complete in-process host for tests: real loader, services and dialogs; output recorded; the test's
/// thread is the main loop while it calls `run`.
package final class TestHost: @unchecked Sendable {  // because: driven from one test thread at a time
    package let loop: MainLoop
    package let output = RecordingOutput()
    package let speaker = RecordingSpeaker()
    package let services: HostServices
    package let features: FeatureController
    package let dispatcher: InputDispatcher
    package let dataDirectory: TemporaryDirectory

    /// Discovers plugins in `pluginDirectories` (installed layout) and builds the services through
    /// `HostAssembly`, as `assist` does, with output and speech recorded; `inHelperProcesses` runs them as
    /// `assist` runs third-party plugins, each in a helper process (issue 17).
    package init(
        pluginDirectories: [URL], language: String = "en", sound: SoundServices = SoundServices(),
        camera: CameraService? = nil, dataDirectory: TemporaryDirectory? = nil,
        settings: SettingsStore = SettingsStore(), inHelperProcesses: Bool = false
    ) throws {
        self.dataDirectory = try dataDirectory ?? TemporaryDirectory("assist-data")
        let share = BuildProducts.packageRoot.appendingPathComponent("share/assist")
        var paths = AssistPaths.resolve(dataDir: self.dataDirectory.url.path, shareDir: share.path)
        paths.developmentRoot = nil
        var logger = Logger(label: "assist-test")
        logger.logLevel = .critical
        var configuration = HostAssembly.Configuration(
            paths: paths, settings: settings, language: language, output: output, speaker: speaker,
            searchPath: PluginSearchPath(entries: pluginDirectories.map { .installed($0) }), logger: logger)
        configuration.sound = sound
        configuration.camera = { _ in camera }
        configuration.workerThreads = 1
        // The plugins found (all third-party here) then run in helper processes of the built `assist`.
        if inHelperProcesses { configuration.helperExecutable = URL(fileURLWithPath: BuildProducts.assist) }
        let assembly = try HostAssembly(configuration)
        loop = assembly.loop
        services = assembly.services
        features = assembly.features
        dispatcher = assembly.dispatcher
    }

    /// Runs `body` on the loop, then runs the loop until `done` or the timeout; returns `done()`.
    @discardableResult
    package func run(
        timeoutSeconds: Double = 5, until done: @escaping @Sendable () -> Bool,
        _ body: @escaping @Sendable () -> Void = {}
    ) -> Bool {
        loop.post(body)
        return loop.run(until: done, timeoutSeconds: timeoutSeconds)
    }

    /// Lets queued work and due timers run for `seconds`.
    package func settle(_ seconds: Double = 0.05) {
        _ = loop.run(until: { false }, timeoutSeconds: seconds)
    }

    /// Sends an input event as the console would.
    package func input(_ event: InputEvent) {
        let dispatcher = self.dispatcher
        loop.post { dispatcher.dispatch(event) }
        settle()
    }
}

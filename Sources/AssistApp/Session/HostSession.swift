import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Kiosk
import Logging
import PluginHost
import PluginPackage
import Runtime
import Speech
import Storage

/// Builds the host's services from the global options and passes them to the parts that need them.
package final class HostSession: @unchecked Sendable {  // because: its mutable parts are used only on the main loop
    package let paths: AssistPaths
    package let settings: SettingsStore
    package let loop: MainLoop
    package let services: HostServices
    package let features: FeatureController
    package let dispatcher: InputDispatcher
    package let console: Console?
    /// Where keys come from and lines go (the process's own streams for `assist`).
    package let terminal: SessionTerminal
    /// The environment the session was made with (the process's for `assist`; a test's own in process): what
    /// it reads from environment variables later (voice's trace and test room) comes from here.
    package let environment: [String: String]
    package let logger: Logger
    /// Events written for `assist events --follow`.
    package private(set) var journal: EventJournal?
    /// The mark of a session that runs features, once `watchForCrashes` set it.
    package private(set) var crashGuard: CrashGuard?
    /// systemd's notifications, when a unit started the host with `Type=notify` (`NOTIFY_SOCKET`).
    package let notifier: ServiceNotifier?
    /// The kiosk's set-up, for `assist kiosk`.
    package let kiosk: KioskConfig?
    /// Sound output (speech and cues), when the command makes sound.
    package let sound: SoundSystem?
    /// The speech engine, when speaking.
    package var speech: (any SpeechEngine)? { sound?.speech }
    package var announcer: Announcer { services.interaction.announcer }
    /// Lines printed for people, for the low-vision view when nothing is spoken.
    package let printedLines: PrintedLines
    /// What `--view` asked for, and the view once it runs (`startView`).
    package let viewRequest: ViewRequest?
    /// What outlives a kiosk's sittings: the kiosk's device folder, else the data folder (the view's token).
    package let deviceFolder: URL
    package private(set) var view: ViewAttachment?
    package var phrases: PhraseBook { services.interaction.phrases }

    /// Sets up every service; `interactive` reads the keyboard. Sound starts only when `sounds` (by default when
    /// speaking) and speech only when `speaks` (by default for interactive sessions), so listing or checking
    /// plugins never opens the sound card, starts espeak-ng or touches the WAV file.
    ///
    /// The session's folders, settings files and plugin folders come from `options` and `environment` (the
    /// process's by default) and nothing else: it changes nothing process-wide (`AssistProcess` holds what
    /// does), so two sessions made in one process are independent. Keys and lines go through `terminal`.
    package init(
        options: HostOptions, interactive: Bool, speaks: Bool? = nil, sounds: Bool? = nil, speechRate: Int? = nil,
        voice: String? = nil, kiosk kioskMode: Bool = false, kioskDevice: URL? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, terminal: SessionTerminal = .standard
    ) throws {
        self.terminal = terminal
        self.environment = environment
        var logger = Logger(label: "assist")
        // The journal keeps notices too (the kiosk's admin events); a terminal shows warnings and worse.
        logger.logLevel = options.verbose ? .debug : AssistProcess.logsToJournal ? .notice : .warning
        self.logger = logger
        let printedLines = PrintedLines()
        self.printedLines = printedLines
        notifier = AssistProcess.notifier

        paths = AssistPaths.resolve(dataDir: options.dataDir, shareDir: options.shareDir, environment: environment)
        deviceFolder = kioskDevice ?? paths.data
        // Private from the start (recordings, answers, speech), and tightened once where an older version was not.
        for folder in [paths.data, paths.cache] {
            do { try AssistPaths.makePrivate(folder) } catch {
                logger.warning("\(folder.path) cannot be made private: \(error.localizedDescription)")
            }
        }
        settings = SettingsStore()
        // The kiosk's --config is the admin's: only its unit file names it.
        let loaded = settings.loadStandardFiles(
            explicit: options.config, explicitIsAdmin: kioskMode, environment: environment)
        if let problem = loaded.errors.first {
            throw CLIFailure(message: "The config file cannot be read: \(problem).")
        }
        var warnings = loaded.warnings
        if kioskMode {
            // The admin menu's choices: one more admin layer, kept with the device's data.
            switch KioskAdminFile(device: kioskDevice ?? paths.data).load() {
            case .success(let entries): settings.apply(entries, admin: true)
            case .failure(let problem): warnings.append(problem.text)
            }
        }
        let kept = SettingsFiles.standard(environment: environment)
        for problem in settings.keep(in: kept) {
            logger.warning("saved settings ignored: \(problem)")
            warnings.append(problem)
        }
        warnings += kept.valueProblems()
        kiosk = kioskMode ? KioskConfig(settings: settings) : nil
        // A kiosk's `view = true` opens the view as `--view` does (docs/kiosk.md); a data command never has one.
        let kioskView = kioskMode && (settings.value("kiosk.view")?.flag ?? false)
        viewRequest = options.dataCommand ? nil : options.view ?? (kioskView ? ViewRequest() : nil)
        let language = try Self.language(option: options.lang, settings: settings, environment: environment)
        let target = try AudioTarget.parse(options.audioOut)
        let speaking = (speaks ?? interactive) && !options.noSpeech
        let deviceLost = AnnouncerBox()
        if sounds ?? speaking {
            sound = try SoundSystem(
                target: target, dataDirectory: paths.data, settings: settings, logger: logger, speaks: speaking,
                wordsPerMinute: speechRate, voice: voice, onDeviceLost: { deviceLost.say(path: $0) })
        } else {
            sound = nil
        }
        if speaking, sound?.speech == nil {
            if let voice {
                throw CLIFailure(
                    message: "There is no espeak-ng voice called \(voice). List them with 'espeak-ng --voices'.")
            }
            logger.warning("espeak-ng could not start; output is printed only. Run 'assist doctor'.")
        }
        var configuration = HostAssembly.Configuration(
            paths: paths, settings: settings, language: language,
            output: WatchedOutput(options.dataCommand ? terminal.errors : terminal.output, watch: printedLines),
            speaker: sound?.speech,
            searchPath: PluginSearchPath.standard(
                paths: paths, pluginDirs: options.pluginDir, environment: environment),
            logger: logger)
        if options.dataCommand { configuration.dataOutput = terminal.output }
        // Lines keep pace with speech where a person sees them beside hearing it: a terminal, speech heard live.
        let screen = options.dataCommand ? terminal.errorsAreScreen : terminal.outputIsScreen
        configuration.pacesLines = sound?.fallbackInUse == nil && screen
        configuration.sound = SoundServices(
            speech: sound?.speech, cues: sound?.cues, clips: sound?.clips, microphone: try Self.microphone(options))
        let (settings, paths) = (self.settings, self.paths)
        configuration.camera = { notices in
            try Self.camera(options, settings: settings, paths: paths, logger: logger, notices: notices)
        }
        console =
            interactive
            ? Console(fileDescriptor: terminal.input, signalKeysAsKeys: kioskMode, echo: terminal.echo) : nil
        configuration.console = console
        if let kiosk { configuration.admit = { id, library in kiosk.refusal(id: id, library: library) } }
        configuration.helperExecutable = options.helperExecutable ?? paths.executable
        let trusted = TrustedKeysOnce(folders: PluginInstaller.trustedKeyFolders)
        configuration.publisher = { record in
            PluginProvenance.describe(record, paths: paths, trusted: trusted).publisher
        }
        let assembly = try HostAssembly(configuration)
        loop = assembly.loop
        services = assembly.services
        features = assembly.features
        // Someone at a terminal is asked, the first time each of Assist's own features starts, for what it uses;
        // a kiosk's features are the admin's choice, and a pipe has nobody to ask.
        features.asksFirstUse =
            console?.isTerminal == true && !kioskMode
            && (settings.value("plugins.ask-first-use")?.flag ?? true)
        dispatcher = assembly.dispatcher
        journal = assembly.journal
        let announcer = assembly.announcer
        let phrases = assembly.phrases
        deviceLost.announcer = announcer
        deviceLost.phrases = phrases
        // Features' declared settings are checked once the features are known.
        var declared: [String: SettingsSchema.Kind] = [:]
        for record in features.records {
            for declaration in record.manifest?.userSettings ?? [] {
                if let kind = UserSetting.schemaKind(declaration) { declared[declaration.key] = kind }
            }
        }
        for file in loaded.files {
            warnings += SettingsSchema.problems(in: file.entries, file: file.path, declared: declared)
        }
        // A value the host cannot use is said once, with where it is; standard output stays the command's own.
        for warning in warnings {
            let line = "Config: \(warning)."
            if speaking {
                announcer.say(line, remember: false)
            } else {
                terminal.errors.writeLine(PlainText.message(line))
            }
        }
        if let file = sound?.fallbackInUse {
            announcer.say(phrases.text("audio.no-sound-card", ["path": file.path]), remember: false)
        }
        features.onFocusChanged = { [weak self] id in self?.focusChanged(to: id) }
        // The watchdog is pinged from the main loop itself: a loop that stops turning stops the pings, and
        // systemd restarts the host (WatchdogSec= in the unit).
        if let notifier, let interval = notifier.watchdogInterval {
            loop.addTimer(milliseconds: UInt32(max(0.01, min(interval, 3600)) * 1000), repeating: true) {
                notifier.watchdog()
            }
        }
    }

    /// Tells systemd the host is up (once): from the main loop's first turn, so a question asked before the
    /// menu (safe mode after a crash) never runs into the unit's start timeout.
    package func notifyReady() {
        guard let notifier, !readySent else { return }
        readySent = true
        notifier.ready(status: "Ready.")
        notifier.watchdog()
    }
    private var readySent = false

    /// Told on the main loop each time the focused feature changes (the view's title and panels).
    package var focusObservers: [(String?) -> Void] = []

    /// The focused feature changed: the crash mark names it, and systemd's status says it.
    private func focusChanged(to id: String?) {
        crashGuard?.focus(id)
        focusObservers.forEach { $0(id) }
        // A feature started or ended outside a key (after a first-use answer, by a timer): its keys are read
        // as keys, the menu's as words.
        dispatcher.syncConsoleMode()
        guard let notifier else { return }
        if let id, let record = features.record(id: id) {
            notifier.status("Running \(record.name).")
        } else {
            notifier.status("Ready.")
        }
    }

    /// Starts the low-vision view when `--view` asked for it (docs/view.md). Main loop, before input starts.
    package func startView() {
        guard let viewRequest, view == nil else { return }
        view = ViewAttachment.start(session: self, request: viewRequest)
    }

    /// Starts reading the keyboard; events are handled on the main loop.
    package func startInput() {
        services.events.publish("assist.host.started", json: #"{"version":"\#(AssistVersion.current.description)"}"#)
        services.outbox.startIfJobsWait()
        notifyReady()
        guard let console else { return }
        let loop = self.loop
        let dispatcher = self.dispatcher
        console.start { event in loop.post { dispatcher.dispatch(event) } }
    }

    /// True the first time `key` is asked for with this data folder, which then keeps `.said-KEY` (0600) so
    /// that what is said once per user (the tour's offer) is not said again.
    package func firstTime(_ key: String) -> Bool {
        let marker = paths.data.appendingPathComponent(".said-\(key)")
        guard !FileManager.default.fileExists(atPath: marker.path) else { return false }
        return FileManager.default.createFile(
            atPath: marker.path, contents: nil, attributes: [.posixPermissions: 0o600])
    }

    /// Speech and cues follow the sound settings as they are now (after the shell's settings changed one).
    package func applySoundSettings() { sound?.apply(settings) }

    /// Marks this process as running features (`<records>/sessions/<pid>.json`, naming the focused one) and
    /// returns how earlier sessions that ended unexpectedly ended (a plugin they turned off is refused at once);
    /// `shutdown` removes the mark.
    package func watchForCrashes() -> [CrashGuard.Crash] {
        let guardian = CrashGuard(data: paths.records)
        let crashes = guardian.collectCrashes()
        // A plugin this collection turned off was still admitted when the features were put together.
        for id in crashes.filter(\.disabled).compactMap(\.plugin) {
            guard let record = features.record(id: id), record.isUsable,
                let reason = guardian.disabledReason(id, library: record.libraryURL)
            else { continue }
            record.refuse(.disabled(reason))
        }
        // The fault's mark is signal handlers, the process's: set by a session on the process's own terminal.
        guardian.begin(markingFaults: terminal.takesSignals)
        crashGuard = guardian
        return crashes
    }

    /// The sentence for an earlier session that ended unexpectedly.
    package func crashNote(_ crash: CrashGuard.Crash) -> String {
        guard let id = crash.plugin else { return phrases.text("host.crashed") }
        let name = features.record(id: id)?.name ?? id
        if crash.disabled {
            return phrases.text("host.crashed-disabled", ["name": name, "id": id])
        }
        return phrases.text("host.crashed-in", ["name": name])
    }

    /// Stops every plugin and puts the terminal back. Queued speech may finish first, up to `drainSeconds`
    /// (by default 10 s for a sound card or a chosen file, 2 s for the fallback file nobody hears live).
    package func shutdown(drainSeconds: Double? = nil) {
        notifier?.stopping(status: "Stopping.")
        view?.stop()
        crashGuard?.end()
        features.stopAll()
        // The commands' hooks may hold the session; they are done with.
        features.onFeatureEnded = nil
        dispatcher.onEndOfInput = {}
        // An exchange under way ends first (its answer stored): cut off, it would be sent again next time.
        services.outbox.stopAndFinishExchanges(timeout: 10)
        if console != nil { services.events.publish("assist.host.stopping") }
        services.camera?.shutdown()
        sound?.shutdown(drainSeconds: drainSeconds ?? (sound?.fallbackInUse == nil ? 10 : 2))
        // What speech did not reach (cut off at the drain's end) is still printed.
        announcer.flush()
        if console != nil {
            // Events are delivered on the main loop; let the last ones reach the journal (no fixed wait).
            loop.drain(timeoutSeconds: 0.5)
            journal?.flush()
        }
        console?.restore()
        loop.discardPending()
    }

    /// Ends the main loop on SIGINT, SIGTERM or SIGHUP (the terminal closed) (or `numbers`), so features stop
    /// cleanly, the session ends as a clean end (never counted as a crash) and the terminal is restored. A
    /// virtual terminal (`SessionTerminal`) takes none of the process's signals: its hang-up does the same.
    package func handleSignals(
        _ numbers: [Int32] = [SIGINT, SIGTERM, SIGHUP], _ onSignal: @escaping @Sendable () -> Void
    ) -> [SignalWatch.Token] {
        let loop = self.loop
        terminal.hangUp?.watch { loop.post(onSignal) }
        guard terminal.takesSignals else { return [] }
        // In place when this returns: a stop sent at once is not lost (SignalWatch says why that matters).
        return numbers.map { number in
            SignalWatch.watch(number) {
                // A plugin's statement that holds the main loop ends at once, so the loop hears the stop.
                if number == SIGTERM || number == SIGHUP { Confinement.stopAll() }
                loop.post(onSignal)
            }
        }
    }

    /// The closest plugin ids to `id`, best first, for "did you mean".
    package func suggestions(for id: String) -> [String] {
        let wanted = id.lowercased()
        return features.records.map { record in
            let names = [record.id, record.manifest?.shortName ?? record.id].map { $0.lowercased() }
            return (record.id, names.map { EditDistance.between(wanted, $0) }.min() ?? Int.max)
        }
        .filter { $0.1 <= max(3, id.count / 2) || $0.0.contains(id) }
        .sorted { $0.1 < $1.1 }
        // One id found in two plugin folders is one suggestion ("Did you mean org.example.hello,
        // org.example.hello?").
        .map(\.0).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        .prefix(3).map { $0 }
    }

    /// The camera service for `--camera`, or the `camera.source` setting, or the automatic choice.
    package static func camera(
        _ options: HostOptions, settings: SettingsStore, paths: AssistPaths, logger: Logger,
        notices: @escaping @Sendable (CameraNotice) -> Void
    ) throws -> CameraService {
        var text = options.camera
        if text == nil, case .string(let configured) = settings.value("camera.source") { text = configured }
        let spec: CameraSpec
        do {
            spec = try text.map(CameraSpec.init) ?? .automatic
        } catch let error as CameraError {
            throw CLIFailure(message: error.message, exitCode: 64)
        }
        if let fps = options.cameraFps, !(0.5...120).contains(fps) {
            throw CLIFailure(message: "--camera-fps must be between 0.5 and 120.", exitCode: 64)
        }
        return CameraService(
            spec: spec, framesPerSecond: options.cameraFps,
            sample: paths.share.appendingPathComponent("camera/sample.jpg"), logger: logger,
            onNotice: notices)
    }

    private static func microphone(_ options: HostOptions) throws -> AudioInputSpec {
        guard let option = options.mic else { return .alsa("default") }
        guard let spec = AudioInputSpec(option) else {
            throw CLIFailure(
                message: "--mic takes alsa, alsa:DEVICE, wav:PATH or live:PATH, not \(option).", exitCode: 64)
        }
        return spec
    }

    private static func language(option: String?, settings: SettingsStore, environment: [String: String]) throws
        -> String
    {
        let supported = ["en", "ru", "zh", "es"]
        if let option {
            guard supported.contains(option) else {
                let message =
                    option.isEmpty
                    ? "--lang takes en, ru, zh or es, and was given an empty value."
                    : "--lang takes en, ru, zh or es, not \(PlainText.value(option, limit: 20))."
                throw CLIFailure(message: message, exitCode: 64)
            }
            return option
        }
        if case .string(let configured) = settings.value("language"), supported.contains(configured) {
            return configured
        }
        let locale = environment["LANG"] ?? ""
        return supported.first { locale.hasPrefix($0) } ?? "en"
    }
}

/// Lets the sound system speak through the announcer, which is built after it.
package final class AnnouncerBox: @unchecked Sendable {  // because: set once on the main thread before any sound plays
    package var announcer: Announcer?
    package var phrases: PhraseBook?

    package func say(path: URL) {
        guard let phrases else { return }
        announcer?.say(phrases.text("audio.device-lost", ["path": path.path]), remember: false)
    }
}

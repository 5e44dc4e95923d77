import AssistCore
import Camera
import Foundation
import Interaction
import Logging
import Runtime
import Speech

/// The one place the host's parts are wired together: `assist shell`, `assist run` and the other commands
/// (through `HostSession`), and the in-process tests (through `TestHost`) all build through it, so what a test
/// exercises is what a user runs. What differs between them is passed in a `Configuration`: where lines go,
/// who speaks, the sound and camera services, the plugin search path.
package final class HostAssembly: @unchecked Sendable {  // because: its parts are used on the main loop only
    /// What a caller chooses; everything else is built the same way for every caller.
    package struct Configuration {
        package var paths: AssistPaths
        package var settings: SettingsStore
        /// "en", "ru" or "zh".
        package var language: String
        /// Where printed lines go (standard output, or a recording in tests).
        package var output: LineOutput
        /// Where printed-only lines go (a data command's rows), when not to `output`.
        package var dataOutput: LineOutput?
        /// Who speaks what is printed; nil when nothing speaks.
        package var speaker: Speaker?
        /// True when printed lines keep pace with speech (`PacedLines`): they go to a terminal and what is
        /// spoken is heard as it is made (a sound card, `--audio-out null` or a chosen file standing for one).
        /// False for a pipe or a file (a script reads them, no screen to keep beside the ear) and when speech
        /// goes only to the file kept because there is no sound card (nobody hears it live): printed at once.
        package var pacesLines = true
        package var sound = SoundServices()
        /// Makes the camera service, given the handler that says camera notices and publishes their events.
        package var camera: (@escaping @Sendable (CameraNotice) -> Void) throws -> CameraService? = { _ in nil }
        package var searchPath: PluginSearchPath
        package var logger: Logger
        package var workerThreads = 2
        /// The keyboard, for interactive sessions.
        package var console: Console?
        /// Why a discovered plugin (id, library) may not be used here, or nil: the kiosk's allowlist. Asked
        /// before any library is opened.
        package var admit: (@Sendable (String, URL) -> String?)?
        /// The admin's plugin rules (`/etc/assist/plugins.d`), asked before any library is opened.
        package var policy = AdminPluginPolicy.load()
        /// A plugin's trusted publisher, for the rules that name publishers (its package's signature).
        package var publisher: (@Sendable (PluginRecord) -> String?)?
        /// The `assist` executable for plugins' helper processes; nil runs every plugin in process.
        package var helperExecutable: URL?

        package init(
            paths: AssistPaths, settings: SettingsStore, language: String, output: LineOutput, speaker: Speaker?,
            searchPath: PluginSearchPath, logger: Logger
        ) {
            self.paths = paths
            self.settings = settings
            self.language = language
            self.output = output
            self.speaker = speaker
            self.searchPath = searchPath
            self.logger = logger
        }
    }

    package let loop = MainLoop()
    package let phrases: PhraseBook
    package let announcer: Announcer
    package let interaction: InteractionServices
    package let services: HostServices
    package let features: FeatureController
    package let dispatcher: InputDispatcher
    /// Events written to `<data>/events.jsonl` for `assist events --follow`.
    package let journal: EventJournal?

    package init(_ configuration: Configuration) throws {
        let logger = configuration.logger
        phrases = PhraseBook(
            directory: configuration.paths.share.appendingPathComponent("host"), language: configuration.language
        ) { key, language in
            logger.info("missing translation \(key) for \(language); using English")
        }
        announcer = Announcer(
            output: configuration.output, data: configuration.dataOutput, speaker: configuration.speaker,
            language: configuration.language, paced: configuration.pacesLines)
        let dialogs = DialogEngine(announcer: announcer, phrases: phrases, loop: loop)
        if let seconds = configuration.settings.value("shell.digit-wait-seconds")?.number, (0.5...10).contains(seconds)
        {
            dialogs.digitPauseMilliseconds = UInt32(seconds * 1_000)
        }
        interaction = InteractionServices(
            announcer: announcer, dialogs: dialogs, phrases: phrases,
            router: CommandRouter(labels: Self.labels(phrases), words: Self.words(phrases)))
        let notices = CameraNotices(announcer: announcer, phrases: phrases)
        services = HostServices(
            loop: loop, workers: WorkerPool(threadCount: configuration.workerThreads), clock: SystemClock(),
            interaction: interaction, settings: configuration.settings, events: EventBus(loop: loop),
            paths: configuration.paths, logger: logger, sound: configuration.sound,
            camera: try configuration.camera { notices.announce($0) })
        notices.events = services.events
        services.helperExecutable = configuration.helperExecutable
        services.policy = configuration.policy
        let records = PluginDiscovery.discover(
            searchPath: configuration.searchPath, availableServices: HostServices.serviceIDs)
        for record in records { record.language = phrases.language }
        // Plugins that crashed Assist and were turned off stay off until `assist plugins reset ID` or an update.
        let crashGuard = CrashGuard(data: configuration.paths.records)
        // And those the user turned off (`assist plugins disable ID`), which are as meant: a notice.
        let choices = PermissionStore(data: configuration.paths.data).load()
        var notAdmitted = Set<String>()
        for record in records where record.isUsable {
            if let reason = crashGuard.disabledReason(record.id, library: record.libraryURL) {
                // Said where it matters (the shell's menu, `plugins list`, starting it), not before every command.
                record.refuse(.disabled(reason))
                notAdmitted.insert(record.id)
            } else if choices[record.id]?.disabled == true {
                record.refuse(.disabled("turned off; assist plugins enable \(record.id) turns it on again"))
                notAdmitted.insert(record.id)
            } else if let reason = configuration.admit?(record.id, record.libraryURL) {
                record.refuse(.disabled(reason))
                notAdmitted.insert(record.id)
            } else if let reason = configuration.policy.refusal(
                id: record.id, publisher: { configuration.publisher?(record) }, author: record.manifest?.author,
                firstParty: PluginSearchPath.isFirstParty(
                    manifest: record.manifestURL, id: record.id, paths: configuration.paths))
            {
                record.refuse(.disabled(reason))
                notAdmitted.insert(record.id)
            }
        }
        if configuration.helperExecutable != nil {
            for record in records {
                record.isolated = Self.runsInHelper(
                    record, settings: configuration.settings, paths: configuration.paths)
            }
        }
        let (announcer, phrases, loop) = (self.announcer, self.phrases, self.loop)
        // Names only: the records hold the plugins' contexts, whose services hold the outbox, which holds this
        // closure.
        let names = Dictionary(records.map { ($0.id, $0.manifest?.name ?? $0.id) }) { first, _ in first }
        // Each job's owner is asked again when it is sent: a permission turned off, an admin who no longer lets
        // plugins have the network, or an update whose manifest dropped that server holds its jobs (kept, not
        // sent, not given up). A job whose plugin is no longer installed was checked when it was queued.
        let grants = Dictionary(
            records.compactMap { record in
                record.manifest.map {
                    (
                        record.id,
                        (
                            $0,
                            PluginSearchPath.isFirstParty(
                                manifest: record.manifestURL, id: record.id, paths: configuration.paths)
                        )
                    )
                }
            }
        ) { first, _ in first }
        let (permissionStore, policy) = (PermissionStore(data: configuration.paths.data), configuration.policy)
        services.outbox.permits = { owner, url in
            guard let (manifest, firstParty) = grants[owner] else { return nil }
            guard permissionStore.granted(manifest, firstParty: firstParty, policy: policy).contains(.network) else {
                return "\(manifest.name) is not given the network now"
            }
            let host = URLComponents(string: url)?.host ?? ""
            return manifest.mayReach(host) ? nil : "\(manifest.name) may not send to \(host) now"
        }
        services.outbox.onDamaged = { text in
            loop.isOnLoop
                ? announcer.say(text, priority: .important) : loop.post { announcer.say(text, priority: .important) }
        }
        services.outbox.onTrouble = { owner, outcome in
            let name = names[owner] ?? owner
            let text =
                outcome.error.map { phrases.text("outbox.gave-up", ["feature": name, "reason": $0]) }
                ?? phrases.text("outbox.refused", ["feature": name, "status": "\(outcome.status ?? 0)"])
            loop.post { announcer.say(text, priority: .important) }
        }
        journal = EventJournal(bus: services.events, dataDirectory: configuration.paths.data)
        features = FeatureController(services: services, records: records)
        dispatcher = InputDispatcher(interaction: interaction, features: features, console: configuration.console)
        // What the admin or the user left out, and what crashed and is off until reset, are known: a notice (in
        // the journal), not a warning on the user's screen before every command.
        for record in records where !record.isUsable {
            let line: Logger.Message = "skipped \(record.id): \(record.reason ?? record.state.rawValue)"
            if notAdmitted.contains(record.id) { logger.notice(line) } else { logger.warning(line) }
        }
    }

    /// Where `record` runs (docs/plugin-isolation.md): the admin's `plugins.isolated` and `plugins.in-process`
    /// lists first ("*" in the first takes every plugin), then third-party plugins in a helper process and
    /// Assist's own in process, unless the manifest asks for `"isolation": "process"`.
    package static func runsInHelper(_ record: PluginRecord, settings: SettingsStore, paths: AssistPaths) -> Bool {
        func list(_ key: String) -> [String] {
            if case .list(let items) = settings.value(key) { return items }
            return settings.value(key).map { $0.description.split(separator: ",").map(String.init) } ?? []
        }
        let isolated = list("plugins.isolated")
        if isolated.contains(record.id) { return true }
        if list("plugins.in-process").contains(record.id) { return false }
        if isolated.contains("*") { return true }
        if record.manifest?.isolation == "process" { return true }
        return PluginSearchPath.origin(of: record.manifestURL, id: record.id, paths: paths) != "first-party"
    }

    /// What is typed or said for the host's own commands in the session's language (`words.<id>`, "|" between
    /// them), before the English words every session takes.
    private static func words(_ phrases: PhraseBook) -> [String: [String]] {
        Dictionary(
            uniqueKeysWithValues: hostCommands.compactMap { id in
                phrases.lookup("words.\(id)").map { (id, $0.split(separator: "|").map(String.init)) }
            })
    }

    /// The words of the host's own commands in the session's language, for help and the command list.
    private static func labels(_ phrases: PhraseBook) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: hostCommands.compactMap { id in phrases.lookup("command.\(id)").map { (id, $0) } })
    }

    /// The host's own commands, as their phrase keys name them (`command.<id>`, `words.<id>`).
    private static let hostCommands = [
        "next", "previous", "pause", "resume", "faster", "slower", "repeat", "stop", "help",
        CommandRouter.typeCommand, CommandRouter.whatCanISay, CommandRouter.tutorial,
    ]
}

/// Turns camera notices into spoken lines and `assist.camera.*` events.
final class CameraNotices: @unchecked Sendable {  // because: `events` is set once before any camera opens
    let announcer: Announcer
    let phrases: PhraseBook
    var events: EventBus?

    init(announcer: Announcer, phrases: PhraseBook) {
        self.announcer = announcer
        self.phrases = phrases
    }

    func announce(_ notice: CameraNotice) {
        switch notice {
        case .usingSample(let reason):
            announcer.say(phrases.text("camera.using-sample", ["reason": reason]), remember: false)
            events?.publish("assist.camera.sample", json: nil)
        case .lost(let name):
            announcer.say(phrases.text("camera.lost", ["name": name]), priority: .important, remember: false)
            events?.publish("assist.camera.lost", json: nil)
        case .back(let name):
            announcer.say(phrases.text("camera.back", ["name": name]), priority: .important, remember: false)
            events?.publish("assist.camera.back", json: nil)
        case .ended(let name):
            announcer.say(phrases.text("camera.ended", ["name": name]), remember: false)
            events?.publish("assist.camera.ended", json: nil)
        case .problem(let text):
            announcer.say(text, remember: false)
        }
    }
}

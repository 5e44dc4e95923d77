import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech

/// The host's shared services, built once by `HostAssembly`. Plugins never see this object: each gets a
/// `PluginServices` bound to it (`plugin(_:directory:)`), and the host's own commands use the members
/// directly (the shell's menu, `assist outbox`, the camera test).
package final class HostServices: @unchecked Sendable {  // because: its members are immutable or synchronise themselves
    package let loop: MainLoop
    package let workers: WorkerPool
    package let clock: MonotonicClock
    package let interaction: InteractionServices
    package let settings: SettingsStore
    package let events: EventBus
    package let paths: AssistPaths
    package let logger: Logger
    /// Speech, cues and the microphone.
    package let sound: SoundServices
    /// The camera, opened when the first plugin subscribes; nil when the command uses none.
    package let camera: CameraService?
    /// The HTTP outbox, opened when first used.
    package let outbox: OutboxHub
    /// The `assist` executable that runs plugins' helper processes; nil runs every plugin in process (the
    /// in-process tests, whose executable is the test runner).
    package var helperExecutable: URL?
    /// The admin's plugin rules: what users may grant plugins that are not Assist's own.
    package var policy = AdminPluginPolicy()
    /// What each plugin used and was refused (`assist plugins check` reports it).
    package let permissionUse = PermissionUse()
    /// Receives `session.finish` calls; set by the feature controller.
    package weak var sessionDelegate: SessionDelegate?

    package init(
        loop: MainLoop, workers: WorkerPool, clock: MonotonicClock, interaction: InteractionServices,
        settings: SettingsStore, events: EventBus, paths: AssistPaths, logger: Logger,
        sound: SoundServices = SoundServices(), camera: CameraService? = nil
    ) {
        self.sound = sound
        self.camera = camera
        self.loop = loop
        self.workers = workers
        self.clock = clock
        self.interaction = interaction
        self.settings = settings
        self.events = events
        self.paths = paths
        self.logger = logger
        outbox = OutboxHub(paths: paths, settings: settings, loop: loop, logger: logger)
        outbox.events = events
    }

    /// The service ids this host serves.
    package static var serviceIDs: Set<String> { Set(ServiceTables.byID.keys) }

    private let ownerLock = NSLock()
    nonisolated(unsafe) private var lastOwner = 0

    /// A new number identifying one plugin as the owner of speech. Any thread.
    func nextOwnerNumber() -> Int {
        ownerLock.withLock {
            lastOwner += 1
            return lastOwner
        }
    }

    /// The services of the plugin `manifest` describes, served in this process. `directory` is the plugin's
    /// folder: its own `share/` there wins over the host's `share/<short name>`.
    package func plugin(_ manifest: PluginManifest, directory: URL) -> PluginServices {
        var logger = logger
        logger[metadataKey: "plugin"] = .string(manifest.id)
        let ownShare = directory.appendingPathComponent("share")
        let folders = PluginFolders.of(
            manifest.id, paths: paths,
            share: FileManager.default.fileExists(atPath: ownShare.path)
                ? ownShare : paths.share.appendingPathComponent(manifest.shortName))
        let dialogs = LocalDialogs(owner: manifest.id, interaction: interaction, loop: loop)
        let firstParty = PluginSearchPath.isFirstParty(
            manifest: directory.appendingPathComponent("manifest.json"), id: manifest.id, paths: paths)
        let permissions = PermissionGate(
            manifest: manifest,
            granted: PermissionStore(data: paths.data).granted(manifest, firstParty: firstParty, policy: policy),
            logger: logger, use: permissionUse
        ) { [interaction, loop] refusal in
            let text = Self.refusalText(refusal, name: manifest.name, phrases: interaction.phrases)
            // At once on the main loop (a refusal found as the feature ends is said before the command exits).
            let say: @Sendable () -> Void = { interaction.announcer.say(text, priority: .important, remember: false) }
            if loop.isOnLoop { say() } else { loop.post(say) }
        }
        return PluginServices(
            logger: logger,
            session: LocalSession(
                hub: self, language: interaction.phrases.language, folders: folders, owner: manifest.id),
            loop: LocalLoop(loop: loop, workers: workers),
            clock: LocalClock(clock: clock, loop: loop),
            dialogs: dialogs,
            commands: LocalCommands(owner: manifest.id, interaction: interaction),
            events: LocalEvents(bus: events, owner: manifest.id, ownNamesOnly: !firstParty),
            settings: LocalSettings(store: settings, namespaces: manifest.writableNamespaces),
            speech: LocalSpeech(
                engine: sound.speech, owner: nextOwnerNumber(), announcer: interaction.announcer,
                ids: { [weak self] in self?.nextOwnerNumber() ?? 0 }),
            cues: LocalCues(player: sound.cues),
            playback: LocalPlayback(player: sound.clips),
            microphone: LocalMicrophone(spec: sound.microphone, use: sound.microphoneUse, permissions: permissions),
            camera: LocalCamera(service: camera, owner: manifest.id, permissions: permissions),
            storage: LocalStorage(
                folders: folders, settings: settings, dialogs: dialogs, featureName: manifest.name),
            outbox: LocalOutbox(hub: outbox, owner: manifest.id, permissions: permissions),
            permissions: permissions)
    }

    /// What the user hears when `name` was refused something.
    static func refusalText(_ refusal: Refusal, name: String, phrases: PhraseBook) -> String {
        switch refusal {
        case .permission(let permission): return phrases.text("plugin.refused-\(permission.rawValue)", ["name": name])
        case .server(let host): return phrases.text("plugin.refused-server", ["name": name, "host": host])
        case .sandbox(let kinds):
            return kinds.kinds.map { kind in
                let key =
                    switch kind {
                    case .network: "plugin.refused-socket"
                    case .program: "plugin.refused-program"
                    case .process: "plugin.refused-process"
                    default: "plugin.refused-system"
                    }
                return phrases.text(key, ["name": name])
            }.joined(separator: " ")
        case .service(let kind): return phrases.text("plugin.refused-\(kind.rawValue)", ["name": name])
        }
    }
}

/// The sound services plugins reach: speech (nil when speech is off: text is then printed only), cues (nil
/// when the command makes no sound) and where the microphone is.
package struct SoundServices: Sendable {
    package var speech: (any SpeechEngine)?
    package var cues: CuePlayer?
    /// Plays plugins' own recordings back (nil when the command makes no sound).
    package var clips: ClipPlayer?
    package var microphone: AudioInputSpec
    /// Whether a plugin records from the microphone now.
    package let microphoneUse = MicrophoneUse()

    package init(
        speech: (any SpeechEngine)? = nil, cues: CuePlayer? = nil, clips: ClipPlayer? = nil,
        microphone: AudioInputSpec = .alsa("default")
    ) {
        self.speech = speech
        self.cues = cues
        self.clips = clips
        self.microphone = microphone
    }
}

/// What the user talks with: the announcer, the dialogs and the command table. Used on the main loop.
// because: `router` is used only on the main loop; the rest is thread-safe
package final class InteractionServices: @unchecked Sendable {
    package let announcer: Announcer
    package let dialogs: DialogEngine
    package let phrases: PhraseBook
    package var router: CommandRouter
    private let dictationLock = NSLock()
    private var dictationLanguages: Set<String> = []

    /// The languages voice dictation can be taken in now (set by the voice session). Any thread.
    package var dictation: Set<String> {
        get { dictationLock.withLock { dictationLanguages } }
        set { dictationLock.withLock { dictationLanguages = newValue } }
    }

    package init(announcer: Announcer, dialogs: DialogEngine, phrases: PhraseBook, router: CommandRouter) {
        self.announcer = announcer
        self.dialogs = dialogs
        self.phrases = phrases
        self.router = router
    }
}

/// Told when a feature says it is done.
package protocol SessionDelegate: AnyObject, Sendable {
    /// The plugin `owner`'s feature called `session.finish(status)`. Called on the main loop, after the
    /// plugin's call returned.
    func featureFinished(owner: String, status: Int32)
}

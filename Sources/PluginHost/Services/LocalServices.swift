import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Outbox
import Runtime
import Speech
import Storage

// The in-process serving of `PluginServices`: each type binds one plugin to one of the host's shared objects.

struct LocalSession: SessionProviding {
    weak var hub: HostServices?
    let language: String
    let folders: PluginFolders
    let owner: String

    func finish(status: Int32) {
        guard let hub else { return }
        let owner = owner
        hub.loop.post { [weak hub] in hub?.sessionDelegate?.featureFinished(owner: owner, status: status) }
    }
}

struct LocalLoop: LoopProviding {
    let loop: MainLoop
    let workers: WorkerPool

    var isOnMain: Bool { loop.isOnLoop }
    func post(_ work: @escaping @Sendable () -> Void) { loop.post(work) }
    func runOnWorker(_ work: @escaping @Sendable () -> Void) { workers.schedule(work) }
}

struct LocalClock: ClockProviding {
    let clock: MonotonicClock
    let loop: MainLoop

    func nowNs() -> UInt64 { clock.nowNs() }
    func wallMs() -> Int64 { clock.wallMs() }
    func addTimer(milliseconds: UInt32, repeating: Bool, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        loop.addTimer(milliseconds: milliseconds, repeating: repeating, fire)
    }
    func cancelTimer(_ id: UInt64) { loop.cancelTimer(id) }
}

struct LocalDialogs: DialogProviding {
    let owner: String
    let interaction: InteractionServices
    let loop: MainLoop

    func say(_ text: String, priority: SpeechPriority) { interaction.announcer.say(text, priority: priority) }
    func open(_ request: DialogRequest, answer: @escaping (DialogAnswer) -> Void) -> UInt64 {
        interaction.dialogs.open(request, owner: owner, completion: answer)
    }
    func cancel(_ id: UInt64) -> Bool { interaction.dialogs.cancel(id) }
    func cancelAll() { interaction.dialogs.cancelAll(owner: owner) }
    func sayPhrase(_ key: String, _ values: [String: String], priority: SpeechPriority) {
        let text = interaction.phrases.text(key, values)
        let announcer = interaction.announcer
        loop.post { announcer.say(text, priority: priority) }
    }
}

struct LocalCommands: CommandProviding {
    let owner: String
    let interaction: InteractionServices

    func register(_ binding: CommandBinding) throws(RouterError) {
        var owned = binding
        owned.owner = owner
        try interaction.router.register(owned)
    }
    func unregister(_ id: String) { interaction.router.unregister(owner: owner, id: id) }
    func unregisterAll() { interaction.router.unregister(owner: owner) }
    func setChoices(phrase: String, prompt: String?, choices: [String]) throws(RouterError) {
        try interaction.router.setChoices(
            ArgumentChoices(phrase: phrase, prompt: prompt, choices: choices, owner: owner))
    }
    func setConfirmation(id: String, question: String?) {
        interaction.router.setConfirmation(owner: owner, id: id, question: question)
    }
    func dictationAvailable(language: String) -> Bool { interaction.dictation.contains(language) }
}

struct LocalEvents: EventProviding {
    let bus: EventBus

    func publish(_ name: String, json: String?) -> Bool { bus.publish(name, json: json) }
    func subscribe(prefix: String, _ handler: @escaping @Sendable (String, String) -> Void) -> UInt64 {
        bus.subscribe(prefix: prefix, handler)
    }
    func unsubscribe(_ id: UInt64) { bus.unsubscribe(id) }
}

struct LocalSettings: SettingsProviding {
    let store: SettingsStore
    let namespaces: [String]

    func value(_ key: String) -> SettingValue? {
        store.value(SettingsStore.qualify(key, namespaces: namespaces))
    }

    func set(_ key: String, _ value: SettingValue) throws(PluginSettingsError) {
        let name = SettingsStore.qualify(key, namespaces: namespaces)
        let namespace = name.split(separator: ".").first.map(String.init) ?? ""
        guard namespaces.contains(namespace) else { throw .outsideNamespace(name) }
        do {
            try store.set(name, value)
        } catch .locked {
            throw .locked
        } catch {
            throw .io
        }
    }
}

struct LocalSpeech: SpeechProviding {
    let engine: (any SpeechEngine)?
    /// Identifies the plugin to the engine.
    let owner: Int
    let announcer: Announcer
    /// Ids for utterances that are only printed (speech off), apart from the engine's.
    let ids: @Sendable () -> Int

    func speak(_ utterance: Utterance, prints: Bool, callbacks: SpeechCallbacks) -> UInt64? {
        if prints { announcer.print(utterance.text) }
        guard let engine else {
            // Speech is off: the printed line is all there is, and the utterance is over at once.
            let id = UInt64(ids()) | 1 << 63
            callbacks.onDone?(id, .finished)
            return id
        }
        var owned = utterance
        owned.owner = owner
        return engine.speak(owned, callbacks: callbacks)
    }

    func stop(_ id: UInt64) -> Bool { engine?.stop(id: id, owner: owner) ?? false }
    func cancelAll() { _ = engine?.cancel(owner: owner) }
    func pause() -> Bool { engine?.pause(owner: owner) ?? false }
    func resume() { engine?.resume(owner: owner) }
    var isSpeaking: Bool { engine?.isSpeaking ?? false }
    func print(_ line: String) { announcer.print(line) }

    func release() {
        guard let engine else { return }
        engine.detach(owner: owner)
        // Speech left paused would start again later, out of context: drop it. The rest may finish.
        if engine.isPaused(owner: owner) { _ = engine.cancel(owner: owner) }
        engine.resume(owner: owner)
    }
}

struct LocalCues: CueProviding {
    let player: CuePlayer?

    func play(_ earcon: Earcon, gain: Double, pan: Double) { player?.play(earcon, gain: gain, pan: pan) }
    func guidance(_ pattern: CuePattern, intensity: Double, pan: Double, pitchHz: Double?) {
        player?.guidance(pattern, intensity: intensity, pan: pan, pitchHz: pitchHz)
    }
    func stop() { player?.stop() }
    var enabled: Bool { player?.currentSettings.enabled ?? false }
}

struct LocalPlayback: PlaybackProviding {
    let player: ClipPlayer?

    func play(_ clip: WavFile, gain: Double) { player?.play(clip, gain: gain) }
    func stop() { player?.stop() }
    var isPlaying: Bool { player?.isPlaying ?? false }
}

struct LocalMicrophone: MicrophoneProviding {
    let spec: AudioInputSpec

    func open(format: AudioFormat) throws -> AudioInput { try spec.open(format: format) }
}

/// The plugin's one camera subscription.
final class LocalCamera: CameraProviding, @unchecked Sendable {  // because: `subscription` is main-loop only
    let service: CameraService?
    let owner: String
    private var subscription: UInt64?

    init(service: CameraService?, owner: String) {
        self.service = service
        self.owner = owner
    }

    func subscribe(_ request: SubscriptionRequest, deliver: @escaping @Sendable (Frame) -> Void) throws {
        guard let service else { throw CameraError.missing("(none)", cause: "no camera service") }
        if let subscription {
            service.update(subscription, request)
            return
        }
        subscription = try service.subscribe(owner: owner, request: request, handler: deliver)
    }

    @discardableResult
    func unsubscribe() -> Bool {
        guard let subscription else { return false }
        self.subscription = nil
        service?.unsubscribe(subscription)
        return true
    }

    var isSubscribed: Bool { subscription != nil }

    func control(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)? { service?.control(name) }

    func statistics() -> SubscriberStats? {
        service?.statistics().subscribers.first { $0.0 == owner }?.1
    }
}

/// The plugin's databases (opened once each) and media store.
final class LocalStorage: StorageProviding, @unchecked Sendable {  // because: `databases`, `lastSaid` under `lock`
    let folders: PluginFolders
    let settings: SettingsStore
    let dialogs: any DialogProviding
    let featureName: String
    private let lock = NSLock()
    private var databases: [String: PluginDatabase] = [:]
    private var lastSaid: [StorageError.Code: Double] = [:]

    init(folders: PluginFolders, settings: SettingsStore, dialogs: any DialogProviding, featureName: String) {
        self.folders = folders
        self.settings = settings
        self.dialogs = dialogs
        self.featureName = featureName
    }

    func openDatabase(_ name: String) throws(StorageError) -> PluginDatabase {
        let allowed = name.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_"
        }
        guard !name.isEmpty, name.count <= 64, allowed else { throw .badPath(name) }
        lock.lock()
        defer { lock.unlock() }
        if let open = databases[name] { return open }
        do { try AssistPaths.ensurePrivateDirectory(folders.data) } catch {
            throw .io("Creating \(folders.data.path)", cause: error.localizedDescription)
        }
        let database = try PluginDatabase(url: folders.data.appendingPathComponent("\(name).sqlite"))
        databases[name] = database
        return database
    }

    /// `<data>/media`, cache `<cache>`, quota from `storage.quota-mb` (default 4096 MB).
    var media: MediaStore {
        var megabytes: Int64 = 4_096
        if let configured = settings.value("storage.quota-mb")?.integer, configured > 0 { megabytes = configured }
        return MediaStore(
            media: folders.data.appendingPathComponent("media"), cache: folders.cache,
            quotaBytes: megabytes * 1_048_576)
    }

    func sayIfUserMustAct(_ error: StorageError) {
        guard error.code == .full || error.code == .quota else { return }
        let now = ProcessInfo.processInfo.systemUptime
        let due = lock.withLock {
            if let last = lastSaid[error.code], now - last < 60 { return false }
            lastSaid[error.code] = now
            return true
        }
        guard due else { return }
        dialogs.sayPhrase("storage.trouble", ["feature": featureName, "message": error.message], priority: .important)
    }
}

struct LocalOutbox: OutboxProviding {
    let hub: OutboxHub
    let owner: String

    func enqueue(_ request: OutboxRequest, maxAttempts: Int) throws -> Int64 {
        try hub.enqueue(owner: owner, request: request, maxAttempts: maxAttempts)
    }
    func sendNow(_ request: OutboxRequest) throws -> Int64 { try hub.sendNow(owner: owner, request: request) }
    func setHandler(_ handler: OutboxHub.Handler?) { hub.setHandler(owner: owner, handler) }
    func forgetHandler() { hub.forget(owner: owner) }
    func acknowledge(_ job: Int64) -> Bool { (try? hub.store().acknowledge(job, owner: owner)) == true }
    func cancel(_ job: Int64) -> Bool { (try? hub.store().cancel(job, owner: owner)) == true }

    func pending() -> Int? {
        guard let store = try? hub.store(), let jobs = try? store.jobs() else { return nil }
        // Jobs waiting or being sent, and outcomes not yet handled by the plugin: a plugin that starts new work
        // only at 0 never races a finished job whose outcome is still on its way to it.
        let outcomes = (try? store.outcomes(owner: owner))?.count ?? 0
        return jobs.filter { $0.job.owner == owner }.count + outcomes
    }

    func isOnline(_ host: String) -> Bool { Connectivity.isReachable(host: host) }
}

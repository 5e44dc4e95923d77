import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Speech
import Storage

/// Everything one plugin may ask of the host, one protocol per service table. The C adapters
/// (`ServiceTables`) turn a plugin's calls into calls on these and reach nothing else.
///
/// Each value is bound to its plugin: speech stops only the plugin's own utterances, dialogs and commands
/// carry its id, settings are read and written in its namespaces, uploads are its own. So a service never
/// takes an owner argument, and the same contract can be served by something other than this process's
/// objects: `HostServices.plugin(_:directory:)` serves it in process; a helper process that runs a plugin
/// apart from the host (issue 17) gives `PluginContext` values of its own that forward to the host.
///
/// Threads: each requirement says where it may be called. The C adapters check the ABI's thread tags before
/// calling, so a provider may rely on them.
package struct PluginServices: Sendable {
    /// Where the plugin's log lines go, tagged with its id.
    package var logger: Logger
    package var session: any SessionProviding
    package var loop: any LoopProviding
    package var clock: any ClockProviding
    package var dialogs: any DialogProviding
    package var commands: any CommandProviding
    package var events: any EventProviding
    package var settings: any SettingsProviding
    package var speech: any SpeechProviding
    package var cues: any CueProviding
    package var playback: any PlaybackProviding
    package var microphone: any MicrophoneProviding
    package var camera: any CameraProviding
    package var storage: any StorageProviding
    package var outbox: any OutboxProviding

    /// Gives back what the plugin holds for its whole run in every service (dialogs, commands, its outbox
    /// handler, speech), as it stops. Main loop.
    package func releaseAll() {
        dialogs.cancelAll()
        commands.unregisterAll()
        outbox.forgetHandler()
        speech.release()
    }
}

/// The plugin's three folders: private data and cache (made 0700 on first use), and its read-only share.
package struct PluginFolders: Sendable {
    package var data: URL
    package var cache: URL
    package var share: URL

    package init(data: URL, cache: URL, share: URL) {
        self.data = data
        self.cache = cache
        self.share = share
    }
}

/// assist.session/1: the plugin's language and folders, and how it says it is done.
package protocol SessionProviding: Sendable {
    /// The session's language ("en", "ru" or "zh").
    var language: String { get }
    var folders: PluginFolders { get }
    /// The feature is done with `status` (0 is success). Main loop; acted on after the plugin's call returns.
    func finish(status: Int32)
}

/// The main loop and the worker pool (assist.worker/1, assist.thread-check/1).
package protocol LoopProviding: Sendable {
    /// True on the host's main loop. Any thread.
    var isOnMain: Bool { get }
    /// Runs `work` on the main loop, in order. Any thread.
    func post(_ work: @escaping @Sendable () -> Void)
    /// Runs `work` on a worker thread. Any thread.
    func runOnWorker(_ work: @escaping @Sendable () -> Void)
}

/// assist.clock/1.
package protocol ClockProviding: Sendable {
    /// Monotonic nanoseconds. Any thread.
    func nowNs() -> UInt64
    /// Wall-clock milliseconds since 1970. Any thread.
    func wallMs() -> Int64
    /// Runs `fire` on the main loop after `milliseconds`, and again every `milliseconds` when `repeating`;
    /// returns the timer's id. Main loop.
    func addTimer(milliseconds: UInt32, repeating: Bool, _ fire: @escaping @Sendable () -> Void) -> UInt64
    /// Cancels a timer. Main loop.
    func cancelTimer(_ id: UInt64)
}

/// assist.dialog/1: questions asked and lines said for the plugin.
package protocol DialogProviding: Sendable {
    /// Says and prints `text`. Any thread.
    func say(_ text: String, priority: SpeechPriority)
    /// Asks `request`; `answer` runs on the main loop once. Returns the dialog's id. Main loop.
    func open(_ request: DialogRequest, answer: @escaping (DialogAnswer) -> Void) -> UInt64
    /// Withdraws one of the plugin's dialogs; false for an unknown id. Main loop.
    func cancel(_ id: UInt64) -> Bool
    /// Withdraws all of them. Main loop.
    func cancelAll()
    /// Says `key` from the host's phrase book with `values` filled in, as `priority` (host sentences about
    /// the plugin, such as a full disk). Any thread.
    func sayPhrase(_ key: String, _ values: [String: String], priority: SpeechPriority)
}

/// assist.input/1: the plugin's commands.
package protocol CommandProviding: Sendable {
    /// Registers a command owned by the plugin. Main loop.
    func register(_ binding: CommandBinding) throws(RouterError)
    /// Removes one of its commands. Main loop.
    func unregister(_ id: String)
    /// Removes all of them. Main loop.
    func unregisterAll()
    /// Sets the closed list of words that may follow `phrase` (none: removes it). Main loop.
    func setChoices(phrase: String, prompt: String?, choices: [String]) throws(RouterError)
    /// Asks `question` before the plugin's command `id` acts (nil: no longer). Main loop.
    func setConfirmation(id: String, question: String?)
    /// True when voice dictation can be taken in `language` now. Any thread.
    func dictationAvailable(language: String) -> Bool
}

/// assist.events/1.
package protocol EventProviding: Sendable {
    /// Publishes an event; false when `json` is not valid JSON. Any thread.
    func publish(_ name: String, json: String?) -> Bool
    /// Calls `handler` on the main loop for each event whose name starts with `prefix`. Main loop.
    func subscribe(prefix: String, _ handler: @escaping @Sendable (String, String) -> Void) -> UInt64
    /// Main loop.
    func unsubscribe(_ id: UInt64)
}

/// assist.settings/1, in the plugin's namespaces (a bare key is the plugin's own).
package protocol SettingsProviding: Sendable {
    /// The value of `key`, or nil when nothing sets it. Any thread.
    func value(_ key: String) -> SettingValue?
    /// Saves `key`; `.outsideNamespace` for a key of another plugin's. Main loop.
    func set(_ key: String, _ value: SettingValue) throws(PluginSettingsError)
}

/// Why a plugin's setting was not saved.
package enum PluginSettingsError: Error, Equatable {
    /// The key is in no namespace the manifest names.
    case outsideNamespace(String)
    /// An admin locked the key.
    case locked
    /// The settings file could not be written.
    case io
}

/// assist.speech/1: the plugin's own utterances.
package protocol SpeechProviding: Sendable {
    /// Prints (when `prints`) and speaks `utterance` as the plugin's; its id, or nil when the engine refused
    /// it. With speech off the line is only printed and `onDone` hears `.finished` at once. Any thread.
    func speak(_ utterance: Utterance, prints: Bool, callbacks: SpeechCallbacks) -> UInt64?
    /// Stops one of the plugin's utterances; false when it is not known or not the plugin's. Any thread.
    func stop(_ id: UInt64) -> Bool
    /// Stops all of them. Any thread.
    func cancelAll()
    /// Pauses the plugin's speech; false when there is none (or speech is off). Any thread.
    func pause() -> Bool
    func resume()
    /// True while anything, the plugin's or not, is being spoken. Any thread.
    var isSpeaking: Bool { get }
    /// Prints a line without speaking it. Any thread.
    func print(_ line: String)
    /// Drops the plugin's callbacks as it stops; speech left paused is dropped, the rest may finish.
    func release()
}

/// assist.cues/1.
package protocol CueProviding: Sendable {
    func play(_ earcon: Earcon, gain: Double, pan: Double)
    func guidance(_ pattern: CuePattern, intensity: Double, pan: Double, pitchHz: Double?)
    func stop()
    /// False when the user turned cues off.
    var enabled: Bool { get }
}

/// assist.playback/1.
package protocol PlaybackProviding: Sendable {
    /// Plays a recording over whatever else sounds. Main loop.
    func play(_ clip: WavFile, gain: Double)
    func stop()
    var isPlaying: Bool { get }
}

/// assist.audio-in/1.
package protocol MicrophoneProviding: Sendable {
    /// Opens the microphone (or the file standing for it) in `format`; throws an `AudioError`.
    func open(format: AudioFormat) throws -> AudioInput
}

/// assist.camera/1: the plugin's subscription.
package protocol CameraProviding: Sendable {
    /// Subscribes (or changes the subscription); `deliver` runs on the plugin's delivery thread. Throws a
    /// `CameraError` when there is no camera or it cannot be opened. Main loop.
    func subscribe(_ request: SubscriptionRequest, deliver: @escaping @Sendable (Frame) -> Void) throws
    /// Ends the subscription, waiting for a delivery in progress; false when there was none. Main loop.
    @discardableResult func unsubscribe() -> Bool
    var isSubscribed: Bool { get }
    /// A device control's value and range, or nil when the camera has no such control.
    func control(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)?
    /// The plugin's delivery figures, or nil when it is not subscribed.
    func statistics() -> SubscriberStats?
}

/// assist.storage/1: the plugin's databases and media files.
package protocol StorageProviding: Sendable {
    /// Opens (once) the database `name` in the plugin's data folder. Any thread.
    func openDatabase(_ name: String) throws(StorageError) -> PluginDatabase
    /// The plugin's media store (`<data>/media`, its cache, its quota). Any thread.
    var media: MediaStore { get }
    /// Says a full disk or a full quota aloud, naming the feature, at most once a minute for each; other
    /// errors are the plugin's to handle. Any thread.
    func sayIfUserMustAct(_ error: StorageError)
}

/// assist.outbox/1: the plugin's uploads.
package protocol OutboxProviding: Sendable {
    /// Stores `request` for sending; its job id. Throws an `OutboxError` or a `StorageError`. Any thread.
    func enqueue(_ request: OutboxRequest, maxAttempts: Int) throws -> Int64
    /// Sends `request` once, now, storing nothing of it. Main loop.
    func sendNow(_ request: OutboxRequest) throws -> Int64
    /// Sets (or with nil removes) the handler of the plugin's outcomes; it runs on the main loop and returns
    /// true when it handled one. Main loop.
    func setHandler(_ handler: OutboxHub.Handler?)
    /// The plugin's handler goes, as it stops. Main loop.
    func forgetHandler()
    /// Forgets one of the plugin's outcomes; false when there is no such outcome.
    func acknowledge(_ job: Int64) -> Bool
    /// Withdraws one of the plugin's waiting jobs; false when it is not waiting.
    func cancel(_ job: Int64) -> Bool
    /// The plugin's jobs waiting or being sent plus its outcomes not yet handled; nil when the outbox cannot
    /// be read.
    func pending() -> Int?
    /// True when `host` resolves and a route to it exists (no request is sent).
    func isOnline(_ host: String) -> Bool
}

import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Speech
import Storage

/// Everything one plugin may ask of the host, one protocol per service table. Each service has a folder,
/// `Services/<Service>/`: its C table (`ServiceTables+<Service>`), its protocol, and its in-process serving
/// (`Local<Service>`, binding one plugin to one of the host's shared objects), with what the C side alone must
/// track (`PluginContext+<Service>`).
/// The C adapters
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
    /// What it was given (the camera, the microphone, the network), asked by those services before they act,
    /// and where every refusal is told once.
    package var permissions: PermissionGate

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
}

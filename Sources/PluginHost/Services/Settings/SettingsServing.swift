import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech
import Storage

/// assist.settings/1, in the plugin's namespaces (a bare key is the plugin's own).
package protocol SettingsProviding: Sendable {
    /// The value of `key`, or nil when nothing sets it; `.outsideNamespace` for a key that is neither the
    /// plugin's own nor public (`PublicSettings`). Any thread.
    func value(_ key: String) throws(PluginSettingsError) -> SettingValue?
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

/// The settings every plugin may read besides its own: how Assist speaks and sounds, its language, and the
/// camera's field of view. Everything else of the host's and of other features (their secrets above all) is
/// theirs alone (docs/plugin-abi.md, "Settings").
package enum PublicSettings {
    package static let readable: Set<String> = [
        "language", "speech.rate", "speech.voice", "speech.volume", "cues.volume", "cues.enabled", "cues.low-pitch",
        "camera.hfov-degrees",
    ]

    /// The namespaces that are the host's: a manifest's `settings_namespaces` (or its id's last part) may not
    /// be one of these.
    package static let reservedNamespaces: Set<String> = [
        "plugins", "admin", "kiosk", "speech", "voice", "audio", "camera", "storage", "outbox", "cues", "language",
        "view", "shell", "assist",
    ]
}

struct LocalSettings: SettingsProviding {
    let store: SettingsStore
    let namespaces: [String]

    func value(_ key: String) throws(PluginSettingsError) -> SettingValue? {
        let name = SettingsStore.qualify(key, namespaces: namespaces)
        guard owns(name) || PublicSettings.readable.contains(name) else { throw .outsideNamespace(name) }
        return store.value(name)
    }

    /// True for a key in one of the plugin's own namespaces.
    private func owns(_ name: String) -> Bool {
        namespaces.contains(name.split(separator: ".").first.map(String.init) ?? "") && name.contains(".")
    }

    func set(_ key: String, _ value: SettingValue) throws(PluginSettingsError) {
        let name = SettingsStore.qualify(key, namespaces: namespaces)
        guard owns(name) else { throw .outsideNamespace(name) }
        do {
            try store.set(name, value)
        } catch .locked {
            throw .locked
        } catch {
            throw .io
        }
    }
}

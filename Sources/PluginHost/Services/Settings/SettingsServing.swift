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

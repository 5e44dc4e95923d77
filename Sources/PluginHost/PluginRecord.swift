import Foundation
import PluginAPI

/// One plugin the host knows of: its manifest, its library and how far it got.
package final class PluginRecord: @unchecked Sendable {  // because: mutated only on the main loop
    /// The manifest, or nil when it could not be read.
    package let manifest: PluginManifest?
    /// Where the manifest is (or should be).
    package let manifestURL: URL
    /// Where the library is (or should be).
    package let libraryURL: URL
    /// The id: the manifest's, or the folder name when there is no manifest.
    package let id: String
    /// The state `plugins list` shows.
    package internal(set) var state: PluginState
    /// Why the state is not available/loaded, as one line.
    package internal(set) var reason: String?
    /// The copied entry table once the library is open.
    package internal(set) var entry: assist_entry?
    /// The context the host gave the plugin, once loaded.
    package internal(set) var context: PluginContext?
    /// True when the plugin runs in a helper process of its own (docs/plugin-isolation.md).
    package internal(set) var isolated = false
    /// Its helper process while loaded, when isolated.
    package internal(set) var helper: PluginHelper?
    /// The last helper process started for it, and whether its end was told; kept after it ends.
    var helperWatch: HelperWatch?

    /// How its helper process ended ("crashed in init (SIGSEGV)"), waiting for it up to 2 s; nil when it has
    /// no helper.
    package var helperEnd: String? { helperWatch?.helper?.waitForEnd() }

    init(manifest: PluginManifest?, manifestURL: URL, libraryURL: URL, id: String) {
        self.manifest = manifest
        self.manifestURL = manifestURL
        self.libraryURL = libraryURL
        self.id = id
        self.state = .available
    }

    /// The language its name is said in (the session's).
    package var language = "en"

    /// The display name: the manifest's in the session's language, else its own, else the id.
    package var name: String {
        guard let manifest else { return id }
        return manifest.name(in: language)
    }

    /// True while an instance of it runs (a background feature started with the shell, the focused one).
    package var isRunning: Bool { context?.instance != nil }

    /// True while the plugin can be started (available or loaded).
    package var isUsable: Bool { state == .available || state == .loaded }

    /// Marks the plugin refused.
    package func refuse(_ refusal: PluginRefusal) {
        state = refusal.state
        reason = refusal.message
    }

    /// Available again after it was turned off (`assist plugins reset`, or the shell's menu).
    package func enable() {
        guard state == .disabled else { return }
        state = .available
        reason = nil
    }

    /// Back to available: the helper process ended, so the next start loads it again.
    func markUnloaded() {
        entry = nil
        helper = nil
        if state == .loaded { state = .available }
    }

    func markLoaded(entry: assist_entry, context: PluginContext) {
        self.entry = entry
        self.context = context
        state = .loaded
        reason = nil
    }
}

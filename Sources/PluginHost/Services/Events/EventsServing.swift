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

/// assist.events/1.
package protocol EventProviding: Sendable {
    /// Publishes an event; false when `json` is not valid JSON. Any thread.
    func publish(_ name: String, json: String?) -> Bool
    /// True when the plugin may publish `name`: Assist's own features any name; another plugin its own
    /// (`<id>.…`, `plugin.<id>.…`) and shared names, never `assist.*` (the host's) or `plugin.<another id>.…`.
    /// Any thread.
    func mayPublish(_ name: String) -> Bool
    /// Calls `handler` on the main loop for each event whose name starts with `prefix`. Main loop.
    func subscribe(prefix: String, _ handler: @escaping @Sendable (String, String) -> Void) -> UInt64
    /// Main loop.
    func unsubscribe(_ id: UInt64)
}

struct LocalEvents: EventProviding {
    let bus: EventBus
    var owner = ""
    var ownNamesOnly = false

    func mayPublish(_ name: String) -> Bool {
        guard ownNamesOnly else { return true }
        let own = owner.lowercased()
        let lowered = name.lowercased()
        if lowered.hasPrefix(own + ".") || lowered.hasPrefix("plugin.\(own).") { return true }
        // The host's names, and another plugin's own, are not its to send; shared buses (AWARE's
        // `com.awareframework.…` commands, which other plugins are meant to post) are.
        return !lowered.hasPrefix("assist.") && !lowered.hasPrefix("plugin.") && lowered != "assist"
    }

    func publish(_ name: String, json: String?) -> Bool { bus.publish(name, json: json) }
    func subscribe(prefix: String, _ handler: @escaping @Sendable (String, String) -> Void) -> UInt64 {
        let owner = self.owner
        return bus.subscribe(prefix: prefix) { name, json in
            guard Self.mayReceive(name, owner: owner) else { return }
            handler(name, json)
        }
    }

    /// Whether a plugin hears `name`: every event but another feature's live-only ones (`<id>.view.…`, what
    /// read-text is reading and the picture it reads, for the low-vision view, docs/view.md), which only the
    /// host's view and the feature that sent them see. A plugin without the camera permission would otherwise
    /// see the camera's picture through read-text's events. Any thread.
    static func mayReceive(_ name: String, owner: String) -> Bool {
        guard EventJournal.isLiveOnly(name) else { return true }
        let own = owner.lowercased()
        let lowered = name.lowercased()
        return lowered.hasPrefix(own + ".") || lowered.hasPrefix("plugin.\(own).")
    }
    func unsubscribe(_ id: UInt64) { bus.unsubscribe(id) }
}

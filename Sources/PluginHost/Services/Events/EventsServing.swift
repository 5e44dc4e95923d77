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
    /// True when the plugin may publish `name`: Assist's own features any name, another plugin only its own
    /// (`<id>.…` or `plugin.<id>.…`); `assist.*` is the host's. Any thread.
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
        return lowered.hasPrefix(own + ".") || lowered.hasPrefix("plugin.\(own).")
    }

    func publish(_ name: String, json: String?) -> Bool { bus.publish(name, json: json) }
    func subscribe(prefix: String, _ handler: @escaping @Sendable (String, String) -> Void) -> UInt64 {
        bus.subscribe(prefix: prefix, handler)
    }
    func unsubscribe(_ id: UInt64) { bus.unsubscribe(id) }
}

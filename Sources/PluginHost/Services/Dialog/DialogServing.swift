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

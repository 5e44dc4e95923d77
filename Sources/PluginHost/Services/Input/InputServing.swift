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

/// The most commands one plugin may register (`input.register_command`): more is `ASSIST_E_PERMISSION`.
package let commandsPerPlugin = 200

/// assist.input/1: the plugin's commands.
package protocol CommandProviding: Sendable {
    /// Registers a command owned by the plugin. Main loop.
    func register(_ binding: CommandBinding) throws(RouterError)
    /// How many commands the plugin has now. Main loop.
    func count() -> Int
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

struct LocalCommands: CommandProviding {
    let owner: String
    let interaction: InteractionServices

    func register(_ binding: CommandBinding) throws(RouterError) {
        var owned = binding
        owned.owner = owner
        try interaction.router.register(owned)
    }
    func count() -> Int { interaction.router.count(owner: owner) }
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

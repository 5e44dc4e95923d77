import Interaction

/// Decides where each input event goes, on the main loop: a launch keyword or a plugin's global command,
/// then an open dialog, then the command table for the focused feature.
package final class InputDispatcher: @unchecked Sendable {  // because: used only on the main loop
    private let interaction: InteractionServices
    private let features: FeatureController
    private let console: Console?
    /// What end of input means: the shell quits, `assist run` lets the feature finish by itself.
    package var onEndOfInput: () -> Void = {}
    /// Launch keywords ("read text" → plugin id), active everywhere but inside a text dialog.
    package var launchKeywords: [String: String] = [:]
    /// Called for a launch keyword.
    package var onLaunch: (String) -> Void = { _ in }
    /// The push-to-talk key (voice commands), taken before anything else but a text dialog, and its action.
    package var listenKey: Key?
    package var onListenKey: () -> Void = {}
    /// Sees every event first (the kiosk: its admin gesture, PIN entry and refused escapes); true takes it.
    package var intercept: ((InputEvent) -> Bool)?

    package init(interaction: InteractionServices, features: FeatureController, console: Console?) {
        self.interaction = interaction
        self.features = features
        self.console = console
    }

    /// Handles one event. Call on the main loop.
    package func dispatch(_ event: InputEvent) {
        defer { syncConsoleMode() }
        if let intercept, intercept(event) { return }
        if case .endOfInput = event {
            interaction.dialogs.inputEnded = true
            if interaction.dialogs.isActive { _ = interaction.dialogs.handle(.endOfInput) }
            onEndOfInput()
            return
        }
        if !interaction.dialogs.wantsLine, let listenKey, case .key(let key) = event, key == listenKey {
            onListenKey()
            return
        }
        if !interaction.dialogs.wantsLine, let id = keyword(in: event) {
            onLaunch(id)
            return
        }
        if !interaction.dialogs.wantsLine, let command = interaction.router.resolveGlobal(event) {
            features.handle(command)
            return
        }
        if interaction.dialogs.handle(event) { return }
        if let command = interaction.router.resolve(event, focused: features.focused?.id) {
            features.handle(command)
            return
        }
        switch event {
        case .line(let text) where text.trimmingCharacters(in: .whitespaces).isEmpty:
            return
        case .line(let text), .phrase(let text):
            interaction.announcer.say(interaction.phrases.text("host.unknown-command", ["text": text]))
        case .key(let key):
            interaction.announcer.say(
                interaction.phrases.text("host.unknown-key", ["key": key.description]), remember: false)
        case .endOfInput:
            break
        }
    }

    /// Puts the console in line mode while a text dialog is open, with echo off for secrets.
    package func syncConsoleMode() {
        console?.setLineMode(interaction.dialogs.wantsLine, echo: !interaction.dialogs.isSecret)
    }

    private func keyword(in event: InputEvent) -> String? {
        switch event {
        case .line(let text), .phrase(let text):
            return launchKeywords[CommandRouter.normalise(text)]
        default:
            return nil
        }
    }
}

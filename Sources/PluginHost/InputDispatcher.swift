import Interaction

/// Decides where each input event goes, on the main loop: a launch keyword or a plugin's global command,
/// then an open dialog, then the command table for the focused feature.
package final class InputDispatcher: @unchecked Sendable {  // because: used only on the main loop
    private let interaction: InteractionServices
    private let features: FeatureController
    private let console: Console?
    /// What end of input means: the shell quits, `assist run` lets the feature finish by itself.
    package var onEndOfInput: () -> Void = {}
    /// A launch keyword: the plugin it starts, the start arguments it gives, and whether words may follow it.
    package struct Launch: Equatable, Sendable {
        package var id: String
        package var arguments: [String]
        /// Words after the phrase ("find object cup") are one more argument.
        package var takesWords: Bool

        package init(id: String, arguments: [String] = [], takesWords: Bool = false) {
            self.id = id
            self.arguments = arguments
            self.takesWords = takesWords
        }
    }

    /// Launch keywords by normalised phrase ("read text" → its plugin), active everywhere but inside a text
    /// dialog.
    package var launchKeywords: [String: Launch] = [:]
    /// Called for a launch keyword, with the plugin's id and its start arguments.
    package var onLaunch: (String, [String]) -> Void = { _, _ in }
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
        if !interaction.dialogs.wantsLine, let (id, arguments) = keyword(in: event) {
            onLaunch(id, arguments)
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

    /// The plugin and start arguments of the launch keyword `event` says: the phrase alone, or a phrase that
    /// takes words followed by them (the longest such phrase: "find object cup" → find-object, ["cup"]).
    private func keyword(in event: InputEvent) -> (String, [String])? {
        switch event {
        case .line(let text), .phrase(let text):
            let words = CommandRouter.normalise(text)
            if let exact = launchKeywords[words] { return (exact.id, exact.arguments) }
            let prefixed = launchKeywords.filter { $0.value.takesWords && words.hasPrefix($0.key + " ") }
            guard let (phrase, launch) = prefixed.max(by: { $0.key.count < $1.key.count }) else { return nil }
            let rest = String(words.dropFirst(phrase.count + 1))
            return (launch.id, launch.arguments + [rest])
        default:
            return nil
        }
    }
}

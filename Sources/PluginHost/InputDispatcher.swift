import Interaction
import Speech

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
    /// Letters that stay keys even at a menu (a kiosk's admin key, when it is a letter).
    package var lettersAsKeys: Set<Character> = []
    /// True while a secret is typed outside a dialog (the kiosk's admin PIN): nothing typed is shown or said.
    package var takingSecret = false {
        didSet { syncConsoleMode() }
    }

    package init(interaction: InteractionServices, features: FeatureController, console: Console?) {
        self.interaction = interaction
        self.features = features
        self.console = console
        // A question asked from a timer or a plugin's thread changes how keys are read as much as a key does.
        interaction.dialogs.observeQuestions { [weak self] _ in self?.syncConsoleMode() }
    }

    /// Handles one event. Call on the main loop.
    package func dispatch(_ event: InputEvent) {
        defer { syncConsoleMode() }
        if let intercept, intercept(event) { return }
        switch event {
        case .endOfInput:
            interaction.dialogs.inputEnded = true
            if interaction.dialogs.isActive { _ = interaction.dialogs.handle(.endOfInput) }
            onEndOfInput()
            return
        case .typing(let change):
            return echo(change)
        case .key:
            // A key ends the tour, or a list being read (help), where it is, and does what it does.
            features.endLists()
        default:
            break
        }
        if !interaction.dialogs.wantsLine, let listenKey, case .key(let key) = event, key == listenKey {
            onListenKey()
            return
        }
        // A launch phrase typed or said at a question is no answer to it, and starts nothing behind it.
        if !interaction.dialogs.wantsLine, !interaction.dialogs.isAskingQuestion,
            let (id, arguments) = keyword(in: event)
        {
            onLaunch(id, arguments)
            return
        }
        if !interaction.dialogs.wantsLine, let command = interaction.router.resolveGlobal(event) {
            features.handle(command)
            return
        }
        // "What can I say" and "help tutorial" are no answer to the question asked: the first lists what is heard
        // now, the answers too; the second gives the tour, the question waiting.
        if !interaction.dialogs.wantsLine,
            let command = interaction.router.resolve(event, focused: features.focused?.id),
            CommandRouter.beforeQuestions.contains(command.id), command.owner == CommandRouter.hostOwner
        {
            features.handle(command)
            return
        }
        if interaction.dialogs.handle(event) { return }
        if let command = interaction.router.resolve(event, focused: features.focused?.id) {
            features.handle(command)
            return
        }
        // A number in words, said or typed, reaches a feature's numbered commands as its digits ("fourteen",
        // "option 14" → "14": the survey's options).
        if let command = numbered(event) {
            features.handle(command)
            return
        }
        switch event {
        case .line(let text) where text.trimmingCharacters(in: .whitespaces).isEmpty:
            return
        case .line(let text), .phrase(let text):
            interaction.announcer.say(
                interaction.phrases.text("host.unknown-command", ["text": text]), group: .hint)
        case .key(let key):
            interaction.announcer.say(
                interaction.phrases.text("host.unknown-key", ["key": key.description]), remember: false,
                group: .hint)
        case .typing, .endOfInput:
            break
        }
    }

    /// The command whose phrase is the number `text` says in words, if any.
    private func numbered(_ event: InputEvent) -> RoutedCommand? {
        let text: String
        switch event {
        case .line(let line), .phrase(let line): text = CommandRouter.normalise(line)
        default: return nil
        }
        guard let number = NumberWords.value(text), String(number) != text else { return nil }
        return interaction.router.resolve(.phrase(String(number)), focused: features.focused?.id)
    }

    /// Says what changed in the line being typed: each character, what Backspace took, the line closed.
    private func echo(_ change: TypingEcho) {
        let phrases = interaction.phrases
        switch change {
        case .opened:
            interaction.announcer.echo(phrases.text("typing.command"))
        case .added(let char):
            interaction.announcer.echo(Self.name(of: char, phrases))
        case .removed(let char):
            interaction.announcer.echo(phrases.text("typing.removed", ["char": Self.name(of: char, phrases)]))
        case .closed:
            interaction.announcer.echo(phrases.text("typing.closed"))
        case .hidden:
            break
        case .tooLong(let limit):
            interaction.announcer.say(phrases.text("typing.too-long", ["limit": String(limit)]), remember: false)
        }
    }

    /// A typed character as it is said: "space", "slash", or the letter itself.
    static func name(of char: Character, _ phrases: PhraseBook) -> String {
        if char == " " { return phrases.text("key.space") }
        if char.isLetter || char.isNumber { return String(char) }
        return phrases.lookup("key.\(char)") ?? String(char)
    }

    /// Reads the keyboard as the moment needs: a text dialog takes lines (secrets unseen), a menu or question
    /// takes typed words (its own letter keys at once), a feature its keys, with "/" for a typed command.
    package func syncConsoleMode() {
        console?.setMode(typingMode)
    }

    /// The way keys are read now.
    package var typingMode: TypingMode {
        if takingSecret { return .line(secret: true) }
        switch interaction.dialogs.question {
        case .text(_, let kind):
            return .line(secret: kind == .secret)
        case .confirm:
            let keys = [
                interaction.phrases.text("dialog.key-yes"), interaction.phrases.text("dialog.key-no"), "y", "n",
            ]
            // Every letter of a language's yes and no keys ("yд" in Russian, "ys" in Spanish) answers at once.
            return .words(instant: Set(keys.flatMap { Array($0.lowercased()) }).union(lettersAsKeys))
        case .choice(_, let choices, _):
            return .words(instant: DialogEngine.letterKeys(of: choices).union(lettersAsKeys))
        case nil:
            return features.focused == nil ? .words(instant: lettersAsKeys) : .keys
        }
    }

    /// The plugin the launch keyword in `text` starts, if it is one.
    package func launchTarget(of text: String) -> String? { keyword(in: .phrase(text))?.0 }

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

/// How the terminal's keys are read, as the open dialog or the focused feature needs them.
package enum TypingMode: Hashable, Sendable {
    /// A feature has the focus: every key is a key, and the command key opens a line for one typed command.
    case keys
    /// A menu or a question: letters begin a typed word or phrase (Enter acts), while digits, arrows and the
    /// other keys stay keys until something is typed. `instant` letters answer at once instead (Y and N).
    case words(instant: Set<Character>)
    /// A text dialog: every key types; a `secret` line is neither shown nor said.
    case line(secret: Bool)
}

/// Turns a terminal's keys into keys, typed lines and echo, by `TypingMode`. Pure: the console feeds it keys
/// on its reader thread, writes `Output.show` to the terminal and passes `Output.event` on.
package struct LineEditor: Sendable {
    /// What one key gives.
    package enum Output: Equatable, Sendable {
        /// Text to show on the terminal as it is typed (a character, "\u{8} \u{8}" to rub one out, "\n").
        case show(String)
        /// An event for the dispatcher.
        case event(InputEvent)
    }

    /// The key that opens a line for a typed command while a feature has the focus ("/"); the same
    /// everywhere, and named in every help.
    package static let commandKey = Key.character("/")
    /// The most characters a typed command, word or answer may have; a longer one (a stray paste) is refused.
    package static let limit = 300
    /// How long after a Y or N the rest of "yes" or "no" is taken as part of that answer, in seconds.
    static let answerTail = 1.5

    package var mode: TypingMode = .keys {
        didSet {
            guard mode != oldValue else { return }
            // A secret is never carried into a shown line, nor a shown one into a secret.
            if case .line(let secret) = mode, secret { line = nil }
            if case .line(let secret) = oldValue, secret { line = nil }
        }
    }
    /// The line being typed; nil when none is open.
    package private(set) var line: String?
    /// After an instant Y or N: the letters that would spell out the rest of the word, and until when.
    private var tail: (letters: [Character], until: Double)?

    package init(mode: TypingMode = .keys) { self.mode = mode }

    /// True while a line is open (typed text waits for Enter).
    package var isTyping: Bool { line != nil }

    /// What `key`, pressed at `now` (seconds, any monotonic clock), gives.
    package mutating func take(_ key: Key, at now: Double = 0) -> [Output] {
        if let swallowed = swallowTail(key, at: now) { return swallowed }
        if line == nil {
            switch (mode, key) {
            case (.line, _):
                line = ""
            case (_, Self.commandKey):
                line = ""
                return [.show("/"), .event(.typing(.opened))]
            case (.words(let instant), .character(let char)) where char.isLetter:
                if instant.contains(Character(char.lowercased())) {
                    startTail(after: char, at: now)
                    return [.event(.key(key))]
                }
                line = ""
            default:
                return [.event(.key(key))]
            }
        }
        return edit(key)
    }

    /// Many characters arriving at once (a paste): typed into a line in every mode, so a pasted word is never
    /// a burst of single-key commands. `keys` are what one read of the terminal gave. `dropRest` is true when
    /// keys were left over once the line was sent, refused or closed (a paste of many lines, or too long):
    /// what follows of that paste is not used either. The command key first opens the line as it does typed
    /// alone: "/stop" and Enter, read at once (a person's keys bunched by a busy machine), is the line "stop".
    package mutating func takePaste(_ keys: [Key], at now: Double = 0) -> (outputs: [Output], dropRest: Bool) {
        if line == nil, keys.first != Self.commandKey { line = "" }
        var outputs: [Output] = []
        for (index, key) in keys.enumerated() {
            outputs += take(key, at: now)
            if line == nil {
                let refused = outputs.contains { $0 == .event(.typing(.tooLong(limit: Self.limit))) }
                return (outputs, refused || index + 1 < keys.count)
            }
        }
        return (outputs, false)
    }

    /// A paste is this many characters or more in one read; a person's keys come one or two at a time.
    package static let pasteThreshold = 4

    private mutating func edit(_ key: Key) -> [Output] {
        guard var text = line else { return [] }
        let secret = mode == .line(secret: true)
        let isLineDialog: Bool
        if case .line = mode { isLineDialog = true } else { isLineDialog = false }
        switch key {
        case .enter:
            line = nil
            if !isLineDialog && text.trimmingCharacters(in: .whitespaces).isEmpty {
                return [.show("\n"), .event(.typing(.closed))]
            }
            return [.show("\n"), .event(.line(text))]
        case .escape:
            line = nil
            if isLineDialog { return [.show("\n"), .event(.key(.escape))] }
            return [.show("\n"), .event(.typing(.closed))]
        case .backspace, .delete:
            guard let last = text.popLast() else {
                if isLineDialog { return [] }
                line = nil
                return [.show("\n"), .event(.typing(.closed))]
            }
            line = text
            return secret ? [] : [.show("\u{8} \u{8}"), .event(.typing(.removed(last)))]
        case .space, .character:
            let char: Character = key == .space ? " " : (key.character ?? " ")
            guard text.count < Self.limit else {
                line = nil
                return [.show("\n"), .event(.typing(.tooLong(limit: Self.limit)))]
            }
            text.append(char)
            line = text
            return secret ? [.event(.typing(.hidden))] : [.show(String(char)), .event(.typing(.added(char)))]
        case .control:
            // The kiosk's escapes and the like stay keys; the line waits.
            return [.event(.key(key))]
        default:
            // An arrow or a function key leaves a typed word or command unsent and acts as itself; a text
            // dialog's line has no use for it.
            if isLineDialog { return [] }
            line = nil
            return [.show("\n"), .event(.key(key))]
        }
    }

    private mutating func startTail(after char: Character, at now: Double) {
        let lower = char.lowercased()
        let rest: [Character] = lower == "y" ? ["e", "s"] : lower == "n" ? ["o"] : []
        tail = rest.isEmpty ? nil : (rest, now + Self.answerTail)
    }

    /// The letters of "yes" after an instant Y (and an Enter after them) are part of that answer.
    private mutating func swallowTail(_ key: Key, at now: Double) -> [Output]? {
        guard let current = tail else { return nil }
        guard now <= current.until else {
            tail = nil
            return nil
        }
        if case .character(let char) = key, let next = current.letters.first,
            Character(char.lowercased()) == next
        {
            tail = (Array(current.letters.dropFirst()), current.until)
            return []
        }
        tail = nil
        return key == .enter ? [] : nil
    }
}

extension Key {
    /// The character a character key types.
    var character: Character? {
        if case .character(let char) = self { return char }
        return nil
    }
}

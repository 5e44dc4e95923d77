/// One key press, decoded from terminal bytes or named in a binding ("ctrl+s", "space", "f1").
package enum Key: Hashable, Sendable, CustomStringConvertible {
    case character(Character)
    case control(Character)
    case enter, escape, space, tab, backspace, delete
    case up, down, left, right, home, end, pageUp, pageDown
    case function(Int)

    /// Parses a key name as written in manifests and `register_command`: a single character, "space",
    /// "enter", "escape"/"esc", "tab", "backspace", "delete", arrows "up"/"down"/"left"/"right", "home",
    /// "end", "pageup", "pagedown", "f1"…"f12", "ctrl+x". Returns nil for anything else.
    package init?(name: String) {
        let lower = name.lowercased()
        if name.count == 1, let char = name.first {
            self = char == " " ? .space : .character(char)
            return
        }
        if lower.hasPrefix("ctrl+"), lower.count == 6, let char = lower.last, char.isLetter {
            self = .control(char)
            return
        }
        if lower.hasPrefix("f"), let number = Int(lower.dropFirst()), (1...12).contains(number) {
            self = .function(number)
            return
        }
        let named: [String: Key] = [
            "space": .space, "enter": .enter, "return": .enter, "escape": .escape, "esc": .escape, "tab": .tab,
            "backspace": .backspace, "delete": .delete, "del": .delete, "up": .up, "down": .down, "left": .left,
            "right": .right, "home": .home, "end": .end, "pageup": .pageUp, "pagedown": .pageDown,
        ]
        guard let key = named[lower] else { return nil }
        self = key
    }

    /// The key's name, as `init(name:)` reads it.
    package var description: String {
        switch self {
        case .character(let char): return String(char)
        case .control(let char): return "ctrl+\(char)"
        case .enter: return "enter"
        case .escape: return "escape"
        case .space: return "space"
        case .tab: return "tab"
        case .backspace: return "backspace"
        case .delete: return "delete"
        case .up: return "up"
        case .down: return "down"
        case .left: return "left"
        case .right: return "right"
        case .home: return "home"
        case .end: return "end"
        case .pageUp: return "pageup"
        case .pageDown: return "pagedown"
        case .function(let number): return "f\(number)"
        }
    }
}

/// What the user did: a key, a typed line, a recognised voice phrase, or a change to the line being typed.
package enum InputEvent: Hashable, Sendable {
    case key(Key)
    case line(String)
    case phrase(String)
    /// The line being typed on a terminal changed; it is said, not acted on (`line` brings it whole).
    case typing(TypingEcho)
    case endOfInput
}

/// What changed in the line being typed on a terminal, so it can be heard as it is typed.
package enum TypingEcho: Hashable, Sendable {
    /// The command key opened a line for one typed command.
    case opened
    /// A character was typed.
    case added(Character)
    /// A character of a secret was typed: it is neither shown nor said.
    case hidden
    /// Backspace took a character away.
    case removed(Character)
    /// Escape, or Backspace on an empty line, closed the line unsent; an empty Enter too.
    case closed
    /// More than `limit` characters: the line was thrown away, and the rest of a paste with it.
    case tooLong(limit: Int)
}

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

/// What the user did: a key, a typed line, or a recognised voice phrase.
package enum InputEvent: Hashable, Sendable {
    case key(Key)
    case line(String)
    case phrase(String)
    case endOfInput
}

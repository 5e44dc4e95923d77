/// Turns terminal bytes into keys: UTF-8 characters, control keys and the common VT100/xterm escape
/// sequences. Pure: the console feeds it bytes and calls `flush()` when no byte followed a lone escape.
package struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    package init() {}

    /// True when bytes are held back waiting for the rest of a sequence.
    package var isHolding: Bool { !pending.isEmpty }

    /// Decodes as many keys as the bytes so far allow.
    package mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        while let (key, used) = Self.decodeOne(pending, final: false) {
            pending.removeFirst(used)
            if let key { keys.append(key) }
        }
        return keys
    }

    /// Decodes what is held as if no more bytes will come: a lone ESC is the Escape key.
    package mutating func flush() -> [Key] {
        var keys: [Key] = []
        while !pending.isEmpty {
            if let (key, used) = Self.decodeOne(pending, final: true) {
                pending.removeFirst(used)
                if let key { keys.append(key) }
            } else {
                pending.removeFirst()
            }
        }
        return keys
    }

    /// Returns the key at the start of `bytes` and how many bytes it used, or nil when more bytes are needed.
    /// A nil key with a count skips bytes that mean nothing.
    private static func decodeOne(_ bytes: [UInt8], final: Bool) -> (Key?, Int)? {
        guard let first = bytes.first else { return nil }
        switch first {
        case 0x1B:
            return decodeEscape(bytes, final: final)
        case 0x0D, 0x0A:
            return (.enter, 1)
        case 0x09:
            return (.tab, 1)
        case 0x7F, 0x08:
            return (.backspace, 1)
        case 0x20:
            return (.space, 1)
        case 0x01...0x1A:
            return (.control(Character(Unicode.Scalar(first + 0x60))), 1)
        case 0x1C:
            return (.control("\\"), 1)
        case 0x00...0x1F:
            return (nil, 1)
        default:
            return decodeUTF8(bytes, final: final)
        }
    }

    private static func decodeUTF8(_ bytes: [UInt8], final: Bool) -> (Key?, Int)? {
        let first = bytes[0]
        let length: Int
        switch first {
        case 0x00..<0x80: length = 1
        case 0xC0..<0xE0: length = 2
        case 0xE0..<0xF0: length = 3
        case 0xF0..<0xF8: length = 4
        default: return (nil, 1)
        }
        guard bytes.count >= length else { return final ? (nil, bytes.count) : nil }
        guard let text = String(validating: bytes[0..<length], as: UTF8.self), let char = text.first else {
            return (nil, 1)
        }
        return (.character(char), length)
    }

    private static func decodeEscape(_ bytes: [UInt8], final: Bool) -> (Key?, Int)? {
        guard bytes.count >= 2 else { return final ? (.escape, 1) : nil }
        let second = bytes[1]
        if second == UInt8(ascii: "O") {
            guard bytes.count >= 3 else { return final ? (.escape, 1) : nil }
            let map: [UInt8: Key] = [
                UInt8(ascii: "P"): .function(1), UInt8(ascii: "Q"): .function(2), UInt8(ascii: "R"): .function(3),
                UInt8(ascii: "S"): .function(4), UInt8(ascii: "H"): .home, UInt8(ascii: "F"): .end,
                UInt8(ascii: "A"): .up, UInt8(ascii: "B"): .down, UInt8(ascii: "C"): .right, UInt8(ascii: "D"): .left,
            ]
            return (map[bytes[2]], 3)
        }
        guard second == UInt8(ascii: "[") else { return (.escape, 1) }
        // CSI: parameters (digits and ';') then one final byte in 0x40...0x7E.
        var index = 2
        while index < bytes.count, (0x30...0x3F).contains(bytes[index]) { index += 1 }
        guard index < bytes.count else { return final ? (.escape, 1) : nil }
        let finalByte = bytes[index]
        let parameter = String(decoding: bytes[2..<index], as: UTF8.self).split(separator: ";").first.map(String.init)
        let used = index + 1
        switch finalByte {
        case UInt8(ascii: "A"): return (.up, used)
        case UInt8(ascii: "B"): return (.down, used)
        case UInt8(ascii: "C"): return (.right, used)
        case UInt8(ascii: "D"): return (.left, used)
        case UInt8(ascii: "H"): return (.home, used)
        case UInt8(ascii: "F"): return (.end, used)
        case UInt8(ascii: "~"):
            let tilde: [String: Key] = [
                "1": .home, "7": .home, "4": .end, "8": .end, "3": .delete, "5": .pageUp, "6": .pageDown,
                "11": .function(1), "12": .function(2), "13": .function(3), "14": .function(4),
                "15": .function(5), "17": .function(6), "18": .function(7), "19": .function(8),
                "20": .function(9), "21": .function(10), "23": .function(11), "24": .function(12),
            ]
            return (parameter.flatMap { tilde[$0] }, used)
        default:
            return (nil, used)
        }
    }
}

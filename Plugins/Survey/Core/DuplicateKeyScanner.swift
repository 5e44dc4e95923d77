/// Finds keys that appear twice in one JSON object, which JSON parsers silently resolve by keeping one.
/// A small scanner over the bytes; anything it cannot follow is left to the real parser to report.
enum DuplicateKeyScanner {
    struct Duplicate: Equatable {
        var key: String
        /// Where the object is: "the top level", "parts[1].items[3]".
        var path: String
    }

    static func duplicates(in data: some Collection<UInt8>) -> [Duplicate] {
        var scanner = Scanner(bytes: Array(data))
        scanner.value(path: "")
        return scanner.found
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var found: [Duplicate] = []
        var depth = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(path: String) {
            skipSpace()
            guard index < bytes.count, depth < 200 else { return }
            switch bytes[index] {
            case UInt8(ascii: "{"): object(path: path)
            case UInt8(ascii: "["): array(path: path)
            case UInt8(ascii: "\""): _ = string()
            default:
                while index < bytes.count, !",}] \t\r\n".utf8.contains(bytes[index]) { index += 1 }
            }
        }

        mutating func object(path: String) {
            depth += 1
            defer { depth -= 1 }
            index += 1
            var keys = Set<String>()
            while true {
                skipSpace()
                guard index < bytes.count else { return }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return
                }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "\""), let key = string() else { return }
                if !keys.insert(key).inserted {
                    found.append(Duplicate(key: key, path: path.isEmpty ? "the top level" : path))
                }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return }
                index += 1
                value(path: path.isEmpty ? key : "\(path).\(key)")
            }
        }

        mutating func array(path: String) {
            depth += 1
            defer { depth -= 1 }
            index += 1
            var position = 0
            while true {
                skipSpace()
                guard index < bytes.count else { return }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return
                }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    position += 1
                    continue
                }
                let before = index
                value(path: "\(path)[\(position + 1)]")
                if index == before { return }
            }
        }

        /// A string starting at the quote; its raw bytes (escapes kept) are enough to compare keys.
        mutating func string() -> String? {
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard index < bytes.count else { return nil }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            index += 1
            return text
        }
    }
}

import CTOMLGuard
import Foundation
import TOMLKit

/// Reads Assist's config, settings and secrets files: TOML 1.0 through TOMLKit (toml++), with CRLF line ends and
/// a UTF-8 byte-order mark accepted. Tables become dotted keys (`[speech]` `rate = 200` is `speech.rate`);
/// strings, integers, floats and booleans are values, an array is a list of its items' text, a date or time is
/// its text.
package enum ConfigFile {
    /// Why a file could not be read, and where.
    package struct ParseError: Error, Equatable {
        package var line: Int
        package var message: String

        /// "line 3: cannot redefine existing table 'speech'", or only the message when no line is known.
        package var located: String { line > 0 ? "line \(line): \(message)" : message }

        /// "PATH line 3: message", or "PATH: message" when no line is known.
        package func at(_ path: String) -> String {
            line > 0 ? "\(path) line \(line): \(message)" : "\(path): \(message)"
        }

        package init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    /// One `key = value`, with its dotted key and the line it is on (0 when it cannot be told).
    package struct Entry: Equatable, Sendable {
        package var key: String
        package var value: SettingValue
        package var line: Int
    }

    /// Parses `text` into flat dotted keys.
    package static func parse(_ text: String) throws(ParseError) -> [String: SettingValue] {
        var result: [String: SettingValue] = [:]
        for entry in try entries(text) { result[entry.key] = entry.value }
        return result
    }

    /// Parses `text` into its entries, in the order of their lines.
    package static func entries(_ text: String) throws(ParseError) -> [Entry] {
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        try screen(body)
        guard assist_toml_survives(body) == 0 else {
            throw ParseError(line: 0, message: "it is not TOML that can be read; check its brackets, quotes and commas")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: body)
        } catch let error as TOMLParseError {
            throw ParseError(line: error.source.begin.line, message: plain(error.description))
        } catch {
            throw ParseError(line: 0, message: "it is not TOML")
        }
        var values: [(String, SettingValue)] = []
        flatten(table, prefix: "", into: &values)
        let lines = lineNumbers(body)
        return values.map { Entry(key: $0.0, value: $0.1, line: lines[$0.0] ?? 0) }
            .sorted { ($0.line, $0.key) < ($1.line, $1.key) }
    }

    /// Refuses, before toml++ sees them, what it would not survive (TOMLKit builds it with assertions in a
    /// debug build, and assumes them in a release one): a NUL (it reads a C string), a carriage return without
    /// a new line after it, and a table header whose name starts with anything but a bare key's character or a
    /// quote ("[{", "[\r", "[ #"), which toml++ 3.4.0 takes for granted. Strings, comments and values spread
    /// over lines are followed, so a `[` inside them is never taken for a header.
    static func screen(_ text: String) throws(ParseError) {
        enum Inside { case nothing, basic, literal, multiBasic, multiLiteral, comment }
        let bytes = Array(text.utf8)
        var inside = Inside.nothing
        var depth = 0
        var line = 1
        var lineStart = true
        var index = 0
        func at(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        // A NUL written as an escape (\u0000, \U00000000) in a quoted key stops TOMLKit (it unwraps the key's text,
        // which a NUL ends, by force); a setting never holds one, in a key or a value.
        let escapedNUL = Array("u0000".utf8)
        let longEscapedNUL = Array("U00000000".utf8)
        func nulEscape(after backslash: Int) -> Bool {
            for escape in [escapedNUL, longEscapedNUL] where backslash + escape.count < bytes.count {
                if Array(bytes[(backslash + 1)...(backslash + escape.count)]) == escape { return true }
            }
            return false
        }
        let nulMessage = "it holds a NUL character written as \\u0000, which a setting cannot hold"
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0 {
                throw ParseError(line: line, message: "it holds a NUL character, which TOML does not allow")
            }
            if byte == 0x0D, at(1) != 0x0A {
                throw ParseError(line: line, message: "a carriage return is not followed by a new line")
            }
            if byte == 0x0A {
                line += 1
                lineStart = true
                if inside == .comment || inside == .basic || inside == .literal { inside = .nothing }
                index += 1
                continue
            }
            let blank = byte == 0x20 || byte == 0x09 || byte == 0x0D
            switch inside {
            case .comment:
                break
            case .basic:
                if byte == 0x5C {
                    if nulEscape(after: index) { throw ParseError(line: line, message: nulMessage) }
                    index += 1
                } else if byte == 0x22 {
                    inside = .nothing
                }
            case .literal:
                if byte == 0x27 { inside = .nothing }
            case .multiBasic:
                if byte == 0x5C {
                    if nulEscape(after: index) { throw ParseError(line: line, message: nulMessage) }
                    index += 1
                } else if byte == 0x22, at(1) == 0x22, at(2) == 0x22 {
                    inside = .nothing
                    index += 2
                }
            case .multiLiteral:
                if byte == 0x27, at(1) == 0x27, at(2) == 0x27 {
                    inside = .nothing
                    index += 2
                }
            case .nothing:
                if lineStart && depth == 0 && byte == 0x5B {
                    // A table header: its name's first character, after "[" or "[[" and blanks.
                    var next = index + 1
                    if next < bytes.count, bytes[next] == 0x5B { next += 1 }
                    while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x09 { next += 1 }
                    let first = next < bytes.count ? bytes[next] : 0x0A
                    let bare =
                        (first >= 0x41 && first <= 0x5A) || (first >= 0x61 && first <= 0x7A)
                        || (first >= 0x30 && first <= 0x39) || first == 0x5F || first == 0x2D
                    guard bare || first == 0x22 || first == 0x27 || first == 0x5D else {
                        throw ParseError(
                            line: line,
                            message: "a table name in [brackets] must start with a letter, a digit, _, - or a quote")
                    }
                    // The rest of the header is toml++'s to read, but for a NUL written in a quoted name.
                    while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x23 {
                        if bytes[index] == 0x5C, nulEscape(after: index) {
                            throw ParseError(line: line, message: nulMessage)
                        }
                        index += 1
                    }
                    lineStart = false
                    continue
                }
                if byte == 0x23 {
                    inside = .comment
                } else if byte == 0x22 {
                    if at(1) == 0x22, at(2) == 0x22 {
                        inside = .multiBasic
                        index += 2
                    } else {
                        inside = .basic
                    }
                } else if byte == 0x27 {
                    if at(1) == 0x27, at(2) == 0x27 {
                        inside = .multiLiteral
                        index += 2
                    } else {
                        inside = .literal
                    }
                } else if byte == 0x5B || byte == 0x7B {
                    depth += 1
                } else if byte == 0x5D || byte == 0x7D {
                    depth = max(0, depth - 1)
                }
            }
            if !blank { lineStart = false }
            index += 1
        }
    }

    private static func flatten(_ table: TOMLTable, prefix: String, into values: inout [(String, SettingValue)]) {
        for (key, value) in table {
            let dotted = prefix.isEmpty ? key : "\(prefix).\(key)"
            if let inner = value.table {
                flatten(inner, prefix: dotted, into: &values)
            } else if let converted = settingValue(value) {
                values.append((dotted, converted))
            }
        }
    }

    private static func settingValue(_ value: TOMLValueConvertible) -> SettingValue? {
        switch value.type {
        case .string: return value.string.map(SettingValue.string)
        case .int: return value.int.map { .int(Int64($0)) }
        case .double: return value.double.map(SettingValue.double)
        case .bool: return value.bool.map(SettingValue.bool)
        case .array:
            guard let array = value.array else { return nil }
            return .list(array.compactMap { item in scalarText(item) })
        case .date, .time, .dateTime: return .string(value.debugDescription)
        case .table: return nil
        }
    }

    /// An array item as text: a string as it is, a number or flag as written.
    private static func scalarText(_ item: TOMLValueConvertible) -> String? {
        switch item.type {
        case .string: return item.string
        case .int: return item.int.map(String.init)
        case .double: return item.double.map { String($0) }
        case .bool: return item.bool.map { $0 ? "true" : "false" }
        default: return item.debugDescription
        }
    }

    /// toml++'s sentence, without its "Error while parsing …: " lead or a final full stop (one is added where
    /// it is said): "cannot redefine existing table 'speech'".
    static func plain(_ description: String) -> String {
        var text = description.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("Error while parsing"), let colon = text.firstIndex(of: ":") {
            text = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        while text.hasSuffix(".") { text.removeLast() }
        return PlainText.value(text, limit: 200)
    }

    /// The line each dotted key is set on, for messages ("config.toml line 3: speech.rate is …"): table headers
    /// and `key =` at the start of lines, quotes and spaces around dots taken off. Only for telling where; what
    /// a file means is TOMLKit's.
    static func lineNumbers(_ text: String) -> [String: Int] {
        var lines: [String: Int] = [:]
        var table = ""
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                let inner = line.drop { $0 == "[" }.prefix { $0 != "]" }
                table = dotted(String(inner))
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = dotted(String(line[..<equals]))
            guard !key.isEmpty else { continue }
            let full = table.isEmpty ? key : "\(table).\(key)"
            if lines[full] == nil { lines[full] = index + 1 }
        }
        return lines
    }

    /// `a . "b.c"` as `a.b.c`: parts trimmed and unquoted.
    private static func dotted(_ text: String) -> String {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for char in text {
            if let open = quote {
                if char == open { quote = nil } else { current.append(char) }
            } else if char == "\"" || char == "'" {
                quote = char
            } else if char == "." {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(char)
            }
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts.joined(separator: ".")
    }

    /// `values` (dotted keys) as a TOML document: each key's first part a table, the rest its key. Written by
    /// TOMLKit, so that every string reads back as it was.
    package static func document(_ values: [String: SettingValue]) -> String {
        let root = TOMLTable()
        var tables: [String: TOMLTable] = [:]
        for (key, value) in values where !key.contains("\u{0}") {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2 {
                let table = tables[parts[0]] ?? TOMLTable()
                tables[parts[0]] = table
                table[parts[1]] = tomlValue(value)
            } else {
                root[key] = tomlValue(value)
            }
        }
        for (name, table) in tables { root[name] = table }
        return root.convert(to: .toml, options: [.allowUnicodeStrings])
    }

    /// A NUL is left out of what is written: a file holding one is refused when read (`screen`), which would set
    /// every other saved value aside with it.
    private static func tomlValue(_ value: SettingValue) -> TOMLValueConvertible {
        func withoutNUL(_ text: String) -> String { text.contains("\u{0}") ? text.replacing("\u{0}", with: "") : text }
        switch value {
        case .string(let text): return withoutNUL(text)
        case .int(let number): return Int(number)
        case .double(let number): return number
        case .bool(let flag): return flag
        case .list(let items): return TOMLArray(items.map(withoutNUL))
        }
    }
}

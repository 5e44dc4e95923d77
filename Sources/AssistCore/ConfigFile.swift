import Foundation

/// Reads the TOML subset Assist's config files use: `[table]` and `[table.sub]` headers, `key = value`
/// with strings ("…" with \" \\ \n \t escapes, or '…'), integers, floats, booleans and arrays of strings,
/// and `#` comments. Keys become `table.key`.
package enum ConfigFile {
    /// A line that could not be read.
    package struct ParseError: Error, Equatable {
        package var line: Int
        package var message: String
    }

    /// One `key = value` line, with its dotted key and line number.
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

    /// Parses `text` into its entries, in file order.
    package static func entries(_ text: String) throws(ParseError) -> [Entry] {
        var result: [Entry] = []
        var table = ""
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let line = stripComment(String(rawLine)).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), !line.hasPrefix("[[") else {
                    throw ParseError(line: lineNumber, message: "a table header must look like [name]")
                }
                guard line.count <= 200 else {
                    throw ParseError(line: lineNumber, message: "the table name is too long")
                }
                table = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(line: lineNumber, message: "expected key = value")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
            let rawValue = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw ParseError(line: lineNumber, message: "the key is empty") }
            guard let value = parseValue(rawValue) else {
                throw ParseError(
                    line: lineNumber,
                    message: "cannot read the value of \(PlainText.value(key, limit: 60)), "
                        + "\(PlainText.value(rawValue, limit: 60)); quote text like \"this\"")
            }
            result.append(Entry(key: table.isEmpty ? key : "\(table).\(key)", value: value, line: lineNumber))
        }
        return result
    }

    package static func parseValue(_ raw: String) -> SettingValue? {
        if raw == "true" { return .bool(true) }
        if raw == "false" { return .bool(false) }
        if let string = parseString(raw) { return .string(string) }
        if raw.hasPrefix("["), raw.hasSuffix("]") {
            let inner = raw.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
            if inner.isEmpty { return .list([]) }
            var items: [String] = []
            for part in splitArray(String(inner)) {
                guard let item = parseString(part.trimmingCharacters(in: .whitespaces)) else { return nil }
                items.append(item)
            }
            return .list(items)
        }
        let digits = raw.replacingOccurrences(of: "_", with: "")
        if let number = Int64(digits) { return .int(number) }
        if let number = Double(digits) { return .double(number) }
        return nil
    }

    package static func parseString(_ raw: String) -> String? {
        guard raw.count >= 2 else { return nil }
        if raw.hasPrefix("'"), raw.hasSuffix("'") { return String(raw.dropFirst().dropLast()) }
        guard raw.hasPrefix("\""), raw.hasSuffix("\"") else { return nil }
        var output = ""
        var escaping = false
        for char in raw.dropFirst().dropLast() {
            if escaping {
                switch char {
                case "n": output.append("\n")
                case "t": output.append("\t")
                default: output.append(char)
                }
                escaping = false
            } else if char == "\\" {
                escaping = true
            } else {
                output.append(char)
            }
        }
        return escaping ? nil : output
    }

    private static func splitArray(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for char in text {
            if let open = quote {
                current.append(char)
                if char == open { quote = nil }
            } else if char == "\"" || char == "'" {
                quote = char
                current.append(char)
            } else if char == "," {
                parts.append(current)
                current = ""
            } else {
                current.append(char)
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { parts.append(current) }
        return parts
    }

    private static func stripComment(_ line: String) -> String {
        var quote: Character?
        for (offset, char) in line.enumerated() {
            if let open = quote {
                if char == open { quote = nil }
            } else if char == "\"" || char == "'" {
                quote = char
            } else if char == "#" {
                return String(line.prefix(offset))
            }
        }
        return line
    }
}

/// Labels as CSV for a family or a care home to share (RFC 4180: a header `type,code,name`, fields with a
/// comma, quote or line end quoted, quotes doubled). A cell a spreadsheet would take for a formula (=, +, -, @
/// first) is written with an apostrophe before it, which reading takes off again.
package enum LabelsCSV {
    package static let header = ["type", "code", "name"]

    package static func write(_ rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    private static func field(_ value: String) -> String {
        var text = value
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        guard text.contains(where: { ",\"\r\n".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The rows of `text` with their line numbers (the header's is 1), or the line where quoting breaks.
    package static func read(_ text: String) -> Result<[(line: Int, fields: [String])], ReadProblem> {
        var rows: [(Int, [String])] = []
        var fields: [String] = []
        var field = ""
        var quoted = false
        var line = 1
        var rowLine = 1
        var characters = Array(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text)
        if characters.last != "\n" { characters.append("\n") }
        var index = 0
        func endField() {
            if field.hasPrefix("'"), let second = field.dropFirst().first, "=+-@".contains(second) {
                field.removeFirst()
            }
            fields.append(field)
            field = ""
        }
        while index < characters.count {
            let character = characters[index]
            if quoted {
                if character == "\"" {
                    if index + 1 < characters.count, characters[index + 1] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if character == "\n" { line += 1 }
                    field.append(character)
                }
            } else if character == "\"" && field.isEmpty {
                quoted = true
            } else if character == "," {
                endField()
            } else if character == "\n" || character == "\r\n" || character == "\r" {
                endField()
                if !(fields.count == 1 && fields[0].isEmpty) { rows.append((rowLine, fields)) }
                fields = []
                line += 1
                rowLine = line
            } else {
                field.append(character)
            }
            index += 1
        }
        if quoted { return .failure(ReadProblem(line: rowLine)) }
        return .success(rows)
    }

    package struct ReadProblem: Error {
        package var line: Int
    }
}

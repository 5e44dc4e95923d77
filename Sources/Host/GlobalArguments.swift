/// Lets the options every command takes (`GlobalOptions`) stand anywhere on the command line:
/// `assist --config F plugins list`, `assist plugins --verbose list` and `assist run read-text --lang ru`
/// all mean what they say. They are moved to where the parser takes them: right after `run` (before the
/// feature's id, whose own arguments follow it), or to the end for every other command. After `--`,
/// everything goes to the feature as it is, so a feature may still take an option with the same name.
enum GlobalArguments {
    /// Global options that take a value.
    static let valued: Set<String> = [
        "--data-dir", "--share-dir", "--config", "--plugin-dir", "--lang", "--audio-out", "--mic", "--camera",
        "--camera-fps", "--view-port",
    ]
    /// Global flags.
    static let flags: Set<String> = ["--no-speech", "--verbose", "--view", "--view-open"]

    /// `arguments` (without the program's name) with the global options moved where the parser takes them.
    static func normalized(_ arguments: [String]) -> [String] {
        var globals: [String] = []
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if flags.contains(argument) || (valued.contains(name) && argument.contains("=")) {
                globals.append(argument)
            } else if valued.contains(argument), index + 1 < arguments.count {
                globals += [argument, arguments[index + 1]]
                index += 1
            } else {
                rest.append(argument)
            }
            index += 1
        }
        guard !globals.isEmpty else { return arguments }
        if let run = rest.firstIndex(where: { !$0.hasPrefix("-") }), rest[run] == "run" {
            rest.insert(contentsOf: globals, at: run + 1)
            return rest
        }
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: globals, at: end)
        return rest
    }

    /// The last value given to the global option `name` ("--data-dir") before any `--`, as the parser would
    /// take it; nil when not given.
    static func value(of name: String, in arguments: [String]) -> String? {
        var found: String?
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            let argument = arguments[index]
            if argument.hasPrefix(name + "=") {
                found = String(argument.dropFirst(name.count + 1))
            } else if argument == name, index + 1 < arguments.count {
                found = arguments[index + 1]
                index += 1
            } else if valued.contains(argument) {
                index += 1
            }
            index += 1
        }
        return found
    }

    /// True when the global flag `name` ("--verbose") is given before any `--`.
    static func has(_ name: String, in arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains(name)
    }
}

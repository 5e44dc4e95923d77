import Foundation
import HostTesting
import Testing

/// Issue 72, item 5: the README's usage lines are what the program takes. Each `assist …` line of "Using it"
/// names a command that exists, and every option it shows is one that command's `--help` lists (a feature's
/// own from `assist run FEATURE --help`); every global option the README names is one `assist run --help`
/// lists. A line that drifts from the code fails here, not in a newcomer's terminal.
@Suite("the README's usage lines")
struct ReadmeUsageTests {
    let data: TemporaryDirectory

    init() throws { data = try TemporaryDirectory("assist-readme") }

    func help(_ words: [String]) throws -> String {
        let result = try ProcessRunner.run(
            BuildProducts.assist, words + ["--help"], input: "",
            environment: ["ASSIST_DATA_DIR": data.url.path, "XDG_CONFIG_HOME": data.url.path])
        #expect(result.status == 0, "\(words.joined(separator: " ")) --help: \(result.standardError)")
        return result.standardOutput + result.standardError
    }

    /// The options shown in `text`: `--name`, without brackets or values.
    static func options(in text: Substring) -> [String] {
        let pattern = /--[a-z][a-z0-9-]*/
        return text.matches(of: pattern).map { String($0.output) }
    }

    /// The command a usage line runs: the words after `assist` up to the first that is not a plain lower-case
    /// word (an argument such as ID, FILE or [--x]); for `run`, the feature too.
    static func command(_ words: [Substring]) -> [String] {
        if words.first == "run", words.count > 1 { return ["run", String(words[1])] }
        return words.prefix { word in word.allSatisfy { $0.isLowercase || $0 == "-" } && word.first != "-" }
            .map(String.init)
    }

    @Test func everyUsageLineNamesACommandAndOptionsItTakes() throws {
        let readme = try String(
            contentsOf: BuildProducts.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Using it").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```").dropFirst().first)
        var helps: [[String]: String] = [:]
        var checked = 0
        for line in block.split(separator: "\n") {
            let said = line.prefix { $0 != "#" }
            let words = said.split(separator: " ")
            guard words.first == "assist", words.count > 1 else { continue }
            let command = Self.command(Array(words.dropFirst()))
            try #require(!command.isEmpty, "\(line)")
            let text = try helps[command] ?? help(command)
            helps[command] = text
            for option in Self.options(in: said) where option != "--help" {
                #expect(
                    text.contains(option),
                    "README: \(said.trimmingCharacters(in: .whitespaces)) — \(option) is not in `assist \(command.joined(separator: " ")) --help`"
                )
                checked += 1
            }
        }
        #expect(helps.count >= 25, "\(helps.keys)")
        #expect(checked >= 40, "\(checked) options checked")
        // The global options the paragraph after the block names.
        let global = try #require(
            section.components(separatedBy: "Global options").dropFirst().first?.split(separator: "\n\n").first)
        let runHelp = try help(["run"])
        let named = Self.options(in: global[...])
        #expect(named.count >= 10, "\(named)")
        for option in named {
            #expect(runHelp.contains(option), "README's global option \(option) is not in `assist run --help`")
        }
    }
}

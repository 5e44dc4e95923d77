import Foundation
import HostTesting
import Testing

/// Every phrase in every language Assist claims: the host's tables and each first-party plugin's, for each
/// language its manifest names. A key missing in Russian is English heard by a Russian speaker; a placeholder
/// missing or misspelt is a number or name never said.
@Suite("Phrases in every claimed language")
struct PhraseCompletenessTests {
    static let root = BuildProducts.packageRoot

    /// The keys and `{placeholders}` of `phrases.<language>.json` in `folder`, or nil when there is none.
    static func table(_ folder: URL, _ language: String) throws -> [String: Set<String>]? {
        let url = folder.appendingPathComponent("phrases.\(language).json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let phrases = object as? [String: String] else {
            Issue.record("\(url.path) is not an object of strings")
            return [:]
        }
        return phrases.mapValues { text in
            let pattern = /\{([A-Za-z0-9_-]+)\}/
            return Set(text.matches(of: pattern).map { String($0.output.1) })
        }
    }

    /// What is wrong with `language` against English in `folder`, one line each.
    static func problems(_ folder: URL, _ language: String, name: String) throws -> [String] {
        guard let english = try table(folder, "en") else { return ["\(name): there is no English table"] }
        guard let other = try table(folder, language) else { return ["\(name): there is no \(language) table"] }
        var found: [String] = []
        for (key, placeholders) in english.sorted(by: { $0.key < $1.key }) {
            guard let translated = other[key] else {
                found.append("\(name) \(language): \(key) is missing")
                continue
            }
            if translated != placeholders {
                found.append(
                    "\(name) \(language): \(key) has {\(translated.sorted().joined(separator: "}, {"))}, English has "
                        + "{\(placeholders.sorted().joined(separator: "}, {"))}")
            }
        }
        for key in other.keys.sorted() where english[key] == nil {
            found.append("\(name) \(language): \(key) is not in English (misspelt or left over)")
        }
        return found
    }

    @Test(arguments: ["ru", "zh", "es"])
    func theHostSaysEveryPhraseIn(language: String) throws {
        let problems = try Self.problems(
            Self.root.appendingPathComponent("share/assist/host"), language, name: "host")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Each first-party plugin, for every language its manifest names.
    @Test func everyPluginSaysEveryPhraseInTheLanguagesItClaims() throws {
        let plugins = Self.root.appendingPathComponent("Plugins")
        var problems: [String] = []
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: plugins.path).sorted() {
            let manifest = plugins.appendingPathComponent("\(name)/manifest.json")
            guard let data = try? Data(contentsOf: manifest),
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            let languages = (object["languages"] as? [String]) ?? ["en"]
            let share = plugins.appendingPathComponent("\(name)/share")
            for language in languages where language != "en" {
                problems += try Self.problems(share, language, name: name)
                checked += 1
            }
        }
        #expect(checked >= 8, "read-text, find-object, survey and the clock in ru and zh at least")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// The English keys whose `{count}` is followed by a plural noun ("{count} questions") and that have no
    /// `-one` form beside them ("1 question"), which `text(_:count:)` says for exactly one.
    static func countedWithoutOne(_ folder: URL) throws -> [String] {
        let url = folder.appendingPathComponent("phrases.en.json")
        guard FileManager.default.fileExists(atPath: url.path),
            let phrases = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: String]
        else { return [] }
        // Said only for numbers that are never one.
        let neverOne: Set = [
            "plugin.helper-disabled",  // after the third stop in a row
            "voice.too-many",  // over the limit of phrases
            "choose-at-least-n",  // for a minimum over one; choose-at-least is the form for one
            "shell.menu-again",  // the menu holds Settings and Quit at least
            "things-full", "things-full-menu",  // the study's number of things, 5
        ]
        let plural = /\{count\} ([a-z]+ )?[a-z]+s\b/
        return phrases.filter { key, text in
            !neverOne.contains(key) && !key.hasSuffix("-one") && phrases[key + "-one"] == nil && text.contains(plural)
        }.keys.sorted()
    }

    /// "1 questions" is heard as a mistake: every counted phrase of the host and each plugin has its form for
    /// one, and the tables in other languages have it too (the completeness tests above).
    @Test func everyCountedPhraseHasItsFormForOne() throws {
        var folders = [Self.root.appendingPathComponent("share/assist/host")]
        let plugins = Self.root.appendingPathComponent("Plugins")
        for name in try FileManager.default.contentsOfDirectory(atPath: plugins.path) {
            folders.append(plugins.appendingPathComponent("\(name)/share"))
        }
        let missing = try folders.flatMap { folder in
            try Self.countedWithoutOne(folder).map { "\(folder.path): \($0) has no \($0)-one" }
        }
        #expect(missing.isEmpty, "\(missing.joined(separator: "\n"))")
        // And the check finds one.
        let planted = try TemporaryDirectory("assist-phrases")
        try #"{"a": "{count} finished surveys wait.", "b": "{count} left", "c": "{count} items", "c-one": "1 item"}"#
            .write(to: planted.path("phrases.en.json"), atomically: true, encoding: .utf8)
        #expect(try Self.countedWithoutOne(planted.url) == ["a"])
    }

    /// The test itself catches what it is for.
    @Test func aMissingKeyAndAWrongPlaceholderAreFound() throws {
        let folder = try TemporaryDirectory("assist-phrases")
        try #"{"a": "Hello {name}", "b": "Bye", "c": "{n} left"}"#.write(
            to: folder.path("phrases.en.json"), atomically: true, encoding: .utf8)
        try #"{"a": "Привет {имя}", "c": "осталось {n}", "d": "лишнее"}"#.write(
            to: folder.path("phrases.ru.json"), atomically: true, encoding: .utf8)
        let problems = try Self.problems(folder.url, "ru", name: "test")
        #expect(
            problems == [
                "test ru: a has {}, English has {name}", "test ru: b is missing",
                "test ru: d is not in English (misspelt or left over)",
            ])
    }
}

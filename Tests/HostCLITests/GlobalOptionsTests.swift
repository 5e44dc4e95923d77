import Foundation
import HostTesting
import Testing

/// Assist's own options (`--data-dir`, `--lang`, `--no-speech`, …) stand anywhere on the command line.
@Suite("Global options anywhere")
struct GlobalOptionsTests {
    let data: TemporaryDirectory

    init() throws {
        data = try TemporaryDirectory("assist-global-options")
    }

    func assist(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist, arguments, environment: ["XDG_CONFIG_HOME": data.path("config").path])
    }

    @Test func beforeTheCommandBetweenItsWordsAndAfterIt() throws {
        let config = data.path("extra.toml")
        try Data("speech.rate = \"fast\"\n".utf8).write(to: config)
        for arguments in [
            ["--config", config.path, "plugins", "list"], ["plugins", "--config", config.path, "list"],
            ["plugins", "list", "--config=\(config.path)"],
        ] {
            let result = try assist(arguments + ["--data-dir", data.path("d").path])
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            #expect(result.lines.contains { $0.hasPrefix("assist.clock ") }, "\(arguments)")
            #expect(result.standardError.contains("\(config.path) line 1: speech.rate"), "the config was read")
        }
    }

    @Test func amongAFeaturesArgumentsAndAfterTheSeparatorTheFeatures() throws {
        let russian = try assist(["run", "clock", "--date", "--lang", "ru", "--no-speech"])
        #expect(russian.status == 0, "\(russian.standardError)")
        #expect(russian.lines.first?.hasPrefix("Сейчас") == true, "\(russian.lines)")
        let separated = try assist(["run", "--no-speech", "clock", "--", "--date"])
        #expect(separated.status == 0 && separated.lines.count == 2, "\(separated)")
        let featureOwn = try assist(["run", "--no-speech", "clock", "--", "--lang", "ru"])
        #expect(featureOwn.status == 1, "after --, --lang is the clock's, which does not take it")
        #expect(featureOwn.lines.first?.hasPrefix("Unknown option --lang") == true, "\(featureOwn.lines)")
    }

    /// A feature whose manifest does not name the user's language says so first, instead of English unexplained;
    /// one that does says nothing of the kind.
    @Test func aFeatureWithoutTheUsersLanguageSaysItSpeaksEnglishOnly() throws {
        let english = try assist(["run", "--lang", "ru", "--no-speech", "collect-videos", "status"])
        #expect(english.lines.first == "«Collect videos» говорит только по-английски.", "\(english.lines)")
        let russian = try assist(["run", "--lang", "ru", "--no-speech", "clock"])
        #expect(!russian.lines.contains { $0.contains("по-английски") }, "\(russian.lines)")
    }
}

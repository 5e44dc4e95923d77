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
    /// one that does says nothing of the kind. Assist's own all speak en, ru, zh and es: a stranger's plugin
    /// whose manifest names English alone is the case.
    @Test func aFeatureWithoutTheUsersLanguageSaysItSpeaksEnglishOnly() throws {
        let plugins = try TemporaryDirectory("assist-english-only")
        try CPluginBuilder(root: plugins.url).build(
            folder: "plain", defines: [#"PLUGIN_ID="org.example.plain""#],
            manifest: CPluginBuilder.manifest(
                id: "org.example.plain", extra: ["name": "Plain", "languages": ["en"]]))
        for (language, sentence) in [
            ("ru", "«Plain» говорит только по-английски."), ("es", "Plain solo habla inglés."),
        ] {
            let english = try assist(
                [
                    "run", "--lang", language, "--no-speech", "--data-dir", data.path("d").path, "--plugin-dir",
                    plugins.url.path, "org.example.plain",
                ])
            #expect(english.lines.contains(sentence), "\(english.lines) \(english.standardError)")
        }
        for language in ["ru", "es"] {
            let own = try assist(["run", "--lang", language, "--no-speech", "collect-videos", "status"])
            #expect(
                !own.lines.contains { $0.contains("по-английски") || $0.contains("solo habla inglés") }, "\(own.lines)")
        }
        let spanish = try assist(["run", "clock", "--lang", "es", "--no-speech"])
        #expect(spanish.lines.first?.hasPrefix("Son las") == true, "\(spanish.lines)")
    }

    /// Issue 35: the shell in Spanish at a terminal, typed key by key: its words, and S answers a yes-or-no
    /// question at once as Y does elsewhere.
    @Test func theShellSpeaksSpanishAndSAnswersYes() throws {
        let screen = try PseudoTerminal(
            BuildProducts.assist, ["shell", "--lang", "es", "--no-speech", "--data-dir", data.path("es").path],
            environment: ["XDG_CONFIG_HOME": data.path("config").path])
        #expect(screen.waitFor("Assist está listo."), "\(screen.text)")
        #expect(screen.waitFor("Elija una función."), "\(screen.text)")
        // The features by their Spanish names, from their manifests: each a line of its own. The list follows
        // the prompt line by line, so each is waited for (on a busy machine the prompt can stand alone a while).
        for name in ["Buscar objeto", "Leer texto", "Recoger vídeos", "Encuesta", "Reloj parlante"] {
            #expect(screen.waitFor(". \(name)\n"), "\(name): \(screen.text)")
        }
        screen.type([0x1B])
        #expect(screen.waitFor("¿Salir de Assist? S o N."), "\(screen.text)")
        #expect(screen.waitFor("Pulse S para sí o N para no."), "\(screen.text)")
        screen.type("s")
        #expect(screen.waitFor("Adiós."), "\(screen.text)")
        #expect(screen.waitForExit() == 0, "\(screen.text)")
    }
}

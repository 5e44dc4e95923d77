import Foundation
import HostTesting
import Testing

/// A session in another language is that language throughout (issue 72, item 6): the host's own words typed as
/// the person would say them, the features' names in Settings, the language shown as the one spoken, the survey's
/// commands in its words.
@Suite("A session in Spanish, Russian or Chinese")
struct TranslationTests {
    func shell(_ language: String, _ input: String) throws -> ProcessResult {
        let folder = try TemporaryDirectory("assist-lang")
        return try ProcessRunner.run(
            BuildProducts.assist, ["shell", "--no-speech", "--lang", language, "--data-dir", folder.url.path],
            input: input, timeoutSeconds: 60)
    }

    @Test func settingsNameTheFeaturesAndTheLanguageSpokenInIt() throws {
        for (language, settings, back, spoken, findObject) in [
            ("es", "ajustes", "volver", "Idioma: español", "Buscar objeto, guía"),
            ("zh", "设置", "返回", "语言：中文", "找东西，"),
        ] {
            let result = try shell(language, "\(settings)\n\(back)\n\u{1B}\n")
            #expect(result.lines.contains { $0.hasSuffix(spoken) }, "\(language): \(result.lines)")
            #expect(result.lines.contains { $0.contains(findObject) }, "\(language): \(result.lines)")
            #expect(
                !result.lines.contains { $0.contains("Find object") || $0.contains("Read text") }, "\(result.lines)")
        }
    }

    @Test func theHostsWordsAreTheSessionsLanguage() throws {
        // "detener" stops the talking clock, "ayuda tutorial" gives the tour; the offer names the Spanish words.
        let spanish = try shell("es", "reloj parlante\ndetener\nayuda tutorial\nsalir\n")
        #expect(spanish.lines.contains { $0.contains("Escriba o diga ayuda tutorial") }, "\(spanish.lines)")
        #expect(spanish.lines.contains("Se detuvo Reloj parlante."), "\(spanish.lines)")
        #expect(spanish.lines.contains { $0.hasPrefix("Un breve recorrido por Assist.") }, "\(spanish.lines)")
        #expect(!spanish.lines.contains { $0.contains("Orden desconocida") }, "\(spanish.lines)")
        let russian = try shell("ru", "5\nстоп\nзнакомство\n")
        #expect(russian.lines.contains { $0.contains("скажите «знакомство»") }, "\(russian.lines)")
        #expect(!russian.lines.contains { $0.contains("Неизвестная команда") }, "\(russian.lines)")
        #expect(!russian.standardOutput.contains("help tutorial"), "\(russian.lines)")
    }

    /// On a terminal, typed key by key, in Spanish: the camera allowed with S (for sí), the thing looked for named
    /// in Spanish, then "/detener" after the command key stops find-object (issue 72: "Orden desconocida:
    /// /detener"), which says so in Spanish.
    @Test func spanishWordsWorkAfterTheCommandKeyOnATerminal() throws {
        let folder = try TemporaryDirectory("assist-lang-terminal")
        let blank = folder.path("blank.png")
        let made = try ProcessRunner.run("/usr/bin/convert", ["-size", "640x480", "xc:gray60", blank.path])
        try #require(made.status == 0)
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "run", "--no-speech", "--lang", "es", "--camera", "image:\(blank.path)", "--camera-fps", "2",
                "--data-dir", folder.url.path, "find-object", "cup",
            ])
        #expect(screen.waitFor("Buscar objeto pide"), "\(screen.text)")
        screen.type("s")
        #expect(screen.waitFor("Buscando el objeto: taza", timeout: 30), "\(screen.text)")
        screen.typeSlowly("/detener\r")
        #expect(screen.waitFor("Se detuvo Buscar objeto."), "\(screen.text)")
        #expect(!screen.text.contains("Orden desconocida"), "\(screen.text)")
        #expect(screen.waitForExit() == 0)
    }

    /// No phrase heard in Spanish, Russian or Chinese names an English command word for the person to say or
    /// type (issue 72, item 6: "Diga help tutorial", "Diga forget me", "Space or stop recording"). Left out: the
    /// command lines and their options (`assist survey check`, `--minutes`), setting names (`voice.echo-cancel`)
    /// and the words a question takes in any language (`dialog.words-*`).
    @Test func noPhraseInAnotherLanguageAsksForAnEnglishWord() throws {
        let root = BuildProducts.packageRoot
        var files = [root.appendingPathComponent("share/assist/host")]
        let plugins = root.appendingPathComponent("Plugins")
        for name in try FileManager.default.contentsOfDirectory(atPath: plugins.path) {
            files.append(plugins.appendingPathComponent("\(name)/share"))
        }
        let words = [
            "help tutorial", "what can i say", "forget me", "retry upload", "play recording", "record again",
            "start survey", "stop recording", "stop", "next", "faster", "slower", "repeat", "help", "pause", "resume",
        ]
        let exempt = try Regex(#"assist( [a-z-]+)+|--[a-z-]+|\{[a-z-]+\}|[a-z]+(\.[a-z-]+)+"#)
        // photo-sensor's own command words are its command line's (`assist photo-sensor pause`).
        let commandLines: Set = ["unknown-command", "pause-unknown-option", "help-usage"]
        var found: [String] = []
        for folder in files {
            for language in ["es", "ru", "zh"] {
                let file = folder.appendingPathComponent("phrases.\(language).json")
                guard let data = try? Data(contentsOf: file) else { continue }
                let table = try JSONDecoder().decode([String: String].self, from: data)
                for (key, text) in table where !key.hasPrefix("dialog.words-") && !commandLines.contains(key) {
                    // Its English words alone, one space between them and around them.
                    let latin = text.lowercased().replacing(exempt, with: " ").split { !("a"..."z").contains($0) }
                    let plain = " " + latin.joined(separator: " ") + " "
                    for word in words where plain.contains(" \(word) ") {
                        found.append("\(file.path.dropFirst(root.path.count + 1)) \(key): \(word)")
                        break
                    }
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}

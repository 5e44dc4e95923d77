import AssistCore
import Foundation
import HostTesting
import Testing

/// The shell's spoken settings (issue 35) on a pseudo-terminal, keys typed one by one: a setting changed by
/// keys is said, kept in `settings.toml` and heard in the next run; one the admin locked is refused; a
/// feature's own setting from its manifest is changed like the host's.
@Suite("Settings by ear")
struct SettingsMenuTests {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("assist-settings") }

    var environment: [String: String] {
        ["XDG_CONFIG_HOME": folder.path("config").path, "ASSIST_SYSCONFDIR": folder.path("etc").path]
    }

    var settingsFile: URL { folder.path("config/assist/settings.toml") }

    func terminal() throws -> PseudoTerminal {
        try PseudoTerminal(
            BuildProducts.assist, ["shell", "--no-speech", "--data-dir", folder.path("data").path],
            environment: environment)
    }

    /// The number before "label" in the list shown last (the menus list "3. Settings"), waited for.
    func number(of label: String, in screen: PseudoTerminal) throws -> String {
        try #require(screen.number(of: label), "\(label): \(screen.text)")
    }

    /// Escape leaves the settings for the menu, Escape again asks to quit, and y ends the shell cleanly.
    func leave(_ screen: PseudoTerminal) {
        screen.type([0x1B])
        #expect(screen.waitFor("Choose a feature.", count: 2), "Escape goes back to the menu: \(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Quit Assist? Y or N."), "\(screen.text)")
        screen.type("y")
        #expect(screen.waitForExit() == 0)
    }

    /// A new language is confirmed in that language, not the old one (issue 72), and kept for the next start.
    @Test func aLanguageChosenIsConfirmedInItAndKept() throws {
        let screen = try terminal()
        #expect(screen.waitFor("Choose a feature."), "\(screen.text)")
        screen.type(try number(of: "Settings", in: screen))
        #expect(screen.waitFor("Settings. Choose one to change it."), "\(screen.text)")
        screen.type(try number(of: "Language", in: screen) + "\r")
        #expect(screen.waitFor("Spanish"), "\(screen.text)")
        screen.type(try number(of: "Spanish", in: screen))
        #expect(screen.waitFor("Idioma: español. Se aplica desde el próximo inicio."), "\(screen.text)")
        #expect(!screen.text.contains("Language: Spanish."), "\(screen.text)")
        leave(screen)
        let kept = try String(contentsOf: settingsFile, encoding: .utf8)
        #expect(try ConfigFile.parse(kept)["language"] == .string("es"), "\(kept)")
    }

    /// How long `assist say` sounds for a fixed sentence, with the settings as they are.
    func sampleSeconds(_ name: String) throws -> Double {
        let wav = folder.path("\(name).wav")
        let said = try ProcessRunner.run(
            BuildProducts.assist,
            [
                "say", "The quick brown fox jumps over the lazy dog, and then it runs away into the woods.",
                "--audio-out", "wav:\(wav.path)", "--data-dir", folder.path("data").path,
            ], environment: environment)
        #expect(said.status == 0, "\(said.standardError)")
        return try SoundAnalysis(url: wav).soundingSeconds(channel: 0)
    }

    @Test func theSpeechRateRaisedByKeysIsSaidKeptAndHeardInTheNextRun() throws {
        let before = try sampleSeconds("before")
        let screen = try terminal()
        #expect(screen.waitFor("Choose a feature."), "\(screen.text)")
        screen.type(try number(of: "Settings", in: screen))
        #expect(screen.waitFor("Settings. Choose one to change it."), "\(screen.text)")
        #expect(screen.waitFor("1. Speech rate: 175 words a minute"), "\(screen.text)")
        // More than nine settings: a digit waits for another, Enter takes it.
        screen.type("1\r")
        #expect(screen.waitFor("Speech rate: 175 words a minute."), "\(screen.text)")
        for (step, rate) in [200, 225, 250, 275, 300].enumerated() {
            screen.type("1")
            #expect(screen.waitFor("Speech rate: \(rate) words a minute."), "step \(step + 1): \(screen.text)")
            #expect(screen.waitFor("Speech rate: \(rate) words a minute.", count: 2), "asked again at \(rate)")
        }
        screen.type("3")
        #expect(screen.waitFor("1. Speech rate: 300 words a minute"), "the list says the new value: \(screen.text)")
        leave(screen)

        let kept = try String(contentsOf: settingsFile, encoding: .utf8)
        #expect(try ConfigFile.parse(kept)["speech.rate"] == .int(300), "\(kept)")
        let after = try sampleSeconds("after")
        // 175 → 300 words a minute: the same sentence takes about 175/300 of the time.
        #expect(after / before < 0.75 && after / before > 0.45, "\(before) s → \(after) s")
    }

    /// The pitch `assist say` speaks a fixed sentence at, with the settings as they are.
    func samplePitch(_ name: String) throws -> Double {
        _ = try sampleSeconds(name)
        return try #require(SoundAnalysis(url: folder.path("\(name).wav")).medianPitchHz(channel: 0))
    }

    @Test func aVoiceChosenByKeysIsKeptAndHeardHigher() throws {
        let before = try samplePitch("standard")
        let screen = try terminal()
        #expect(screen.waitFor("Choose a feature."), "\(screen.text)")
        screen.type(try number(of: "Settings", in: screen))
        #expect(screen.waitFor("Settings. Choose one to change it."), "\(screen.text)")
        screen.type(try number(of: "Voice", in: screen) + "\r")
        #expect(screen.waitFor("1. standard, male, chosen now"), "\(screen.text)")
        screen.type("2")
        #expect(screen.waitFor("Voice: higher, female."), "\(screen.text)")
        leave(screen)
        let kept = try String(contentsOf: settingsFile, encoding: .utf8)
        #expect(try ConfigFile.parse(kept)["speech.voice"] == .string("female"), "\(kept)")
        let after = try samplePitch("female")
        #expect(after / before > 1.3, "\(before) Hz → \(after) Hz")
    }

    @Test func aLockedSettingIsRefusedAndAFeaturesOwnIsChanged() throws {
        let etc = folder.path("etc")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        try "[admin]\nlocked = [\"cues.volume\"]\n".write(
            to: etc.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        let screen = try terminal()
        #expect(screen.waitFor("Choose a feature."), "\(screen.text)")
        screen.type(try number(of: "Settings", in: screen))
        #expect(screen.waitFor("Settings. Choose one to change it."), "\(screen.text)")
        screen.type(try number(of: "Cue volume", in: screen) + "\r")
        #expect(
            screen.waitFor("Cue volume is set by the administrator and cannot be changed here."), "\(screen.text)")
        #expect(screen.waitFor("Settings. Choose one to change it.", count: 2), "\(screen.text)")
        // A feature's own, from its manifest: a choice of its values, the one in use said so.
        screen.type(try number(of: "Find object, pause the search after", in: screen) + "\r")
        #expect(screen.waitFor("3. 2 minutes, chosen now"), "\(screen.text)")
        screen.type("1")
        #expect(screen.waitFor("Find object, pause the search after: never."), "\(screen.text)")
        // A flag turns over at once.
        #expect(screen.waitFor("Settings. Choose one to change it.", count: 3), "\(screen.text)")
        screen.type(try number(of: "Low-pitched cues", in: screen) + "\r")
        #expect(screen.waitFor("Low-pitched cues: on."), "\(screen.text)")
        leave(screen)
        let kept = try String(contentsOf: settingsFile, encoding: .utf8)
        #expect(try ConfigFile.parse(kept)["find-object.auto-pause"] == .string("0"), "\(kept)")
        #expect(try ConfigFile.parse(kept)["cues.low-pitch"] == .bool(true), "\(kept)")
        #expect(!kept.contains("volume"), "the locked one was not written: \(kept)")
    }

    /// A settings file edited by hand to a rate Assist cannot use: one sentence with the file, the line and
    /// what is used instead.
    @Test func aHandEditedRateOutOfRangeIsSaidOnce() throws {
        try FileManager.default.createDirectory(
            at: settingsFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[speech]\nrate = 9000\n".write(to: settingsFile, atomically: true, encoding: .utf8)
        let run = try InProcessApp.run(
            ["run", "clock", "--no-speech", "--data-dir", folder.path("data").path], environment: environment)
        let said = (run.standardOutput + run.standardError).split(separator: "\n").filter { $0.contains("9000") }
        #expect(
            said == [
                "Config: \(settingsFile.path) line 2: speech.rate is 9000, but it takes a whole number from 80 to 450; the nearest allowed value is used."
            ], "\(run.standardOutput)\n\(run.standardError)")
    }
    /// A feature's declared setting given a value it cannot use, in a config file: the file, the line and what
    /// the setting takes, as the host's own are said; a key the feature reads without declaring it is left
    /// alone.
    @Test func aFeaturesDeclaredSettingOfTheWrongKindIsNamedWithFileAndLine() throws {
        let config = folder.path("config.toml")
        try """
        [read-text]
        streaming = "maybe"
        area = "sideways"
        ocr-languages = "eng"
        [find-object]
        auto-pause = 45
        directions = "clock"
        """.write(to: config, atomically: true, encoding: .utf8)
        let run = try InProcessApp.run(
            ["run", "clock", "--no-speech", "--data-dir", folder.path("data").path, "--config", config.path],
            environment: environment)
        let said = (run.standardOutput + run.standardError).split(separator: "\n").filter { $0.hasPrefix("Config: ") }
        #expect(
            said == [
                "Config: \(config.path) line 2: read-text.streaming is the text \"maybe\", but it takes true or false; the default is used.",
                "Config: \(config.path) line 3: read-text.area is the text \"sideways\", but it takes one of \"page\", \"full\"; the default is used.",
                "Config: \(config.path) line 6: find-object.auto-pause is 45, but it takes one of \"0\", \"60\", \"120\", \"300\", \"600\"; the default is used.",
            ], "\(run.standardOutput)\n\(run.standardError)")
        #expect(run.status == 0)
    }
}

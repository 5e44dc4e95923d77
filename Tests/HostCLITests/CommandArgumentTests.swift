import Foundation
import HostTesting
import Testing

/// Commands with an argument and commands asked about first (issue 20), typed: a launch keyword that takes
/// words launches its feature with them ("find object cup"); a plugin's list of choices set through
/// `assist_input_service.set_choices` from its library's init, and a command it marked with `set_confirmation`,
/// both from a third-party C plugin that runs in a helper process; stop while a feature records asks first.
@Suite("Commands with an argument, and commands asked about first", .serialized)
struct CommandArgumentTests {
    let data: TemporaryDirectory
    let plugins: TemporaryDirectory

    init() throws {
        data = try TemporaryDirectory("assist-argument-data")
        plugins = try TemporaryDirectory("assist-argument-plugins")
    }

    /// The test plugin built with `-DCHOICES` as org.example.fruit, its launch keyword "pick fruit" taking one
    /// of the fruits its init sets.
    func buildFruit(takes: String = "choice") throws {
        try CPluginBuilder(root: plugins.url).build(
            folder: "fruit", defines: ["CHOICES", #"PLUGIN_ID="org.example.fruit""#],
            manifest: CPluginBuilder.manifest(
                id: "org.example.fruit",
                extra: [
                    "name": "Fruit",
                    "services": ["required": ["assist.dialog/1"], "optional": ["assist.input/1"]],
                    "keywords": [["phrase": "pick fruit", "scope": "global", "lang": "en", "takes": takes]],
                ]))
    }

    func shell(_ lines: [ProcessRunner.TypedLine], extra: [String] = []) throws -> [String] {
        let (output, ended) = try InProcessApp.typing(
            ["shell", "--no-speech", "--data-dir", data.url.path, "--plugin-dir", plugins.url.path] + extra,
            lines: lines, environment: ["XDG_CONFIG_HOME": data.url.path], timeoutSeconds: 60)
        #expect(ended)
        return output.split(separator: "\n").map(String.init)
    }

    static func printed(_ line: String) -> @Sendable (String) -> Bool {
        { $0.contains("\n" + line + "\n") || $0.hasPrefix(line + "\n") }
    }

    /// True once the menu is back after `line` was printed.
    static func menu(after line: String) -> @Sendable (String) -> Bool {
        { output in
            guard let at = output.range(of: line + "\n", options: .backwards) else { return false }
            return output[at.upperBound...].contains("Choose a feature.\n")
        }
    }

    @Test func aPhraseThatTakesWordsLaunchesWithThemAndAMarkedCommandIsAskedAboutFirst() throws {
        try buildFruit()
        let wait = 20 * ProcessRunner.timeScale
        let lines = try shell([
            .init("pick fruit banana", after: wait, once: Self.printed("Choose a feature.")),
            .init("wipe", after: wait, once: Self.printed("Picked banana.")),
            .init("n", after: wait, once: Self.printed("Wipe everything?")),
            .init("wipe", after: wait, once: Self.printed("Not done.")),
            .init("y", after: wait, once: { $0.components(separatedBy: "Wipe everything?\n").count == 3 }),
            .init("q", after: wait, once: Self.printed("Command wipe.")),
            .init("find object cup", after: wait, once: Self.menu(after: "Test plugin stopped.")),
            .init("q", after: wait, once: Self.printed("Looking for object: cup")),
            .init("find text exit", after: wait, once: Self.menu(after: "Looking for object: cup")),
            .init("q", after: wait, once: Self.printed("Looking for text: exit")),
            .init("quit", after: wait, once: Self.menu(after: "Looking for text: exit")),
        ])
        let joined = lines.joined(separator: "\n")
        // The third party's plugin ran in a helper process: its library's init and its commands crossed it.
        #expect(lines.contains("Picked banana."), "\(joined)")
        #expect(lines.filter { $0 == "Wipe everything?" }.count == 2, "\(joined)")
        #expect(lines.contains("Not done."), "\(joined)")
        // "wipe" reached the plugin once: after yes, not after no.
        #expect(lines.filter { $0 == "Command wipe." }.count == 1, "\(joined)")
        let no = try #require(lines.firstIndex(of: "Not done."))
        let done = try #require(lines.firstIndex(of: "Command wipe."))
        #expect(no < done)
        #expect(lines.contains("Looking for object: cup"), "\(joined)")
        #expect(lines.contains("Looking for text: exit"), "\(joined)")
    }

    @Test func aKeywordThatTakesSomethingUnknownIsRefusedWithTheReason() throws {
        try buildFruit(takes: "anything")
        let result = try ProcessRunner.run(
            BuildProducts.assist,
            ["plugins", "list", "--data-dir", data.url.path, "--plugin-dir", plugins.url.path],
            environment: ["XDG_CONFIG_HOME": data.url.path])
        // The manifest is refused as a whole, so the plugin is named by its folder.
        let line = try #require(result.lines.first { $0.hasPrefix("fruit,") }, "\(result.lines)")
        #expect(line.contains("takes must be choice or text, not \"anything\""), "\(line)")
    }

    /// Stop while a feature records from the microphone loses the take: asked first, by key or voice; no goes
    /// on recording, yes stops.
    @Test func stopWhileAFeatureRecordsIsAskedAboutFirst() throws {
        let manifest = CPluginBuilder.manifest(
            id: "org.test.sound",
            extra: ["name": "Sound", "services": ["required": ["assist.speech/1"]], "devices": ["microphone"]])
        try CPluginBuilder(root: plugins.url).build(folder: "sound", manifest: manifest, source: "sound_plugin.c")
        let room = data.url.appendingPathComponent("room.wav")
        _ = try ProcessRunner.run(
            "/usr/bin/sox",
            ["-n", "-r", "16000", "-c", "1", "-b", "16", room.path, "synth", "6", "pinknoise", "vol", "0.05"])
        func run(_ lines: [ProcessRunner.TypedLine]) throws -> [String] {
            let (output, _) = try InProcessApp.typing(
                [
                    "run", "org.test.sound", "record", "--no-speech", "--data-dir", data.url.path, "--plugin-dir",
                    plugins.url.path, "--mic", "live:" + room.path,
                ], lines: lines, environment: ["XDG_CONFIG_HOME": data.url.path], timeoutSeconds: 60)
            return output.split(separator: "\n").map(String.init)
        }
        let question = "A recording is running. Stop it?"
        let kept = try run([
            .init("stop", after: 1), .init("n", after: 10, once: Self.printed(question)),
            .init("", after: 20 * ProcessRunner.timeScale, once: Self.printed("Read 96000 frames.")),
        ])
        #expect(kept.contains(question) && kept.contains("Not done."), "\(kept)")
        #expect(kept.contains("Read 96000 frames."), "the recording went on to its end: \(kept)")
        let stopped = try run([.init("stop", after: 1), .init("y", after: 10, once: Self.printed(question))])
        #expect(stopped.contains(question), "\(stopped)")
        #expect(!stopped.contains { $0.hasPrefix("Read ") }, "stopped before its end: \(stopped)")
    }
}

import Foundation
import HostTesting
import Testing

/// Assist's own features ask, the first time they start at a terminal, for each device and the network they
/// declare (issue 34, docs/security.md): typed key by key on a pseudo-terminal, the answer kept in
/// `plugin-permissions.json` (0600), shown by `plugins permissions` and enforced by the services; Escape keeps
/// nothing; a pipe, a kiosk and `plugins.ask-first-use = false` are not asked.
@Suite("First use of Assist's own features", .serialized)
struct FirstUseTests {
    let folder: TemporaryDirectory
    let blank: URL

    init() throws {
        folder = try TemporaryDirectory("assist-first-use")
        blank = folder.path("blank.png")
        let made = try ProcessRunner.run("/usr/bin/convert", ["-size", "320x240", "xc:gray60", blank.path])
        try #require(made.status == 0)
    }

    var data: URL { folder.path("data") }
    var choices: URL { data.appendingPathComponent("plugin-permissions.json") }

    func findObject(_ extra: [String] = []) throws -> PseudoTerminal {
        try PseudoTerminal(
            BuildProducts.assist,
            ["run", "--no-speech", "--camera", "image:\(blank.path)", "--camera-fps", "2", "--data-dir", data.path]
                + extra + ["find-object", "cup"])
    }

    func assist(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(BuildProducts.assist, arguments + ["--data-dir", data.path])
    }

    @Test func noIsKeptAndEnforcedUntilTheUserChangesIt() throws {
        let first = try findObject()
        #expect(first.waitFor("Find object asks for the camera. Allow it? Y or N."), "\(first.text)")
        first.type("n")
        #expect(first.waitFor("Find object will not use the camera."), "\(first.text)")
        #expect(first.waitFor("assist plugins permissions assist.find-object"), "\(first.text)")
        #expect(first.waitFor("Find object asked for the camera, which it was not given. Refused."), "\(first.text)")
        #expect(first.waitForExit() == 1, "\(first.text)")
        #expect(!first.text.contains("Looking for object"), "the refusal instead of the search: \(first.text)")

        let attributes = try FileManager.default.attributesOfItem(atPath: choices.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let info = try assist(["plugins", "permissions", "assist.find-object"])
        #expect(info.lines.contains("Camera: asked for, turned off"), "\(info.lines)")

        // Asked once: the next start is refused without a question.
        let second = try findObject()
        #expect(second.waitFor("which it was not given. Refused."), "\(second.text)")
        #expect(second.waitForExit() == 1)
        #expect(!second.text.contains("Allow it?"), "\(second.text)")

        let changed = try assist(["plugins", "permissions", "assist.find-object", "--camera", "on"])
        #expect(changed.status == 0, "\(changed.standardError)")
        let third = try findObject()
        #expect(third.waitFor("Looking for object: cup"), "\(third.text)")
        third.type([0x1B])
        #expect(third.waitForExit() == 0, "\(third.text)")
        #expect(!third.text.contains("Allow it?") && !third.text.contains("Refused"), "\(third.text)")
    }

    /// A start that uses none of what the feature declares asks nothing (issue 72, item 11: `teach --video` was
    /// asked for the camera): find-object's list of taught things, read-text reading a photo (each manifest's
    /// `first_use.not_for`). The next start that uses the camera still asks.
    @Test func aStartThatUsesNoDeviceAsksNothing() throws {
        let things = try PseudoTerminal(
            BuildProducts.assist, ["run", "--no-speech", "--data-dir", data.path, "find-object", "things"])
        #expect(things.waitFor("No things taught yet."), "\(things.text)")
        #expect(things.waitForExit() == 0, "\(things.text)")
        let read = try PseudoTerminal(
            BuildProducts.assist,
            ["run", "--no-speech", "--data-dir", data.path, "read-text", "--image", blank.path, "--exit-at-end"])
        #expect(read.waitForExit(timeout: 60) != nil, "\(read.text)")
        for screen in [things, read] { #expect(!screen.text.contains("asks for"), "\(screen.text)") }
        #expect(!FileManager.default.fileExists(atPath: choices.path), "nothing was decided for the person")
        let search = try findObject()
        #expect(search.waitFor("Find object asks for the camera. Allow it? Y or N."), "\(search.text)")
        search.type([0x1B])
        #expect(search.waitForExit() != nil)
    }

    /// Each thing a feature uses is its own question; Escape starts nothing and keeps nothing for the question
    /// it left, and the next start asks that one again.
    @Test func eachPermissionIsAskedAndEscapeKeepsNothing() throws {
        let survey = try PseudoTerminal(
            BuildProducts.assist, ["run", "--no-speech", "--data-dir", data.path, "survey"])
        #expect(survey.waitFor("Survey asks for the microphone. Allow it? Y or N."), "\(survey.text)")
        survey.type("y")
        #expect(
            survey.waitFor("Survey asks for the network, to send to the server you set up for it."), "\(survey.text)")
        survey.type([0x1B])
        #expect(survey.waitForExit() == 1, "\(survey.text)")
        let kept = try JSONSerialization.jsonObject(with: Data(contentsOf: choices)) as? [String: [String: Bool]]
        #expect(kept == ["assist.survey": ["microphone": true]])

        let again = try PseudoTerminal(BuildProducts.assist, ["run", "--no-speech", "--data-dir", data.path, "survey"])
        #expect(again.waitFor("Survey asks for the network"), "\(again.text)")
        #expect(!again.text.contains("asks for the microphone"), "\(again.text)")
        again.type([0x1B])
        #expect(again.waitForExit() == 1)
    }

    /// Nobody is asked where nobody can answer (a pipe), nor when the admin or user turned the question off.
    @Test func aPipeAndTheSettingAreNotAsked() throws {
        let (output, ended) = try InProcessApp.typing(
            [
                "run", "--no-speech", "--camera", "image:\(blank.path)", "--data-dir", data.path, "find-object",
                "cup",
            ], lines: [ProcessRunner.when("Looking for object: cup", type: "stop")])
        #expect(ended, "\(output)")
        #expect(output.contains("Looking for object: cup"), "\(output)")
        #expect(!output.contains("Allow it?"), "\(output)")

        let config = folder.path("config.toml")
        try "plugins.ask-first-use = false\n".write(to: config, atomically: true, encoding: .utf8)
        let screen = try findObject(["--config", config.path])
        #expect(screen.waitFor("Looking for object: cup"), "\(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitForExit() == 0, "\(screen.text)")
        #expect(!screen.text.contains("Allow it?"), "\(screen.text)")
        #expect(!FileManager.default.fileExists(atPath: choices.path))
    }

    /// Barcode sends nothing until an admin sets its lookup address (`first_use.network_needs_settings`): its
    /// first start asks for the camera alone, and the first start after the address is set asks for the network.
    @Test func theNetworkIsAskedOnlyOnceThereIsSomewhereToSend() throws {
        let barcode = { (extra: [String]) in
            try PseudoTerminal(
                BuildProducts.assist,
                ["run", "--no-speech", "--camera", "image:\(self.blank.path)", "--data-dir", self.data.path] + extra
                    + ["barcode"])
        }
        let first = try barcode([])
        #expect(first.waitFor("Barcode asks for the camera. Allow it? Y or N."), "\(first.text)")
        first.type("y")
        #expect(first.waitFor("Barcode reader."), "\(first.text)")
        first.type([0x1B])
        #expect(first.waitForExit() != nil)
        #expect(!first.text.contains("network"), "\(first.text)")

        let config = folder.path("lookup.toml")
        try "[barcode]\nlookup-url = \"http://127.0.0.1:9/{code}\"\n".write(
            to: config, atomically: true, encoding: .utf8)
        let second = try barcode(["--config", config.path])
        #expect(second.waitFor("Barcode asks for the network"), "\(second.text)")
        second.type("n")
        #expect(second.waitFor("Barcode reader."), "\(second.text)")
        second.type([0x1B])
        #expect(second.waitForExit() != nil)
        #expect(!second.text.contains("asks for the camera"), "asked once: \(second.text)")
        let kept = try JSONSerialization.jsonObject(with: Data(contentsOf: choices)) as? [String: [String: Bool]]
        #expect(kept == ["assist.barcode": ["camera": true, "network": false]])
    }
}

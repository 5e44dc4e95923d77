import Foundation
import HostTesting
import Testing

/// The participant's way in, by keys and typed words only, through the real binary: consent statement by
/// statement, a thing added, a slot filmed, statuses read, a deletion that waits for a yes.
@Suite("collect-videos menus", .serialized)
struct CollectVideosMenuTests {
    let folder: TemporaryDirectory
    let server: FakeOrbitServer

    init() throws {
        folder = try TemporaryDirectory("assist-orbit-menu")
        server = try FakeOrbitServer()
        try OrbitFixtures.writeConfig(
            to: folder.path("config.toml"), serverURL: server.baseURL, extra: "record-seconds = \"2\"")
        try OrbitFixtures.camera(folder.path("camera.mp4"), seconds: 6)
    }

    /// Runs the plugin's menus with typed lines, each after `pause` seconds; what it printed.
    func menus(_ steps: [(String, Double)]) throws -> [String] {
        let run = try ProcessRunner.typing(
            BuildProducts.assist,
            [
                "run", "collect-videos", "--no-speech", "--data-dir", folder.path("data").path, "--config",
                folder.path("config.toml").path, "--camera", "video:" + folder.path("camera.mp4").path,
            ], lines: steps.map { ProcessRunner.TypedLine($0.0, after: $0.1) })
        #expect(run.endedByItself, "the menus end when the input does")
        return run.output.split(separator: "\n").map(String.init)
    }

    @Test func consentAThingAndAClipByKeysAlone() throws {
        var steps: [(String, Double)] = [("c", 0.8)]
        steps += Array(repeating: ("y", 0.3), count: 6)
        steps += [("Grace Hopper", 0.3), ("grace@example", 0.3), ("grace@example.org", 0.3)]
        steps += [("a", 1.5), ("ab", 0.3), ("Red cup", 0.3), ("1", 0.8), ("2", 3.5)]
        steps += [("cancel", 3.5), ("1", 0.5), ("9", 0.5), ("n", 0.5), ("q", 0.5)]
        let lines = try menus(steps)
        #expect(
            lines.contains(
                "1. I have read the participant information sheet, or had it read to me, and I have had the chance to ask questions. Agree? Y or N."
            ), "\(lines)")
        #expect(
            lines.contains("Email address is not valid. Your email address."), "validation says what is wrong: \(lines)"
        )
        #expect(lines.contains("Consent received. You are now taking part in the ORBIT study."))
        #expect(
            lines.contains(
                "The name ab is too short: use at least 3 characters. Name of the thing, 3 to 50 characters."))
        #expect(lines.contains("Red cup added."))
        #expect(lines.contains("Stopped at 2 seconds. Testing video 1 of 2 saved."), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("1. Testing video 1 of 2, recorded") }, "the slot says it is filled")
        #expect(lines.contains("Stopped at 2 seconds. Testing video 2 of 2 saved."), "the next slot by its number")
        #expect(lines.contains("Delete Red cup and its 2 videos? Y or N."))
        #expect(lines.contains("Not deleted."))
        #expect(server.participantEmails == ["grace@example.org"])
        #expect(server.things.values.sorted() == ["Red cup"], "\(server.calls)")
    }

    @Test func refusingAStatementSendsNothing() throws {
        let lines = try menus([("c", 0.8), ("y", 0.3), ("n", 0.3), ("q", 0.5)])
        #expect(lines.contains("Taking part needs your agreement to every statement. Nothing was sent."), "\(lines)")
        #expect(server.calls.isEmpty)
    }
}

import Foundation
import HostTesting
import Testing

/// Issue 39: find-object taught from the training clips collect-videos filmed of a thing, through both real
/// features against the loopback ORBIT server: asked first, read where collect-videos keeps the clips (its media
/// folder, then its cache once the server has them), nothing sent; and each way there are none is one sentence.
@Suite("find-object taught from collect-videos' clips", .serialized)
struct TeachFromClipsTests {
    let folder: TemporaryDirectory
    let server: FakeOrbitServer

    init() throws {
        folder = try TemporaryDirectory("assist-orbit-teach")
        server = try FakeOrbitServer()
        try OrbitFixtures.writeConfig(
            to: folder.path("config.toml"), serverURL: server.baseURL, extra: "[outbox]\nretry-base-seconds = 0.1")
        // The same with find-object in a sandboxed helper: it reads the offer through the links, by the rules
        // its helper is given, and nothing else of collect-videos'.
        try OrbitFixtures.writeConfig(
            to: folder.path("isolated.toml"), serverURL: server.baseURL,
            extra: "[outbox]\nretry-base-seconds = 0.1\n[plugins]\nisolated = [\"assist.find-object\"]")
        // The thing itself, turning in front of a brick wall, as a participant films it.
        try ThingVideo.make(folder.path("camera.mp4").path, seconds: 12)
    }

    func collect(_ verb: [String]) throws -> ProcessResult { try OrbitFixtures.run(verb, in: folder, timeout: 90) }

    func findObject(_ arguments: [String], input: String? = nil, config: String = "config.toml") throws -> ProcessResult
    {
        try ProcessRunner.run(
            BuildProducts.assist,
            ["run", "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path(config).path]
                + ["find-object"] + arguments, input: input, timeoutSeconds: 240)
    }

    func all(_ result: ProcessResult) -> String { result.standardOutput + result.standardError }

    var clips: [URL] {
        let walker = FileManager.default.enumerator(at: folder.path("data"), includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "mp4" }
    }

    @Test func trainingClipsTeachFindObjectOnlyWhenAllowedAndNothingIsSent() throws {
        let early = try findObject(["teach", "--from-collect-videos", "Badge", "--yes"])
        #expect(early.status != 0)
        #expect(all(early).contains("Nothing has been filmed with collect videos on this device yet."), "\(all(early))")

        let consent = try collect(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
        try #require(consent.status == 0, "\(consent.lines)")
        _ = try collect(["thing", "add", "Badge"])
        _ = try collect(["thing", "add", "Mug"])
        let none = try findObject(["teach", "--from-collect-videos", "badge", "--yes"])
        #expect(none.status != 0)
        #expect(all(none).contains("Badge has no training videos in collect videos yet."), "\(all(none))")
        let unknown = try findObject(["teach", "--from-collect-videos", "Keys", "--yes"])
        #expect(all(unknown).contains("Collect videos has no thing called Keys. Its things are: Badge, Mug."))

        for slot in ["1", "2"] {
            let recorded = try collect(["record", "Badge", "--kind", "training", "--slot", slot, "--seconds", "4"])
            #expect(recorded.status == 0, "\(recorded.lines)")
        }
        // A testing clip is of the thing among others: not taught from.
        _ = try collect(["record", "Badge", "--kind", "testing", "--seconds", "2"])
        #expect(try collect(["sync", "--wait", "30"]).lines.last == "Everything is sent.")
        let calls = server.calls.count

        // Asked first; N keeps nothing.
        let declined = try findObject(["teach", "my badge", "--from-collect-videos", "badge"], input: "n\n")
        #expect(declined.status != 0)
        let question =
            "Teach my badge from the 2 training videos of Badge filmed with collect videos? They stay on this device; nothing is sent. Y or N."
        #expect(all(declined).contains(question), "\(all(declined))")
        #expect(declined.lines.contains("Nothing was taught; the videos of collect videos were not used."))
        #expect(try findObject(["things"]).lines.last?.hasPrefix("No things taught yet.") == true)

        // Sent clips are read from collect-videos' cache, where they wait after upload.
        #expect(clips.count == 3 && clips.allSatisfy { $0.path.contains("/cache/") }, "\(clips)")
        let taught = try findObject(["teach", "my badge", "--from-collect-videos", "badge"], input: "y\n")
        #expect(taught.status == 0, "\(all(taught))")
        #expect(taught.lines.contains("Learning my badge from 2 training videos of collect videos."), "\(taught.lines)")
        let prefix = "Learned my badge from "
        let learned = try #require(taught.lines.last(where: { $0.hasPrefix(prefix) }), "\(taught.lines)")
        let views = Int(learned.dropFirst(prefix.count).prefix { $0.isNumber }) ?? 0
        #expect(views >= 4, "\(learned)")
        #expect(try findObject(["things"]).lines.last == "my badge: \(views) views")
        let offered = folder.path("data/plugins/assist.find-object/offered/assist.collect-videos")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: offered.path).sorted()
                == ["cache", "media", "training-clips"])
        let sandboxed = try findObject(
            ["teach", "work badge", "--from-collect-videos", "badge", "--yes"], config: "isolated.toml")
        #expect(sandboxed.status == 0, "\(all(sandboxed))")
        #expect(sandboxed.lines.contains { $0.hasPrefix("Learned work badge from ") }, "\(all(sandboxed))")
        #expect(!all(sandboxed).contains("without its full sandbox"), "\(all(sandboxed))")
        #expect(server.calls.count == calls, "find-object sends nothing: \(server.calls.suffix(3))")
        #expect(clips.count == 3, "collect-videos' clips are left as they were")

        // Teaching a thing by its name at a terminal, typed key by key, offers collect-videos' clips before filming.
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "run", "--no-speech", "--data-dir", folder.path("data").path, "--config",
                folder.path("config.toml").path, "find-object", "teach",
            ])
        #expect(screen.allowFirstUse("Find object"), "\(screen.text)")
        #expect(screen.waitFor("What is the thing called?", timeout: 30), "\(screen.text)")
        screen.typeSlowly("badge\r")
        #expect(
            screen.waitFor(
                "Collect videos has 2 training videos of Badge. Learn from them instead of filming now?", timeout: 30),
            "\(screen.text)")
        screen.typeSlowly("y")
        #expect(screen.waitFor("my badge is taught already. Replace it", timeout: 30), "\(screen.text)")
        screen.typeSlowly("y")
        #expect(screen.waitFor("Learned badge from ", timeout: 90), "\(screen.text)")
        #expect(screen.waitForExit(timeout: 30) == 0, "\(screen.text)")
        #expect(try findObject(["things"]).lines.contains { $0.hasPrefix("badge: ") })

        // The label alone names the thing; its clips cleared from the cache are said, and nothing is taught.
        for clip in clips { try FileManager.default.removeItem(at: clip) }
        let gone = try findObject(["teach", "--from-collect-videos", "BADGE", "--yes"])
        #expect(gone.status != 0)
        #expect(
            all(gone).contains(
                "The training videos of Badge were sent to the study and are no longer on this device."),
            "\(all(gone))")
        let usage = try findObject(["teach", "x", "--video", "a.mp4", "--from-collect-videos", "Badge"])
        #expect(all(usage).contains("teach NAME --from-collect-videos LABEL"), "\(all(usage))")
    }
}

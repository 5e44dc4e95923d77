import Foundation
import HostTesting
import Testing

/// Filming and sending clips through the real camera path and encoder, against the loopback ORBIT server: the
/// order of uploads, a dropped connection, statuses over pages, a crash while filming, a camera that gives
/// nothing, withdrawn access. The app runs in process (`InProcessApp`) but where a run is killed: there the real
/// binary runs.
@Suite("collect-videos recording and uploads", .serialized)
struct CollectVideosRecordingTests {
    let folder: TemporaryDirectory
    let server: FakeOrbitServer

    init() throws {
        folder = try TemporaryDirectory("assist-orbit-rec")
        server = try FakeOrbitServer()
        try OrbitFixtures.writeConfig(
            to: folder.path("config.toml"), serverURL: server.baseURL, extra: "[outbox]\nretry-base-seconds = 0.1")
        try OrbitFixtures.camera(folder.path("camera.mp4"), pattern: "testsrc2", seconds: 12)
    }

    func arguments(_ verb: [String], camera: String? = nil) -> [String] {
        ["run", "collect-videos"] + verb + [
            "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path,
            "--camera", camera ?? "video:" + folder.path("camera.mp4").path,
        ]
    }

    func run(_ verb: [String], camera: String? = nil) throws -> ProcessResult {
        try InProcessApp.run(arguments(verb, camera: camera), timeoutSeconds: 90)
    }

    /// `verb` running in the background, to be killed: what it prints is not read.
    func started(_ verb: [String]) throws -> Process {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = arguments(verb)
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        return child
    }

    func takePart(thing: String = "Mug", thenFail faults: [LoopbackHTTPServer.Reply] = []) throws {
        let consent = try run(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
        try #require(consent.status == 0, "\(consent.lines)")
        server.fail(faults)
        _ = try run(["thing", "add", thing])
    }

    var clips: [URL] {
        let walker = FileManager.default.enumerator(at: folder.path("data"), includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "mp4" }
    }

    func duration(_ url: URL) throws -> Double {
        let probe = try ProcessRunner.run(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path])
        return Double(probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @Test func aClipWaitsForItsThingAndADroppedConnectionLeavesOneCopy() throws {
        try takePart(thenFail: [.answer(status: 503)])  // the thing's first create fails: it and the clip wait
        let recorded = try run(["record", "Mug", "--kind", "training", "--seconds", "2"])
        #expect(recorded.lines.last == "Stopped at 2 seconds. Training video 1 of 5 saved.", "\(recorded.lines)")
        let clip = try #require(clips.first)
        #expect(try duration(clip) >= 1.9)
        let probe = try ProcessRunner.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", clip.path])
        #expect(
            probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,480,480", "the centred square"
        )
        server.dropAfterUpload(1)  // the server keeps the clip, the answer never comes: sent again
        let synced = try run(["sync", "--wait", "30"])
        #expect(synced.lines.last == "Everything is sent.", "\(synced.lines) \(synced.standardError)")
        #expect(server.videos.count == 1, "one copy: \(server.videos.map(\.id))")
        let order = server.calls.filter {
            $0.hasPrefix("POST /phasetwo/api/thing/") || $0.hasPrefix("POST /phasetwo/api/video/")
        }
        #expect(order.first == "POST /phasetwo/api/thing/" && order.last == "POST /phasetwo/api/video/", "\(order)")
        #expect(clips.allSatisfy { $0.path.contains("/cache/") }, "after upload the clip is in the cache")
        // Statuses over pages: ours is now the oldest of 12, on page 2.
        server.padVideos(11)
        server.validate(1, "C")
        _ = try run(["sync", "--wait", "30"])
        #expect(server.calls.contains("GET /phasetwo/api/video/?page=2"))
        let status = try run(["status"])
        #expect(status.lines.last?.contains("Training video 1 of 5, recorded") == true, "\(status.lines)")
        #expect(status.lines.last?.contains("uploaded, checked and suitable, not yet published") == true)
    }

    @Test func aCrashWhileFilmingLeavesAPlayableClipThatIsRecovered() throws {
        try takePart()
        let child = try started(["record", "Mug", "--kind", "training"])
        // Killed once two seconds of fragments are on disk (a loaded or sanitized machine starts the camera
        // and the encoder later than an idle one), or after a minute at most.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && child.isRunning {
            Thread.sleep(forTimeInterval: 0.5)
            if let clip = clips.first, (try? duration(clip)) ?? 0 >= 2 { break }
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let left = try #require(clips.first)
        let plays = try duration(left)
        #expect(plays >= 1.5, "the fragments written before the kill play: \(plays) s")
        let next = try run(["status"])
        #expect(next.lines.contains("Recovered Mug, training video 1."), "\(next.lines)")
        #expect(next.lines.last?.contains("Mug. 1 of 7 videos.") == true, "\(next.lines)")
        #expect(try run(["sync", "--wait", "30"]).lines.last == "Everything is sent.")
        #expect(server.videos.count == 1)
    }

    /// `sync --wait` killed while a status page is on its way: the next sync gets that page's answer, which
    /// is not its own, and still ends when its own work is done (it compares the server's things last), not
    /// when its limit runs out (a counter of pages went below zero: 5 of 9 runs waited their whole limit).
    @Test func aSyncKilledWhileAStatusPageIsOnItsWayLeavesTheNextSyncToEnd() throws {
        try takePart()
        try #require(try run(["sync", "--wait", "30"]).lines.last == "Everything is sent.")
        server.delayListings(3)
        let asked = server.calls.count
        let child = try started(["sync", "--wait", "30"])
        let deadline = Date().addingTimeInterval(30 * ProcessRunner.timeScale)
        while Date() < deadline,
            !server.calls.dropFirst(asked).contains(where: { $0.hasPrefix("GET /phasetwo/api/video/") })
        {
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        server.delayListings(0)
        let before = server.calls.count
        let next = try run(["sync", "--wait", "20"])
        #expect(next.lines.last == "Everything is sent.", "\(next.lines)")
        #expect(
            server.calls.dropFirst(before).contains { $0.hasPrefix("GET /phasetwo/api/thing/") },
            "the sync reached its end by itself, where it lists the server's things: \(server.calls.dropFirst(before))")
    }

    @Test func aCameraThatGivesNothingIsSaidAndNothingIsKept() throws {
        try takePart()
        let none = try run(["record", "Mug", "--kind", "testing"], camera: "v4l2:/dev/video-none")
        #expect((none.standardOutput + none.standardError).contains("Camera not available."), "\(none.lines)")
        #expect(clips.isEmpty)
        #expect(try run(["status"]).lines.last?.contains("Mug. 0 of 7 videos.") == true)
    }

    @Test func withdrawnAccessIsSaidOnceWithTheContact() throws {
        try takePart()
        server.deactivate()
        // The refusal may come back before `thing add` exits (the host lets a send under way end): said once.
        let added = try run(["thing", "add", "Keys"])
        let synced = try run(["sync", "--wait", "10"])
        let said = (added.lines + synced.lines).filter {
            $0 == "Study access for this device was withdrawn. Contact: orbit@example.org."
        }
        #expect(said.count == 1, "\(added.lines) then \(synced.lines)")
        let status = try run(["status", "--json"])
        #expect(status.standardOutput.contains(#""waiting":1"#), "nothing is lost: \(status.standardOutput)")
    }
}

import Foundation
import HostTesting
import Testing

/// The rows of spec §7 not covered elsewhere, through the real binary, camera path and encoder against the
/// loopback ORBIT server: refusals (400) of a thing and of a video, the collection period, withdrawn access
/// given back by new consent, statuses that cannot be read, a purged cache file, a thing created twice on the
/// server (a lost answer, a cut-off answer), a camera that stops mid-recording, a disk that fills.
@Suite("collect-videos failures (spec §7)", .serialized)
struct CollectVideosFailureTests {
    let folder: TemporaryDirectory
    let server: FakeOrbitServer

    init() throws {
        folder = try TemporaryDirectory("assist-orbit-fail")
        server = try FakeOrbitServer()
        try OrbitFixtures.writeConfig(
            to: folder.path("config.toml"), serverURL: server.baseURL, extra: "[outbox]\nretry-base-seconds = 0.1")
        try OrbitFixtures.camera(folder.path("camera.mp4"), pattern: "testsrc2", seconds: 12)
    }

    func run(_ verb: [String], camera: String? = nil, data: String? = nil) throws -> ProcessResult {
        try InProcessApp.run(
            ["run", "collect-videos"] + verb + [
                "--no-speech", "--data-dir", data ?? folder.path("data").path, "--config",
                folder.path("config.toml").path, "--camera", camera ?? "video:" + folder.path("camera.mp4").path,
            ], timeoutSeconds: 90)
    }

    func all(_ result: ProcessResult) -> String { result.standardOutput + result.standardError }

    func takePart(data: String? = nil) throws {
        let consent = try run(
            ["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"], data: data)
        try #require(consent.status == 0, "\(consent.lines)")
    }

    func statusObject() throws -> [String: Any] {
        let status = try run(["status", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
    }

    var clips: [URL] {
        let walker = FileManager.default.enumerator(at: folder.path("data"), includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "mp4" }
    }

    @Test func aRefusedThingWaitsWithItsClipUntilItIsRenamed() throws {
        try takePart()
        // Only the thing's create is refused: a request of the consent's own (the collection period, asked once
        // the participant exists) may still come first when the machine is slow.
        server.failRoute(
            "POST /phasetwo/api/thing/",
            [FakeOrbitServer.json(400, ["label_participant": ["Ensure this field has no more than 50 characters."]])])
        _ = try run(["thing", "add", "Mug"])
        let recorded = try run(["record", "Mug", "--kind", "testing", "--seconds", "2"])
        #expect(recorded.lines.last == "Stopped at 2 seconds. Testing video 1 of 2 saved.", "\(recorded.lines)")
        let refused = try run(["sync", "--wait", "20"])
        #expect(
            refused.lines.contains(
                "Server refused the name Mug: Ensure the name has no more than 50 characters. Rename it to retry."),
            "\(refused.lines)")
        #expect(server.things.isEmpty && server.videos.isEmpty, "the clip waits for its thing: \(server.calls)")
        _ = try run(["thing", "rename", "Mug", "Blue mug"])
        let synced = try run(["sync", "--wait", "30"])
        #expect(synced.lines.last == "Everything is sent.", "\(synced.lines)")
        #expect(server.things.values.sorted() == ["Blue mug"] && server.videos.count == 1)
    }

    @Test func aRefusedVideoIsSaidAndARecordingAgainSendsTheNewOne() throws {
        try takePart()
        _ = try run(["thing", "add", "Mug"])
        #expect(try run(["sync", "--wait", "20"]).lines.last == "Everything is sent.")
        // The clip may be sent as soon as it is saved (the host lets a send under way end before it exits).
        server.failRoute(
            "POST /phasetwo/api/video/", [FakeOrbitServer.json(400, ["technique": ["\"Q\" is not a valid choice."]])])
        _ = try run(["record", "Mug", "--kind", "training", "--seconds", "2"])
        let refused = try run(["sync", "--wait", "20"])
        #expect(
            refused.lines.contains(
                "The server refused training video 1 of 5 of Mug: \"Q\" is not a valid choice. Re-record or delete it."),
            "\(refused.lines)")
        #expect(server.videos.isEmpty)
        #expect(clips.count == 1, "the refused clip is kept")
        let again = try run(["record", "Mug", "--kind", "training", "--slot", "1", "--seconds", "2"])
        #expect(again.lines.last == "Stopped at 2 seconds. Training video 1 of 5 saved.", "\(again.lines)")
        #expect(try run(["sync", "--wait", "30"]).lines.last == "Everything is sent.")
        #expect(server.videos.count == 1 && clips.count == 1, "one clip, the new one, on both sides")
    }

    @Test func outsideTheCollectionPeriodUploadsWaitAndEachChangeIsSaidOnce() throws {
        try takePart()
        server.setPeriod(startInDays: 2, endInDays: 30)
        // The thing's create may be sent, refused and the period asked for before `thing add` exits (the host lets
        // a send under way end): the start is said once, by whichever run learnt it.
        let added = try run(["thing", "add", "Mug"])
        let early = try run(["sync", "--wait", "20"])
        let startDay = try #require(Self.spoken(FakeOrbitServer.day(2)))
        let said = (added.lines + early.lines).filter { $0 == "Uploads start on \(startDay)." }
        #expect(said.count == 1, "\(added.lines) then \(early.lines)")
        #expect(early.lines.last == "1 change waiting until uploads start on \(startDay).", "\(early.lines)")
        #expect(server.things.isEmpty)
        let again = try run(["sync", "--wait", "20"])
        #expect(!again.lines.contains("Uploads start on \(startDay)."), "said once: \(again.lines)")
        server.setPeriod(startInDays: -30, endInDays: -1)
        let late = try run(["sync", "--wait", "20"])
        #expect(
            late.lines.contains("The collection period has ended. Your videos stay on this device."), "\(late.lines)")
        #expect(late.lines.last == "1 change kept on this device: the collection period has ended.")
        #expect(try statusObject()["upload_pause"] as? String == "after_period")
        // Staff move the period: what waited is sent.
        server.setPeriod(startInDays: -1, endInDays: 30)
        let back = try run(["sync", "--wait", "30"])
        #expect(back.lines.last == "Everything is sent.", "\(back.lines)")
        #expect(server.things.values.sorted() == ["Mug"])
    }

    @Test func withdrawnAccessKeepsEverythingUntilConsentIsGivenAgain() throws {
        try takePart()
        server.deactivate()
        // As with the period: the refusal may come back before `thing add` exits; it is said once either way.
        let added = try run(["thing", "add", "Keys"])
        let withdrawn = try run(["sync", "--wait", "10"])
        let said = (added.lines + withdrawn.lines).filter {
            $0 == "Study access for this device was withdrawn. Contact: orbit@example.org."
        }
        #expect(said.count == 1, "\(added.lines) then \(withdrawn.lines)")
        #expect(withdrawn.lines.last == "1 change kept on this device until consent is given again.")
        let quiet = try run(["sync", "--wait", "10"])
        #expect(!quiet.lines.contains { $0.hasPrefix("Study access") }, "said once: \(quiet.lines)")
        try takePart()
        let sent = try run(["sync", "--wait", "30"])
        #expect(sent.lines.last == "Everything is sent.", "\(sent.lines)")
        #expect(server.things.values.sorted() == ["Keys"])
    }

    @Test func statusesThatCannotBeReadSayHowOldTheyAre() throws {
        try takePart()
        _ = try run(["thing", "add", "Mug"])
        _ = try run(["record", "Mug", "--kind", "training", "--seconds", "2"])
        #expect(try run(["sync", "--wait", "30"]).lines.last == "Everything is sent.")
        #expect(!(try run(["status"])).lines.joined().contains("Statuses from"))
        server.failRoute("GET /phasetwo/api/video/", [.answer(status: 200, body: Data("<html>down</html>".utf8))])
        _ = try run(["sync", "--wait", "20"])
        let status = try run(["status"])
        #expect(status.lines.last?.contains("Statuses from ") == true, "\(status.lines)")
        #expect(status.lines.last?.contains("uploaded, not yet checked") == true, "the last values stay")
    }

    @Test func aPurgedCacheFileIsSaidOnItsSlotWhileTheServerStatusStays() throws {
        try takePart()
        _ = try run(["thing", "add", "Mug"])
        _ = try run(["record", "Mug", "--kind", "training", "--seconds", "2"])
        #expect(try run(["sync", "--wait", "30"]).lines.last == "Everything is sent.")
        let cached = try #require(clips.first)
        #expect(cached.path.contains("/cache/"))
        try FileManager.default.removeItem(at: cached)
        server.validate(1, "C")
        _ = try run(["sync", "--wait", "20"])
        let status = try run(["status"])
        #expect(
            status.lines.last?.contains(
                "uploaded, checked and suitable, not yet published. This video is no longer on this device; the server has it."
            ) == true, "\(status.lines)")
    }

    @Test func aThingMadeTwiceByALostAnswerIsFoundAndTheCopyDeleted() throws {
        try takePart()
        server.loseCreateAnswers([.dropped])  // stored, answer lost: the outbox sends it again
        _ = try run(["thing", "add", "Mug"])
        _ = try run(["record", "Mug", "--kind", "training", "--seconds", "2"])
        let synced = try run(["sync", "--wait", "30"])
        #expect(synced.lines.last == "Everything is sent.", "\(synced.lines)")
        #expect(server.thingLabels == ["Mug"], "the second copy is deleted: \(server.thingLabels) \(server.calls)")
        let ours = try #require((try statusObject()["things"] as? [[String: Any]])?.first?["server_id"] as? Int)
        #expect(server.things.keys.sorted() == [ours] && server.videos.map(\.thing) == [ours])
    }

    @Test func aCutOffAnswerToACreateIsReadFromTheServersList() throws {
        try takePart()
        server.loseCreateAnswers([.truncated])  // 201 with half a JSON body: created, id unknown
        _ = try run(["thing", "add", "Keys"])
        _ = try run(["record", "Keys", "--kind", "testing", "--seconds", "2"])
        let synced = try run(["sync", "--wait", "30"])
        #expect(synced.lines.last == "Everything is sent.", "\(synced.lines)")
        #expect(server.thingLabels == ["Keys"], "never created twice: \(server.thingLabels)")
        #expect(server.videos.map(\.thing) == Array(server.things.keys))
    }

    @Test func aCameraThatStopsMidRecordingKeepsWhatWasFilmed() throws {
        try takePart()
        _ = try run(["thing", "add", "Mug"])
        try OrbitFixtures.camera(folder.path("short.mp4"), pattern: "testsrc", seconds: 3)
        let cut = try run(
            ["record", "Mug", "--kind", "training", "--seconds", "15"], camera: "video:" + folder.path("short.mp4").path
        )
        let last = cut.lines.last ?? ""
        #expect(last.hasPrefix("Camera not available. Stopped at "), "\(cut.lines)")
        #expect(
            last.hasSuffix(" second. Training video 1 of 5 saved.")
                || last.hasSuffix(" seconds. Training video 1 of 5 saved."), "\(cut.lines)")
        let clip = try #require(clips.first)
        let probe = try ProcessRunner.run(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", clip.path])
        let plays = Double(probe.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(plays >= 1 && plays < 5, "what the camera gave, \(plays) s")
    }

    /// The data folder on a small tmpfs: too little room is refused before filming; a disk that fills while
    /// filming stops the clip, which is kept and plays.
    @Test func aDiskThatFillsStopsTheClipAndKeepsIt() throws {
        guard let disk = try SmallDisk(at: folder.path("small"), megabytes: 24) else { return }
        let mountPoint = disk.url
        defer { withExtendedLifetime(disk) {} }  // mounted until the test ends
        let data = mountPoint.appendingPathComponent("data").path
        try takePart(data: data)
        _ = try run(["thing", "add", "Mug"], data: data)
        let filler = mountPoint.appendingPathComponent("filler")
        // tmpfs gives truncated files no blocks: the filler is written for real.
        func fill(leaving bytes: Int64) throws {
            var stats = statvfs()
            try #require(statvfs(mountPoint.path, &stats) == 0)
            let free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
            let handle = try FileHandle(forWritingTo: filler)
            try handle.seekToEnd()
            var left = free - bytes
            let chunk = Data(repeating: 0x5a, count: 65_536)
            while left > 0 {
                let piece = chunk.prefix(Int(min(Int64(chunk.count), left)))
                try handle.write(contentsOf: piece)
                left -= Int64(piece.count)
            }
            try handle.close()
        }
        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
        try fill(leaving: 3_000_000)
        let refused = try run(["record", "Mug", "--kind", "training", "--seconds", "10"], data: data)
        #expect(all(refused).contains("Storage full: a 10-second video needs about 7 MB."), "\(refused.lines)")
        #expect(clips.isEmpty)
        try FileManager.default.removeItem(at: filler)
        _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
        try fill(leaving: 8_000_000)
        // Room for the clip when it starts; then something else takes it.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = [
            "run", "collect-videos", "record", "Mug", "--kind", "training", "--seconds", "12", "--no-speech",
            "--data-dir", data, "--config", folder.path("config.toml").path, "--camera",
            "video:" + folder.path("camera.mp4").path,
        ]
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        // Once its file is growing (a slowed build takes seconds to start), a second more, then the disk fills.
        func growing() -> Bool {
            let files = FileManager.default.enumerator(atPath: data)?.compactMap { $0 as? String } ?? []
            return files.contains { name in
                name.hasSuffix(".mp4")
                    && ((try? FileManager.default.attributesOfItem(atPath: data + "/" + name))?[.size] as? Int ?? 0) > 0
            }
        }
        let deadline = Date().addingTimeInterval(20 * ProcessRunner.timeScale)
        while Date() < deadline, !growing() { Thread.sleep(forTimeInterval: 0.1) }
        Thread.sleep(forTimeInterval: 1)
        try fill(leaving: 0)
        child.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let last = printed.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix("Storage full, stopped at "), "\(printed)")
        #expect(
            last.hasSuffix(" second. Training video 1 of 5 saved.")
                || last.hasSuffix(" seconds. Training video 1 of 5 saved."), "\(printed)")
        try FileManager.default.removeItem(at: filler)
        let status = try run(["status"], data: data)
        #expect(status.lines.last?.contains("Mug. 1 of 7 videos.") == true, "\(status.lines)")
    }

    /// "25 November 2026" for a `YYYY-MM-DD` date, as the plugin says it.
    static func spoken(_ day: String) -> String? {
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.dateFormat = "yyyy-MM-dd"
        guard let date = parser.date(from: day) else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.dateFormat = "d MMMM yyyy"
        return formatter.string(from: date)
    }
}

import Foundation
import HostTesting
import PhotoSensorCore
import PluginKit
import Storage
import Testing

/// `assist run photo-sensor sync` against the loopback AWARE Micro: batches ordered by id after the
/// checkpoint, every row exactly once across failures, restarts and `kill -9`, `removeAfterSync`.
@Suite("photo-sensor sync", .serialized)
struct PhotoSensorSyncTests {
    let folder: TemporaryDirectory
    let pictures: URL
    let server: AwareMicroServer

    init() throws {
        folder = try TemporaryDirectory("assist-photo-sync")
        pictures = folder.path("Pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        server = try AwareMicroServer()
        try configure()
    }

    func configure(key: String? = nil, extra: String = "") throws {
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)"]
        serverUrl = "\(server.baseURL)"
        studyNumber = "\(server.studyNumber)"
        studyKey = "\(key ?? server.studyKey)"
        batchSize = 3
        \(extra)
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
    }

    var options: [String] {
        ["--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path]
    }

    /// `assist run photo-sensor ARGUMENTS` in process (`InProcessApp`).
    func run(_ arguments: [String]) throws -> ProcessResult {
        try InProcessApp.run(["run", "photo-sensor"] + arguments + options, timeoutSeconds: 60)
    }

    /// A sync that must succeed; what it printed and logged otherwise.
    func sync() throws {
        let result = try run(["sync"])
        #expect(result.status == 0 && result.lines.last == "Sync done.", "\(result.lines) \(result.standardError)")
    }

    /// `count` small JPEGs (their bytes say JPEG; the sensor never decodes them to record them), recorded.
    func record(_ count: Int, from start: Int = 0) throws {
        if !FileManager.default.fileExists(atPath: folder.path("data").path) {
            _ = try run(["watch", "--once", "--no-sync"])  // the baseline of an empty folder
        }
        for index in start..<(start + count) {
            try Data([0xFF, 0xD8, 0xFF, 0xE0] + Array("photo \(index)".utf8)).write(
                to: pictures.appendingPathComponent("p\(index).jpg"))
        }
        let watched = try run(["watch", "--once", "--no-sync"])
        #expect(watched.lines.last == "\(count) new item\(count == 1 ? "" : "s") recorded.", "\(watched.lines)")
    }

    @Test func rowsGoInBatchesOrderedByIdEachOnce() throws {
        try record(7)
        try sync()
        #expect(server.ids("ios_photos") == Array(1...7))
        let row = try #require(server.rows("ios_photos").first)
        #expect(row["os"] as? String == "Linux" && (row["isFavorite"] as? NSNumber)?.intValue == 0)
        #expect((row["localIdentifier"] as? String)?.contains("#sha256:") == true)
        #expect(row["timestamp"] is NSNumber && row["jsonVersion"] as? NSNumber == 1)
        // Nothing new: nothing sent; new rows later: only they are sent.
        try sync()
        try record(2, from: 7)
        try sync()
        #expect(server.ids("ios_photos") == Array(1...9))
        let status = try run(["status", "--json"])
        #expect(status.standardOutput.contains(#""waiting_to_sync":0"#), "\(status.standardOutput)")
        #expect(status.standardOutput.contains(#""ok":true,"sent":2"#), "the last run: \(status.standardOutput)")
        let said = try run(["status"])
        #expect(said.lines.last?.hasSuffix(" Last sync just now, 2 photos sent.") == true, "\(said.lines)")
    }

    @Test func statusSaysHowTheLastSyncWentInWords() {
        let now = 1_800_000_000.0
        let share = BuildProducts.packageRoot.appendingPathComponent("Plugins/PhotoSensor/share").path
        let english = PhraseTable(directory: share, language: "en")
        #expect(
            LastSync(at: now - 12 * 60, ok: true, sent: 40, error: nil).sentence(now: now, phrases: english)
                == "Last sync 12 minutes ago, 40 photos sent.")
        #expect(
            LastSync(at: now - 3 * 3600, ok: false, sent: 0, error: "the server answered 500").sentence(
                now: now, phrases: english) == "Last sync 3 hours ago failed: the server answered 500.")
        #expect(
            LastSync(at: now - 3 * 86400, ok: true, sent: 1, error: nil).sentence(now: now, phrases: english)
                == "Last sync 3 days ago, 1 photo sent.")
        let russian = PhraseTable(directory: share, language: "ru")
        #expect(
            LastSync(at: now - 12 * 60, ok: true, sent: 40, error: nil).sentence(now: now, phrases: russian)
                == "Последняя синхронизация: 12 мин назад, отправлено фото: 40.")
    }

    @Test func aRefusedKeyIsNamedAndNothingIsLost() throws {
        try record(4)
        try configure(key: "wrong")
        let refused = try run(["sync"])
        #expect(refused.status == 1)
        #expect(refused.lines.last == "Sync failed: the server refused the study number or key.", "\(refused.lines)")
        #expect(server.ids("ios_photos").isEmpty)
        try configure()
        try sync()
        #expect(server.ids("ios_photos") == [1, 2, 3, 4])
    }

    @Test func failuresMidTableKeepTheCheckpointAndHTMLCountsAsSuccess() throws {
        try record(7)
        server.fail([.html, .status(500)])  // batch 1 taken (HTML is success), batch 2 fails
        let first = try run(["sync"])
        #expect(first.status == 1)
        #expect(server.ids("ios_photos").isEmpty, "the HTML answer stored nothing on this fake")
        server.fail([.status404InBody])
        let second = try run(["sync"])
        #expect(second.status == 1, "a 200 with status 404 in its body is a failure")
        #expect(
            second.lines.last == "Sync failed: the server answered 200 with status 404.",
            "\(second.lines) \(second.standardError)")
        let third = try run(["sync"])
        #expect(third.lines.last == "Sync done.", "\(third.lines) \(third.standardError)")
        #expect(server.ids("ios_photos") == [4, 5, 6, 7], "rows 1-3 went with the HTML answer; 4-7 once each")
    }

    @Test func removeAfterSyncDeletesExactlyTheRowsSent() throws {
        try configure(extra: "removeAfterSync = true")
        try record(5)
        try sync()
        #expect(server.ids("ios_photos") == [1, 2, 3, 4, 5])
        let status = try run(["status", "--json"])
        #expect(status.standardOutput.contains(#""recorded":0"#), "\(status.standardOutput)")
        try record(1, from: 5)
        try sync()
        #expect(server.ids("ios_photos") == [1, 2, 3, 4, 5, 6], "ids are never reused")
    }

    /// Killed after the server took a batch but before its answer arrived: the batch is sent again at the next
    /// run (the outbox kept it), so the server holds it twice, as exact copies of the same (deviceId, id) rows a
    /// study removes by key; nothing is missing and nothing else repeats. (A batch cut before the server had all
    /// of it is simply sent again; socket buffers make that case impossible to force from a test.)
    @Test func aKillNineMidSyncLosesNothingAndRepeatsOnlyTheUnansweredBatchExactly() throws {
        try record(7)
        server.fail([.storeThenHang], after: 1)  // batch 1 taken and answered; batch 2 taken, never answered
        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = ["run", "photo-sensor", "sync"] + options
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        let deadline = Date().addingTimeInterval(30)
        while server.ids("ios_photos").count < 6 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(server.ids("ios_photos") == [1, 2, 3, 4, 5, 6], "both batches reached the server")
        let again = try run(["sync"])
        #expect(again.lines.last == "Sync done.", "\(again.lines)")
        let ids = server.ids("ios_photos")
        #expect(Set(ids) == Set(1...7), "nothing missing: \(ids)")
        #expect(ids.sorted() == [1, 2, 3, 4, 4, 5, 5, 6, 6, 7], "only the unanswered batch twice: \(ids)")
        let rows = server.rows("ios_photos")
        for id in [4, 5, 6] {
            let copies = rows.filter { ($0["id"] as? NSNumber)?.intValue == id }
            #expect(copies.count == 2 && NSDictionary(dictionary: copies[0]).isEqual(to: copies[1]), "row \(id)")
        }
    }
}

/// In the background of `assist shell`, rows go to the server every `syncInterval` by themselves.
@Suite("photo-sensor automatic sync")
struct PhotoSensorAutomaticSyncTests {
    @Test func aPictureDroppedWhileTheShellRunsReachesTheServer() throws {
        let folder = try TemporaryDirectory("assist-photo-auto")
        let pictures = folder.path("Pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let server = try AwareMicroServer()
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)"]
        serverUrl = "\(server.baseURL)"
        studyNumber = "\(server.studyNumber)"
        studyKey = "\(server.studyKey)"
        syncInterval = 0.02
        debounceSeconds = 0.2
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = [
            "shell", "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path,
        ]
        let input = Pipe()
        child.standardInput = input
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        // What is in the folder at the first start is the baseline, never sent: the picture is dropped once
        // the sensor has taken it (a sanitizer's build takes seconds to get there).
        let database = folder.path("data/plugins/assist.photo-sensor/aware_photos.sqlite")
        let started = Date().addingTimeInterval(30 * ProcessRunner.timeScale)
        while Date() < started, Self.value("baseline", in: database) != "done" { Thread.sleep(forTimeInterval: 0.1) }
        try #require(Self.value("baseline", in: database) == "done", "the sensor never started")
        try Data([0xFF, 0xD8, 0xFF, 0xE1, 1, 2, 3]).write(to: pictures.appendingPathComponent("new.jpg"))
        let deadline = Date().addingTimeInterval(15 * ProcessRunner.timeScale)
        while server.ids("ios_photos").isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        try? input.fileHandleForWriting.write(contentsOf: Data("quit\n".utf8))
        input.fileHandleForWriting.closeFile()
        child.waitUntilExit()
        #expect(server.ids("ios_photos") == [1])
        #expect((server.rows("ios_photos").first?["localIdentifier"] as? String)?.contains("new.jpg#sha256:") == true)
    }

    /// The sensor's stored setting `key`, read from its database as the shell writes it; nil until there.
    static func value(_ key: String, in url: URL) -> String? {
        guard FileManager.default.fileExists(atPath: url.path), let database = try? PluginDatabase(url: url) else {
            return nil
        }
        var found: String?
        _ = try? database.execute("SELECT value FROM settings WHERE key = ?", arguments: [.text(key)]) { _, values in
            if case .text(let text) = values.first { found = text }
            return false
        }
        return found
    }
}

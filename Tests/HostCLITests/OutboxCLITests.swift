import Foundation
import HostTesting
import Outbox
import Storage
import Testing

/// The outbox survives `kill -9` in the middle of an upload: the next run sends the job again with the same
/// idempotency key, and the server completes it exactly once.
@Suite("assist outbox")
struct OutboxCLITests {
    @Test func anUploadCutByKillNineCompletesExactlyOnceAfterARestart() throws {
        let data = try TemporaryDirectory("assist-outbox-kill")
        // A plugin's upload names a file in its own data folder; the outbox refuses any other.
        let folder = data.path("plugins/org.test.videos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = folder.appendingPathComponent("clip.bin")
        try Data((0..<8_000_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }).write(to: clip)
        // The first attempt is read slowly enough (8 MB at 1 MB/s) that a busy machine still kills it mid-way;
        // the attempt after the restart is read at full speed.
        let attempts = Collected<Int>()
        let server = try LoopbackHTTPServer(keptBodyBytes: 16 << 20) { _ in
            .readSlowly(
                bytesPerSecond: attempts.append(1) == 1 ? 1_000_000 : 50_000_000,
                then: .answer(status: 201, body: Data(#"{"id":9}"#.utf8)))
        }
        let store = try OutboxStore(url: data.path("outbox.sqlite"))
        let parts: [OutboxRequest.Part] = [
            .field("thing", "9"), .file("file", path: clip.path, filename: "clip.bin", contentType: "video/mp4"),
        ]
        _ = try store.enqueue(
            owner: "org.test.videos",
            request: OutboxRequest(
                method: "POST", url: server.baseURL + "/api/video/",
                headers: [.init("Authorization", "Token do-not-print")],
                body: .multipart(boundary: "cut", parts: parts)))

        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = ["outbox", "send", "--data-dir", data.url.path]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        let deadline = Date().addingTimeInterval(20)
        while server.bodyBytesReceived < 500_000, Date() < deadline { usleep(5_000) }
        #expect(server.bodyBytesReceived >= 500_000, "the upload started")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)

        let listing = try ProcessRunner.run(BuildProducts.assist, ["outbox", "--data-dir", data.url.path])
        #expect(listing.standardOutput.contains("in_flight"), "\(listing.standardOutput)")
        #expect(!listing.standardOutput.contains("do-not-print") && listing.standardOutput.contains("(hidden)"))

        let again = try ProcessRunner.run(BuildProducts.assist, ["outbox", "send", "--data-dir", data.url.path])
        #expect(again.status == 0 && again.lines.contains("Everything was sent."), "\(again)")
        #expect(!again.standardError.contains("do-not-print"))
        // The server reads what the killed attempt left in its socket buffer at that attempt's slow pace.
        let recorded = Date().addingTimeInterval(60)
        while server.requests.filter({ $0.path == "/api/video/" }).count < 2, Date() < recorded { usleep(20_000) }
        let uploads = server.requests.filter { $0.path == "/api/video/" }
        #expect(
            uploads.count == 2 && uploads.filter(\.complete).count == 1,
            "exactly one complete upload: \(uploads.map { ($0.bodyLength, $0.complete) })")
        #expect(Set(uploads.compactMap { $0.header("Idempotency-Key") }).count == 1)
        let body = try MultipartLayout(boundary: "cut", parts: parts).render()
        #expect(uploads.first(where: \.complete)?.body == body)
        let outcome = try #require(
            try OutboxStore(url: data.path("outbox.sqlite")).outcomes(owner: "org.test.videos").first)
        #expect(outcome.status == 201 && outcome.body == Data(#"{"id":9}"#.utf8))
    }

    /// `assist outbox send` while another Assist is sending: the upload under way there is left to it, not
    /// sent a second time (a server without idempotency, as ORBIT's things are, would keep two records).
    @Test func aSendBesideAnotherSenderLeavesItsUploadAlone() throws {
        let data = try TemporaryDirectory("assist-outbox-beside")
        let server = try LoopbackHTTPServer { _ in
            .trickle(
                status: 201, body: Data(repeating: 0x2E, count: Int(100 * ProcessRunner.timeScale)), interval: 0.1)
        }
        let store = try OutboxStore(url: data.path("outbox.sqlite"))
        _ = try store.enqueue(
            owner: "org.test.videos", request: OutboxRequest(method: "POST", url: server.baseURL + "/api/thing/"))
        let first = Process()
        first.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        first.arguments = ["outbox", "send", "--timeout", "60", "--data-dir", data.url.path]
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        let deadline = Date().addingTimeInterval(20 * ProcessRunner.timeScale)
        while server.requests.isEmpty, Date() < deadline { usleep(10_000) }
        try #require(server.requests.count == 1, "the first sender started")

        let second = try ProcessRunner.run(
            BuildProducts.assist, ["outbox", "send", "--timeout", "20", "--data-dir", data.url.path])
        first.waitUntilExit()
        #expect(second.status == 0, "\(second)")
        #expect(first.terminationStatus == 0)
        #expect(server.requests.count == 1, "sent once: \(server.requests.map(\.path))")
        #expect(try OutboxStore(url: data.path("outbox.sqlite")).outcomes(owner: "org.test.videos").count == 1)
    }

    @Test func refusedCredentialsAndGivenUpUploadsAreSaid() throws {
        let data = try TemporaryDirectory("assist-outbox-refused")
        let server = try LoopbackHTTPServer { _ in .answer(status: 401) }
        let store = try OutboxStore(url: data.path("outbox.sqlite"))
        _ = try store.enqueue(
            owner: "org.test.survey", request: OutboxRequest(method: "POST", url: server.baseURL + "/answers"))
        _ = try store.enqueue(
            owner: "org.test.photos", request: OutboxRequest(method: "POST", url: "http://127.0.0.1:1/closed"),
            maxAttempts: 1)
        let run = try ProcessRunner.run(BuildProducts.assist, ["outbox", "send", "--data-dir", data.url.path])
        #expect(
            run.lines.contains(
                "The server refused the upload from org.test.survey (status 401). Check the server address and credentials in its settings."
            ), "\(run)")
        #expect(
            run.lines.contains {
                $0.hasPrefix(
                    "An upload from org.test.photos could not be sent and was given up: gave up after 1 attempt: The server cannot be reached"
                )
            })
        #expect(run.lines.last == "Everything was sent.")
    }

    /// Issue 38: an outbox.sqlite that is no database at all no longer stops every upload with "file is not a
    /// database": it is set aside, with a time in its name, a new queue starts, and the message names both.
    @Test func aDatabaseThatIsNoneIsSetAsideAndANewQueueStarts() throws {
        let data = try TemporaryDirectory("assist-outbox-notadb")
        let garbage = Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: data.path("outbox.sqlite"))
        let listing = try ProcessRunner.run(BuildProducts.assist, ["outbox", "--data-dir", data.url.path])
        #expect(listing.status == 0, "\(listing.standardError)")
        #expect(listing.lines == ["The outbox is empty."], "\(listing.standardOutput)")
        let said = listing.standardError
        #expect(
            said.contains(
                "The upload queue \(data.path("outbox.sqlite").path) was damaged and could not be read (file is not a database). It was moved to \(data.url.path)/outbox.sqlite.damaged-"
            ), "\(said)")
        let names = try FileManager.default.contentsOfDirectory(atPath: data.url.path)
        let aside = try #require(names.first { $0.hasPrefix("outbox.sqlite.damaged-") }, "\(names)")
        #expect(try Data(contentsOf: data.path(aside)) == garbage, "the damaged file is kept as it was")
        // The new queue works, and says nothing more.
        let store = try OutboxStore(url: data.path("outbox.sqlite"))
        #expect(try store.pendingCount() == 0)
        let again = try ProcessRunner.run(BuildProducts.assist, ["outbox", "--data-dir", data.url.path])
        #expect(!again.standardError.contains("damaged"), "\(again.standardError)")
    }

    /// Issue 73: another program's database where the queue should be (a `jobs` table of its own, or Assist's
    /// tables with a column gone) is named as such, set aside whole, and a new queue starts; before, every command
    /// said "The database refused a statement: table jobs already exists".
    @Test(arguments: [
        ("CREATE TABLE jobs (x TEXT); INSERT INTO jobs VALUES ('theirs');", "it holds the tables jobs and no version"),
        (
            "CREATE TABLE jobs (id INTEGER PRIMARY KEY, owner TEXT); CREATE TABLE outcomes (job_id INTEGER); PRAGMA user_version = 9;",
            "its table"
        ),
    ])
    func anotherProgramsDatabaseIsSetAsideAndANewQueueStarts(schema: String, reason: String) throws {
        let data = try TemporaryDirectory("assist-outbox-foreign")
        func contents(_ url: URL) throws -> [String] {
            var rows: [String] = []
            let database = try PluginDatabase(url: url)
            try database.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name") { _, values in
                rows.append("\(values)")
                return true
            }
            try database.execute("SELECT * FROM jobs") { _, values in
                rows.append("\(values)")
                return true
            }
            return rows
        }
        do {
            let theirs = try PluginDatabase(url: data.path("outbox.sqlite"))
            for statement in schema.split(separator: ";") where !statement.trimmingCharacters(in: .whitespaces).isEmpty
            {
                try theirs.execute(String(statement))
            }
        }
        let before = try contents(data.path("outbox.sqlite"))
        let listing = try ProcessRunner.run(BuildProducts.assist, ["outbox", "--data-dir", data.url.path])
        #expect(listing.status == 0, "\(listing.standardError)")
        #expect(listing.lines == ["The outbox is empty."], "\(listing.standardOutput)")
        #expect(
            listing.standardError.contains(
                "The upload queue \(data.path("outbox.sqlite").path) is another program's database (it is not Assist's upload queue: \(reason)"
            ), "\(listing.standardError)")
        #expect(!listing.standardError.contains("refused a statement"))
        let names = try FileManager.default.contentsOfDirectory(atPath: data.url.path)
        let aside = try #require(names.first { $0.hasPrefix("outbox.sqlite.damaged-") }, "\(names)")
        #expect(try contents(data.path(aside)) == before, "their file is kept as it was")
        let again = try ProcessRunner.run(BuildProducts.assist, ["outbox", "--data-dir", data.url.path])
        #expect(again.standardError.isEmpty, "the new queue says nothing more: \(again.standardError)")
    }

    @Test func aDamagedJobBecomesAFailedOutcomeAndTheRestFlow() throws {
        let data = try TemporaryDirectory("assist-outbox-damaged")
        let server = try LoopbackHTTPServer { _ in .answer(status: 200) }
        let store = try OutboxStore(url: data.path("outbox.sqlite"))
        let damaged = try store.enqueue(
            owner: "org.test.survey", request: OutboxRequest(method: "POST", url: server.baseURL + "/damaged"))
        _ = try store.enqueue(
            owner: "org.test.survey", request: OutboxRequest(method: "POST", url: server.baseURL + "/after"))
        _ = try store.enqueue(
            owner: "org.test.photos", request: OutboxRequest(method: "POST", url: server.baseURL + "/photos"))
        // What a torn write or another program could leave: a request that is not the JSON the outbox wrote.
        try PluginDatabase(url: data.path("outbox.sqlite")).execute(
            "UPDATE jobs SET request = '{\"method\":' || CAST(X'FF' AS TEXT) WHERE id = ?",
            arguments: [.integer(damaged)])

        let listing = try ProcessRunner.run(BuildProducts.assist, ["outbox", "--data-dir", data.url.path])
        #expect(listing.lines.first == "3 waiting:", "\(listing.standardOutput)")
        #expect(listing.lines.contains { $0.hasPrefix("\(damaged) org.test.survey: damaged and cannot be read") })

        let started = Date()
        let run = try ProcessRunner.run(
            BuildProducts.assist, ["outbox", "send", "--timeout", "20", "--data-dir", data.url.path])
        #expect(run.status == 0 && run.lines.last == "Everything was sent.", "\(run)")
        #expect(Date().timeIntervalSince(started) < 10, "no waiting for the timeout")
        #expect(Set(server.requests.map(\.path)) == ["/after", "/photos"], "everything behind the damaged job went")
        // A fresh connection, as the kill test reads it, with every owner's outcomes shown if it is missing.
        let reopened = try OutboxStore(url: data.path("outbox.sqlite"))
        let left = try reopened.pendingCount()
        let everyOutcome = try ["org.test.survey", "org.test.photos", "unknown"].flatMap {
            try reopened.outcomes(owner: $0)
        }
        let seen = everyOutcome.map { ($0.jobID, $0.owner, $0.status ?? -1) }
        let outcome = try #require(
            try reopened.outcomes(owner: "org.test.survey").first, "outcomes: \(seen); jobs left: \(left); \(run)")
        #expect(outcome.jobID == damaged && outcome.status == nil)
        #expect(outcome.error == OutboxStore.unreadableReason)
        #expect(run.lines.contains { $0.contains("org.test.survey") && $0.contains("damaged") }, "said: \(run)")
    }
}

import Foundation
import HostTesting
import Testing

/// `assist events`: the lifecycle events of other Assist processes, as JSON lines; what it makes of a damaged
/// journal is tested in process (`InProcessApp.events`).
@Suite("assist events")
struct EventsTests {
    @Test func eventsOfAnotherSessionArePrintedAndFollowed() throws {
        let folder = try TemporaryDirectory("assist-events")
        let environment = ["ASSIST_DATA_DIR": folder.url.path]
        _ = try ProcessRunner.run(BuildProducts.assist, ["run", "--no-speech", "clock"], environment: environment)
        let past = try ProcessRunner.run(BuildProducts.assist, ["events"], environment: environment)
        let names = past.lines.compactMap { line -> String? in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["name"] as? String
        }
        #expect(
            names == ["assist.host.started", "assist.plugin.started", "assist.plugin.stopped", "assist.host.stopping"])
        #expect(past.lines.contains { $0.contains(#""payload":{"id":"assist.clock"}"#) })
        let mode =
            try FileManager.default.attributesOfItem(atPath: folder.path("events.jsonl").path)[.posixPermissions]
            as? Int
        #expect(mode == 0o600)

        // Follow: start, let another session run, then stop the follower.
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        follower.arguments = ["events", "--follow", "--last", "0", "--prefix", "assist.plugin."]
        follower.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let pipe = Pipe()
        follower.standardOutput = pipe
        try follower.run()
        usleep(500_000)
        _ = try ProcessRunner.run(BuildProducts.assist, ["run", "--no-speech", "clock"], environment: environment)
        usleep(800_000)
        kill(follower.processIdentifier, SIGKILL)
        follower.waitUntilExit()
        let followed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n")
        #expect(followed.count == 2 && followed.allSatisfy { $0.contains("assist.plugin.") }, "\(followed)")
    }

    @Test func damagedLinesAreSkippedAndCountedAndGoodOnesPrinted() throws {
        let folder = try TemporaryDirectory("assist-events-damaged")
        let good = #"{"time":"2026-01-01T00:00:00Z","name":"assist.host.started","payload":{}}"#
        let other = #"{"time":"2026-01-01T00:00:01Z","name":"org.test.thing","payload":{"n":1}}"#
        var journal = Data((good + "\n").utf8)
        journal.append(contentsOf: [0x7B, 0x22, 0xFF, 0x22, 0x7D, 0x0A])  // {"<invalid UTF-8>"}
        journal.append(Data(repeating: 0, count: 300))  // NUL bytes, as a crash mid-write can leave
        journal.append(Data("\nnot json\n[1,2]\n{\"name\":5}\n\n".utf8))
        journal.append(Data((other + "\n").utf8))
        try journal.write(to: folder.path("events.jsonl"))
        let result = try InProcessApp.events(["events"], environment: ["ASSIST_DATA_DIR": folder.url.path])
        #expect(result.status == 0)
        #expect(result.lines == [good, other], "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("\u{0}"))
        let journalPath = folder.path("events.jsonl").path
        #expect(result.standardError.hasSuffix("5 damaged lines were skipped in \(journalPath).\n"))
        let filtered = try InProcessApp.events(
            ["events", "--prefix", "org."], environment: ["ASSIST_DATA_DIR": folder.url.path])
        #expect(filtered.lines == [other])
    }

    /// Issue 73, item 9 (the sweep's "unclear", nothing said): a journal that is a folder, or only NUL bytes after
    /// its last line, as a crash or a full disk leaves them, is said; the good lines before are still printed.
    @Test func aJournalThatIsAFolderOrEndsInNULBytesIsSaid() throws {
        let folder = try TemporaryDirectory("assist-events-odd")
        let environment = ["ASSIST_DATA_DIR": folder.url.path]
        try FileManager.default.createDirectory(at: folder.path("events.jsonl"), withIntermediateDirectories: true)
        let refused = try InProcessApp.events(["events"], environment: environment)
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                "The event journal \(folder.path("events.jsonl").path) is a folder, not a file, so no events can be "
                    + "kept or read. Move that folder elsewhere; Assist then starts a new journal."),
            "\(refused.standardError)")
        try FileManager.default.removeItem(at: folder.path("events.jsonl"))
        let good = #"{"time":"2026-01-01T00:00:00Z","name":"assist.host.started","payload":{}}"#
        var journal = Data((good + "\n").utf8)
        journal.append(Data(repeating: 0, count: 1_000))
        try journal.write(to: folder.path("events.jsonl"))
        let said = try InProcessApp.events(["events"], environment: environment)
        #expect(said.status == 0 && said.lines == [good], "\(said.standardOutput)")
        #expect(
            said.standardError.contains(
                "The last 1000 bytes of \(folder.path("events.jsonl").path) are not events (NUL bytes, as a crash or a "
                    + "full disk leaves them); they were skipped."), "\(said.standardError)")
    }
}

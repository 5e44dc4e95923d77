import Foundation
import HostTesting
import Testing

/// `assist events`: the lifecycle events of other Assist processes, as JSON lines.
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
}

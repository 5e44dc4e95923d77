import Foundation
import HostTesting
import Outbox
import PluginHost
import Testing

/// A C plugin drives assist.outbox/1 against a loopback server: uploads stream from its media folder,
/// outcomes come back on the main loop, and an outcome that arrives while the plugin is not running waits
/// for it across a restart.
@Suite("Outbox service through the ABI")
struct OutboxServiceABITests {
    let root: TemporaryDirectory

    init() throws {
        root = try TemporaryDirectory("assist-outbox-abi")
        let manifest = CPluginBuilder.manifest(
            id: "org.test.outbox",
            extra: ["services": ["required": ["assist.outbox/1", "assist.storage/1"]]])
        try CPluginBuilder(root: root.url).build(folder: "outbox", manifest: manifest, source: "outbox_plugin.c")
    }

    @discardableResult
    func activate(_ host: TestHost, _ arguments: [String]) throws -> Bool {
        let features = host.features
        let plugin = try #require(features.record(id: "org.test.outbox"))
        let ended = EndRecorder()
        features.onFeatureEnded = { record, status in ended.record(record.id, status) }
        return host.run(timeoutSeconds: 20, until: { !ended.events.isEmpty }) {
            _ = features.activate(plugin, arguments: arguments)
        }
    }

    /// In process, and in a helper process (requests and outcomes cross the socket).
    @Test(arguments: [false, true])
    func aPluginUploadsItsFilesAndHearsTheOutcomes(inHelper: Bool) throws {
        let server = try LoopbackHTTPServer { request in
            .answer(
                status: 201, headers: ["orbit-id": request.path.contains("thing") ? "7" : "8"], body: Data("{}".utf8))
        }
        let host = try TestHost(pluginDirectories: [root.url], inHelperProcesses: inHelper)
        defer { host.services.outbox.stop() }
        #expect(try activate(host, ["send", server.baseURL]))
        let lines = host.output.lines
        #expect(
            lines.contains {
                $0.hasPrefix("Queued: ASSIST_OK job 2; outside ASSIST_E_PERMISSION (The file name /etc/passwd")
            }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("Bad URL: ASSIST_E_INVALID (The upload request is not valid: ftp://") })
        #expect(lines.contains("Outcome thing: status 201, orbit-id 7, body {}"))
        #expect(lines.contains("Outcome video: status 201, orbit-id 8, body {}"))
        let video = try #require(server.requests.first { $0.path == "/api/video/" })
        let clip = Data((0..<100_000).map { UInt8($0 % 251) })
        #expect(video.complete && video.body.range(of: clip) != nil, "the media file streamed whole")
        #expect(server.requests.first?.header("Authorization") == "Token hidden-from-logs")
        #expect(
            try host.services.outbox.store().outcomes(owner: "org.test.outbox").isEmpty,
            "handled outcomes are forgotten")
    }

    @Test func anOutcomeWaitsForItsPluginAcrossARestart() throws {
        let server = try LoopbackHTTPServer { _ in .answer(status: 200, body: Data("stored".utf8)) }
        let data = try TemporaryDirectory("assist-outbox-restart")
        do {
            let first = try TestHost(pluginDirectories: [root.url], dataDirectory: data)
            #expect(try activate(first, ["queue", server.baseURL]))
            #expect(first.services.outbox.waitUntilIdle(timeout: 10))
            first.services.outbox.stop()
        }
        #expect(server.requests.count == 1)
        let second = try TestHost(pluginDirectories: [root.url], dataDirectory: data)
        #expect(try activate(second, ["listen"]))
        #expect(
            second.output.lines.contains("Outcome queued: status 200, orbit-id , body stored"), "\(second.output.lines)"
        )
        #expect(server.requests.count == 1, "not sent again")
    }
}

import Foundation
import HostTesting
import Logging
import Outbox
import Testing

@Suite("The outbox worker against a loopback server that fails on demand")
struct OutboxWorkerTests {
    let folder: TemporaryDirectory
    let store: OutboxStore
    let outcomes = Collected<OutboxStore.Outcome>()
    let logs = Collected<String>()

    init() throws {
        folder = try TemporaryDirectory("assist-outbox-worker")
        store = try OutboxStore(url: folder.path("outbox.sqlite"))
    }

    func worker(online: @escaping @Sendable (String) -> Bool = { _ in true }, senders: Int = 2) -> OutboxWorker {
        let logs = self.logs
        let logger = Logger(label: "test") { _ in RecordingLogHandler(lines: logs) }
        let outcomes = self.outcomes
        return OutboxWorker(
            store: store,
            configuration: .init(
                retryBaseSeconds: 0.02, limits: .init(connectSeconds: 2, stallSeconds: 1), isOnline: online,
                offlinePollSeconds: 0.05, senders: senders),
            logger: logger, onOutcome: { outcomes.append($0) })
    }

    func post(_ server: LoopbackHTTPServer, _ path: String, owner: String = "survey", attempts: Int = 8) throws -> Int64
    {
        try store.enqueue(
            owner: owner,
            request: OutboxRequest(
                method: "POST", url: server.baseURL + path, headers: [.init("Authorization", "Bearer s3cr3t-token")],
                body: .json(Data(#"{"n":1}"#.utf8)), tag: path),
            maxAttempts: attempts)
    }

    @Test func transientFailuresAreRetriedAndEachPluginsJobsKeepTheirOrder() throws {
        let failures = Collected<String>()
        let server = try LoopbackHTTPServer { request in
            let earlier = failures.values.filter { $0 == request.path }.count
            switch (request.path, earlier) {
            case ("/a1", 0): failures.append("/a1"); return .answer(status: 500)
            case ("/a1", 1): failures.append("/a1"); return .reset(afterBodyBytes: 3)
            case ("/a1", 2): failures.append("/a1"); return .answer(status: 429, headers: ["Retry-After": "0"])
            case ("/b1", 0): failures.append("/b1"); return .garbage
            default: return .answer(status: 201, body: Data(request.path.utf8))
            }
        }
        _ = try post(server, "/a1", owner: "a")
        _ = try post(server, "/a2", owner: "a")
        _ = try post(server, "/b1", owner: "b")
        let worker = worker()
        try worker.start()
        defer { worker.stop() }
        #expect(outcomes.wait(count: 3, timeout: 20))
        let paths = server.requests.map(\.path)
        #expect(paths.filter { $0 == "/a1" }.count == 4 && paths.filter { $0 == "/b1" }.count == 2)
        let lastA1 = try #require(paths.lastIndex(of: "/a1"))
        #expect(paths.firstIndex(of: "/a2").map { $0 > lastA1 } == true, "a2 never overtakes a1")
        #expect(paths.firstIndex(of: "/b1").map { $0 < lastA1 } == true, "b is not held up by a")
        let keys = Set(server.requests.filter { $0.path == "/a1" }.compactMap { $0.header("Idempotency-Key") })
        #expect(keys.count == 1, "every attempt carries the same key")
        #expect(Set(outcomes.values.map { $0.tag ?? "" }) == ["/a1", "/a2", "/b1"])
        #expect(outcomes.values.allSatisfy { $0.status == 201 && $0.body == Data(($0.tag ?? "").utf8) })
        #expect(try store.outcomes(owner: "a").count == 2, "outcomes are stored until acknowledged")
        #expect(
            !logs.values.isEmpty && logs.values.allSatisfy { !$0.contains("s3cr3t") }, "no secret in \(logs.values)")
    }

    @Test func onePluginsLongUploadDoesNotHoldUpAnothersSmallOne() throws {
        // The videos' answer trickles in over about 1.5 s; the survey's comes at once. With one sender the
        // survey waits behind the video; with two it finishes first, and each plugin's jobs stay in order.
        let server = try LoopbackHTTPServer { request in
            request.path.hasPrefix("/video")
                ? .trickle(status: 201, body: Data(repeating: 0x2E, count: 15), interval: 0.1)
                : .answer(status: 201)
        }
        for senders in [1, 2] {
            let order = Collected<String>()
            let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            let worker = OutboxWorker(
                store: store, configuration: .init(limits: .init(connectSeconds: 2, stallSeconds: 5), senders: senders),
                logger: logger, onOutcome: { order.append($0.tag ?? "") })
            _ = try post(server, "/video-1", owner: "videos")
            _ = try post(server, "/video-2", owner: "videos")
            _ = try post(server, "/survey", owner: "survey")
            try worker.start()
            #expect(order.wait(count: 3, timeout: 20))
            worker.stop()
            if senders == 1 {
                #expect(order.values == ["/video-1", "/video-2", "/survey"], "one sender: strictly oldest first")
            } else {
                #expect(order.values == ["/survey", "/video-1", "/video-2"], "two senders: \(order.values)")
            }
        }
        #expect(try store.jobs().isEmpty)
    }

    @Test func startingAgainWhileAJobIsInFlightDoesNotSendItTwice() throws {
        // The host calls start with every enqueue; an earlier bug put the job being sent back to pending, and
        // the second sender sent it again.
        let server = try LoopbackHTTPServer { _ in
            .trickle(status: 201, body: Data(repeating: 0x2E, count: 8), interval: 0.1)
        }
        _ = try post(server, "/slow")
        let worker = worker()
        try worker.start()
        defer { worker.stop() }
        for _ in 0..<200 where server.requests.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        try worker.start()
        worker.wake()
        #expect(outcomes.wait(count: 1, timeout: 10))
        Thread.sleep(forTimeInterval: 0.3)
        #expect(server.requests.count == 1, "\(server.requests.map(\.path))")
        #expect(outcomes.values.count == 1)
    }

    @Test func finalAnswersAreNotRetriedAndTheAttemptLimitGivesUp() throws {
        let server = try LoopbackHTTPServer { request in
            request.path == "/missing" ? .answer(status: 404, body: Data("no".utf8)) : .answer(status: 503)
        }
        _ = try post(server, "/missing")
        _ = try post(server, "/down", owner: "other", attempts: 3)
        let worker = worker()
        try worker.start()
        defer { worker.stop() }
        #expect(outcomes.wait(count: 2, timeout: 20))
        let byTag = Dictionary(uniqueKeysWithValues: outcomes.values.map { ($0.tag ?? "", $0) })
        #expect(byTag["/missing"]?.status == 404 && byTag["/missing"]?.error == nil)
        #expect(
            byTag["/down"]?.status == 503
                && byTag["/down"]?.error == "gave up after 3 attempts: the server answered 503")
        #expect(server.requests.filter { $0.path == "/missing" }.count == 1)
        #expect(server.requests.filter { $0.path == "/down" }.count == 3)
    }

    @Test func jobsWaitWhileOfflineWithoutSpendingAttempts() throws {
        let server = try LoopbackHTTPServer { _ in .answer(status: 200) }
        let online = Collected<Bool>()
        _ = try post(server, "/later", attempts: 1)
        let worker = worker(online: { _ in online.values.last ?? false })
        try worker.start()
        defer { worker.stop() }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(server.requests.isEmpty && outcomes.values.isEmpty, "nothing is sent while offline")
        online.append(true)
        #expect(outcomes.wait(count: 1, timeout: 5))
        #expect(outcomes.values.first?.status == 200, "the only attempt was not spent while offline")
    }

    @Test func aHangingServerIsGivenUpOnAndTriedAgain() throws {
        let calls = Collected<Int>()
        let server = try LoopbackHTTPServer { _ in
            calls.append(1)
            return calls.values.count == 1 ? .hang : .answer(status: 200)
        }
        _ = try post(server, "/slow")
        let worker = worker()
        try worker.start()
        defer { worker.stop() }
        #expect(outcomes.wait(count: 1, timeout: 20))
        #expect(outcomes.values.first?.status == 200 && server.requests.count == 2)
    }
}

/// Keeps every log line, rendered with its metadata.
struct RecordingLogHandler: LogHandler {
    let lines: Collected<String>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lines.append("\(event.level) \(event.message) \(event.metadata ?? [:])")
    }
}

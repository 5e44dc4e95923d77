import Foundation
import HostTesting
import Outbox
import Testing

@Suite("Outbox queue on a real SQLite file")
struct OutboxStoreTests {
    let folder: TemporaryDirectory
    var url: URL { folder.path("outbox.sqlite") }

    init() throws {
        folder = try TemporaryDirectory("assist-outbox")
    }

    static func request(_ path: String) -> OutboxRequest {
        OutboxRequest(
            method: "POST", url: "http://127.0.0.1/\(path)", headers: [.init("Authorization", "Basic c2VjcmV0")])
    }

    @Test func jobsLeaveInOrderAndAnInFlightJobComesBackAfterACrash() throws {
        var store: OutboxStore? = try OutboxStore(url: url)
        let first = try #require(try store?.enqueue(owner: "a", request: Self.request("1")))
        let second = try #require(try store?.enqueue(owner: "a", request: Self.request("2")))
        let taken = try #require(try store?.takeNext(now: 0))
        #expect(taken.id == first && taken.request == Self.request("1") && !taken.idempotencyKey.isEmpty)
        // Another process opens the same file while the first still sends.
        let reopened = try OutboxStore(url: url)
        #expect(try reopened.takeNext(now: 0) == nil, "the second waits behind the first, still in flight")
        #expect(try reopened.recover() == 0, "a job its live sender is sending is not taken back")
        // The first dies here: its claim on the job goes with it.
        store = nil
        #expect(try reopened.recover() == 1)
        let claims = try FileManager.default.contentsOfDirectory(atPath: folder.path("outbox-senders").path)
        #expect(claims.count == 1, "the gone store's claim is cleared, the live one's kept: \(claims)")
        let again = try #require(try reopened.takeNext(now: 0))
        #expect(again.id == first && again.idempotencyKey == taken.idempotencyKey, "same key: the server de-duplicates")
        try reopened.finish(again, answer: HTTPAnswer(status: 201, headers: [], body: Data(), truncated: false))
        #expect(try reopened.takeNext(now: 0)?.id == second)
    }

    /// A request's credential and an answer's contents leave no copy in the outbox's files once the job is
    /// done, its outcome delivered, or it is cancelled: searched byte by byte in the database and its
    /// write-ahead log while the store is still open (a running host never closes it).
    @Test func whatLeavesTheOutboxLeavesNoCopyInItsFiles() throws {
        let store = try OutboxStore(url: url)
        let secret = "Token 5e1c0ffee5e1c0ffee"
        func request(_ path: String) -> OutboxRequest {
            OutboxRequest(method: "POST", url: "http://127.0.0.1/\(path)", headers: [.init("Authorization", secret)])
        }
        let sent = try store.enqueue(owner: "collect-videos", request: request("thing"))
        let cancelled = try store.enqueue(owner: "collect-videos", request: request("video"))
        let job = try #require(try store.takeNext(now: 0))
        #expect(job.id == sent)
        try store.finish(
            job,
            answer: HTTPAnswer(
                status: 201, headers: [], body: Data(#"{"label":"Blue umbrella"}"#.utf8), truncated: false))
        #expect(try store.cancel(cancelled, owner: "collect-videos"))
        #expect(try store.acknowledge(sent, owner: "collect-videos"))

        var traces: [String] = []
        for name in ["outbox.sqlite", "outbox.sqlite-wal"] {
            guard let data = FileManager.default.contents(atPath: folder.path(name).path) else { continue }
            for text in [secret, "Blue umbrella"] where data.range(of: Data(text.utf8)) != nil {
                traces.append("\(name) holds \(text)")
            }
        }
        #expect(traces.isEmpty, "\(traces)")
    }

    @Test func aPluginsFailingJobHoldsUpOnlyThatPluginsLaterJobs() throws {
        let store = try OutboxStore(url: url)
        let thing = try store.enqueue(owner: "collect-videos", request: Self.request("thing"))
        _ = try store.enqueue(owner: "collect-videos", request: Self.request("video"))
        let survey = try store.enqueue(owner: "survey", request: Self.request("answers"))
        let head = try #require(try store.takeNext(now: 100))
        #expect(head.id == thing)
        #expect(try store.retry(head, status: 500, error: "500", now: 100, unit: 1))
        #expect(try store.takeNext(now: 100)?.id == survey, "the video may not overtake its thing")
        #expect(try store.takeNext(now: 100) == nil)
        #expect(try store.nextDueTime() == 100 + 60, "only the head of each plugin's queue counts")
        #expect(try store.takeNext(now: 160)?.id == thing)
    }

    @Test func transientFailuresBackOffAndTheLastOneGivesUpWithAnOutcome() throws {
        let store = try OutboxStore(url: url)
        let id = try store.enqueue(owner: "survey", request: Self.request("upload"), maxAttempts: 2)
        let job = try #require(try store.takeNext(now: 1_000))
        #expect(try store.retry(job, status: 503, error: "Service Unavailable", now: 1_000, unit: 0.5))
        #expect(try store.takeNext(now: 1_000) == nil, "not due yet")
        #expect(try store.nextDueTime() == 1_000 + 30)  // attempt 1: random(0, 60 s) with 0.5
        let retried = try #require(try store.takeNext(now: 1_031))
        #expect(retried.attempts == 1)
        #expect(try !store.retry(retried, status: nil, error: "connection reset", now: 1_031, unit: 0.5))
        let outcome = try #require(try store.outcomes(owner: "survey").first)
        #expect(
            outcome.jobID == id && outcome.status == nil
                && outcome.error == "gave up after 2 attempts: connection reset")
        #expect(try store.pendingCount() == 0)
    }

    @Test func outcomesWaitForTheirOwnerAcrossRestarts() throws {
        let store = try OutboxStore(url: url)
        _ = try store.enqueue(owner: "collect-videos", request: Self.request("video"))
        let job = try #require(try store.takeNext(now: 0))
        try store.finish(
            job,
            answer: HTTPAnswer(
                status: 201, headers: [.init("orbit-id", "7")], body: Data(#"{"id":7}"#.utf8), truncated: false))
        let later = try OutboxStore(url: url)
        let outcome = try #require(try later.outcomes(owner: "collect-videos").first)
        #expect(
            outcome.status == 201 && outcome.headers == [.init("orbit-id", "7")]
                && outcome.body == Data(#"{"id":7}"#.utf8))
        #expect(try later.outcomes(owner: "survey").isEmpty)
        #expect(try !later.acknowledge(outcome.jobID, owner: "survey"), "only the owner acknowledges")
        try later.acknowledge(outcome.jobID, owner: "collect-videos")
        #expect(try later.outcomes(owner: "collect-videos").isEmpty)
    }

    @Test func backOffIsFullJitterUpToSixHours() {
        #expect(Backoff.delay(afterAttempts: 1, unit: 1) == 60)
        #expect(Backoff.delay(afterAttempts: 3, unit: 1) == 240)
        #expect(Backoff.delay(afterAttempts: 20, unit: 1) == 6 * 3_600)
        #expect(Backoff.delay(afterAttempts: 5, unit: 0) == 0)
        #expect(
            Backoff.isTransient(status: nil) && Backoff.isTransient(status: 503) && Backoff.isTransient(status: 429))
        #expect(
            !Backoff.isTransient(status: 400) && !Backoff.isTransient(status: 403) && !Backoff.isTransient(status: 201))
    }

    @Test func secretsNeverReachTheLoggableForm() {
        #expect(Self.request("x").loggable == "POST http://127.0.0.1/x [Authorization: (hidden)]")
    }
}

@Suite("Multipart bodies")
struct MultipartLayoutTests {
    @Test func theBodyHasExactLengthsAndAClosingBoundary() throws {
        let folder = try TemporaryDirectory("assist-multipart")
        let clip = try folder.write("clip.mp4", "0123456789")
        let layout = try MultipartLayout(
            boundary: "Boundary-X",
            parts: [
                .field("thing", "7"),
                .file("file", path: clip.path, filename: "clip \"1\".mp4", contentType: "video/mp4"),
            ])
        let body = String(decoding: try layout.render(), as: UTF8.self)
        #expect(
            body
                == "--Boundary-X\r\nContent-Disposition: form-data; name=\"thing\"\r\n\r\n7\r\n"
                + "--Boundary-X\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip %221%22.mp4\"\r\n"
                + "Content-Type: video/mp4\r\n\r\n0123456789\r\n--Boundary-X--\r\n")
        #expect(layout.length == Int64(try layout.render().count))
        #expect(layout.contentType == "multipart/form-data; boundary=Boundary-X")
        #expect(layout.segments.contains(.file(path: clip.path, size: 10)), "the file is streamed, not copied")
        #expect(throws: CocoaError.self) {
            try MultipartLayout(
                boundary: "b",
                parts: [.file("f", path: folder.path("gone.wav").path, filename: "a", contentType: "audio/wav")])
        }
    }
}

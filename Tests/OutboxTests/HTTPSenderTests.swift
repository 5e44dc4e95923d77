import Foundation
import HostTesting
import Outbox
import Testing

@Suite("Sending through libcurl to a loopback server")
struct HTTPSenderTests {
    @Test func jsonFormAndMultipartBodiesArriveExactlyAsLaidOut() throws {
        let folder = try TemporaryDirectory("assist-sender")
        let clip = folder.path("clip.mp4")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: clip)
        let server = try LoopbackHTTPServer { _ in
            .answer(status: 201, headers: ["orbit-id": "12"], body: Data("ok".utf8))
        }
        let sender = try HTTPSender()

        let json = try sender.send(
            OutboxRequest(
                method: "POST", url: server.baseURL + "/api/thing/", body: .json(Data(#"{"label":"Mug"}"#.utf8))),
            idempotencyKey: "key-1")
        #expect(json.status == 201 && json.header("ORBIT-ID") == "12" && json.body == Data("ok".utf8))

        _ = try sender.send(
            OutboxRequest(method: "PUT", url: server.baseURL + "/form", body: .form([.init("a b", "ç&=")])))
        let parts: [OutboxRequest.Part] = [
            .field("thing", "12"), .file("file", path: clip.path, filename: "clip.mp4", contentType: "video/mp4"),
        ]
        _ = try sender.send(
            OutboxRequest(
                method: "POST", url: server.baseURL + "/api/video/", body: .multipart(boundary: "XyZ", parts: parts)))

        let seen = server.requests
        #expect(seen.count == 3)
        #expect(
            seen[0].method == "POST" && seen[0].path == "/api/thing/" && seen[0].body == Data(#"{"label":"Mug"}"#.utf8))
        #expect(seen[0].header("Content-Type") == "application/json" && seen[0].header("Idempotency-Key") == "key-1")
        #expect(seen[0].header("Expect") == nil, "no 100-continue round trip")
        #expect(seen[1].method == "PUT" && String(decoding: seen[1].body, as: UTF8.self) == "a+b=%C3%A7%26%3D")
        let expected = try MultipartLayout(boundary: "XyZ", parts: parts).render()
        #expect(seen[2].complete && seen[2].body == expected)
        #expect(seen[2].header("Content-Type") == "multipart/form-data; boundary=XyZ")
        #expect(String(decoding: seen[2].body.suffix(9), as: UTF8.self) == "--XyZ--\r\n")
    }

    @Test func failuresAreNamedAndClassified() throws {
        let server = try LoopbackHTTPServer { request in
            switch request.path {
            case "/reset": return .reset(afterBodyBytes: nil)
            case "/midway": return .reset(afterBodyBytes: 10)
            case "/garbage": return .garbage
            case "/hang": return .hang
            default: return .trickle(status: 200, body: Data("slow".utf8), interval: 0.05)
            }
        }
        let sender = try HTTPSender(limits: .init(connectSeconds: 2, stallSeconds: 1))
        func failure(_ path: String) -> OutboxError? {
            do {
                _ = try sender.send(
                    OutboxRequest(
                        method: "POST", url: server.baseURL + path, body: .json(Data(repeating: 65, count: 1_000))))
                return nil
            } catch { return error }
        }
        #expect(failure("/reset")?.code == .broken)
        #expect(failure("/midway")?.isTransient == true)
        #expect(failure("/garbage")?.code == .broken)
        #expect(failure("/hang")?.code == .stalled)
        #expect(failure("/slow") == nil, "a slow but moving answer is fine")

        let closed = try LoopbackHTTPServer { _ in .hang }
        let port = closed.port
        closed.stop()
        Thread.sleep(forTimeInterval: 0.1)
        #expect(
            throws: OutboxError.self,
            performing: { try sender.send(OutboxRequest(method: "GET", url: "http://127.0.0.1:\(port)/")) })
    }

    @Test func requestsThatCanNeverWorkAreRefusedBeforeSending() throws {
        let sender = try HTTPSender()
        for request in [
            OutboxRequest(method: "POST", url: "ftp://example.org/x"),
            OutboxRequest(method: "POST", url: "not a url"),
            OutboxRequest(method: "PO ST", url: "http://127.0.0.1/"),
            OutboxRequest(method: "POST", url: "http://127.0.0.1/", headers: [.init("X-A", "1\r\nX-B: 2")]),
        ] {
            #expect(throws: OutboxError.self, performing: { try sender.send(request) })
        }
        let missing = OutboxRequest(
            method: "POST", url: "http://127.0.0.1:9/",
            body: .multipart(
                boundary: "b", parts: [.file("f", path: "/nonexistent/clip.mp4", filename: "c", contentType: "x")]))
        do {
            _ = try sender.send(missing)
            Issue.record("a missing file was sent")
        } catch {
            #expect(
                error.code == .unreadableBody && !error.isTransient && error.message.contains("/nonexistent/clip.mp4"))
        }
    }
}

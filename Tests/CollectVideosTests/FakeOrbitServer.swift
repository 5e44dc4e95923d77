import Foundation
import HostTesting

/// A loopback ORBIT Data server (`phasetwo`, spec §5 and §8): trailing slashes (a POST without one gets 500,
/// as Django's APPEND_SLASH does), Basic credentials verbatim, 403 with the exact `detail` bodies, a settable
/// collection period, 400 field errors, 201 with a fresh credential.
final class FakeOrbitServer: @unchecked Sendable {  // because: every mutable member is guarded by `lock`
    static let appCredential = "Basic b3JiaXRjYW1lcmE6YXBwLXNlY3JldA=="
    private let lock = NSLock()
    private var participants: [String: (name: String, email: String)] = [:]
    private var _things: [Int: (label: String, owner: String)] = [:]
    private var nextThing = 1
    private var _calls: [String] = []
    private var _faults: [LoopbackHTTPServer.Reply] = []
    var inPeriod = true
    private(set) var http: LoopbackHTTPServer!

    init() throws {
        let box = Box()
        http = try LoopbackHTTPServer { _ in
            .afterBody { request in box.server?.answer(request) ?? .answer(status: 500) }
        }
        box.server = self
    }

    private final class Box: @unchecked Sendable { weak var server: FakeOrbitServer? }

    deinit { http.stop() }

    /// The base URL an admin configures.
    var baseURL: String { http.baseURL + "/phasetwo/" }
    var calls: [String] { lock.withLock { _calls } }
    var things: [Int: String] { lock.withLock { _things.mapValues(\.label) } }
    var participantEmails: [String] { lock.withLock { participants.values.map(\.email) } }
    /// The next answers, in order, whatever is asked.
    func fail(_ replies: [LoopbackHTTPServer.Reply]) { lock.withLock { _faults += replies } }

    private static func json(_ status: Int, _ object: Any) -> LoopbackHTTPServer.Reply {
        .answer(
            status: status, headers: ["Content-Type": "application/json"],
            body: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    private static let notProvided = json(403, ["detail": "Authentication credentials were not provided."])
    private static let invalid = json(403, ["detail": "Invalid username/password."])
    private static let forbidden = json(403, ["detail": "You do not have permission to perform this action."])

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        lock.withLock { _calls.append("\(request.method) \(request.path)") }
        if let fault = lock.withLock({ _faults.isEmpty ? nil : _faults.removeFirst() }) { return fault }
        guard request.path.hasPrefix("/phasetwo/api/") else { return .answer(status: 404) }
        let path = String(request.path.dropFirst("/phasetwo/".count))
        guard path.hasSuffix("/") else { return .answer(status: request.method == "POST" ? 500 : 301) }
        guard let auth = request.header("Authorization") else { return Self.notProvided }
        let body = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any] ?? [:]
        if path == "api/createparticipant/" && request.method == "POST" {
            guard auth == Self.appCredential else { return Self.invalid }
            var errors: [String: [String]] = [:]
            let name = (body["name"] as? String) ?? ""
            let email = (body["email"] as? String) ?? ""
            if name.count < 2 || name.count > 150 { errors["name"] = ["Ensure this field has at least 2 characters."] }
            if !email.contains("@") || !email.contains(".") { errors["email"] = ["Enter a valid email address."] }
            if !errors.isEmpty { return Self.json(400, errors) }
            let credential = "Basic " + Data("p\(UUID().uuidString):\(UUID().uuidString)".utf8).base64EncodedString()
            lock.withLock { participants[credential] = (name, email) }
            return Self.json(201, ["auth_credential": credential])
        }
        guard lock.withLock({ participants[auth] != nil }) else {
            return auth == Self.appCredential ? Self.forbidden : Self.invalid
        }
        if path == "api/participant/" && request.method == "GET" {
            return Self.json(200, ["study_start": "2026-11-01", "study_end": "2026-12-31"])
        }
        guard inPeriod else { return Self.forbidden }
        if path == "api/thing/" && request.method == "POST" {
            guard let label = body["label_participant"] as? String else {
                return Self.json(400, ["label_participant": ["This field is required."]])
            }
            if label.count > 50 {
                return Self.json(400, ["label_participant": ["Ensure this field has no more than 50 characters."]])
            }
            let id: Int = lock.withLock {
                defer { nextThing += 1 }
                _things[nextThing] = (label, auth)
                return nextThing
            }
            return Self.json(201, ["id": id, "label_participant": label, "label_validated": ""])
        }
        let parts = path.split(separator: "/")
        if parts.count == 3, parts[1] == "thing", let id = Int(parts[2]) {
            guard lock.withLock({ _things[id]?.owner == auth }) else { return Self.json(404, ["detail": "Not found."]) }
            switch request.method {
            case "PATCH":
                guard let label = body["label_participant"] as? String, label.count <= 50 else {
                    return Self.json(400, ["label_participant": ["Ensure this field has no more than 50 characters."]])
                }
                lock.withLock { _things[id]?.label = label }
                return Self.json(200, ["id": id, "label_participant": label, "label_validated": ""])
            case "DELETE":
                lock.withLock { _things[id] = nil }
                return .answer(status: 204)
            default: return .answer(status: 405)
            }
        }
        return Self.json(404, ["detail": "Not found."])
    }
}

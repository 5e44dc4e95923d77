import Digest
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
    struct Video: Sendable {
        var id: Int
        var thing: Int
        var technique: String
        var validation: String
        var sha256: String
        var owner: String
    }
    private var _videos: [Video] = []
    /// Faults for video uploads only: the next uploads are read whole, stored, then the connection dropped.
    private var _dropAfterUpload = 0
    /// Thing creates that are stored, then answered with nothing (the connection dropped) or a cut-off body.
    private var _lostCreateAnswers: [LostAnswer] = []
    enum LostAnswer { case dropped, truncated }
    /// Refuse a multipart body without its closing `--boundary--` (the real server accepts it).
    var strict = true
    /// The participants' collection period (`YYYY-MM-DD`, inclusive), compared with today's local date as the
    /// server does: outside it, things and videos answer 403 while `participant/` still answers 200.
    private var _period = (FakeOrbitServer.day(-30), FakeOrbitServer.day(30))
    var period: (start: String, end: String) {
        get { lock.withLock { _period } }
        set { lock.withLock { _period = newValue } }
    }
    /// Moves the period so that today is `daysFromStart` days after its start (negative: before it) and
    /// `daysToEnd` days before its end (negative: after it).
    func setPeriod(startInDays start: Int, endInDays end: Int) {
        period = (Self.day(start), Self.day(end))
    }
    static func day(_ offset: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date().addingTimeInterval(Double(offset) * 86_400))
    }
    private var inPeriod: Bool {
        let today = Self.day(0)
        let (start, end) = period
        return start <= today && today <= end
    }
    /// The next thing creates are stored and their answers lost.
    func loseCreateAnswers(_ answers: [LostAnswer]) { lock.withLock { _lostCreateAnswers += answers } }
    /// Every thing of every participant with its label (for duplicate checks).
    var thingLabels: [String] { lock.withLock { _things.keys.sorted().compactMap { _things[$0]?.label } } }
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
    var videos: [Video] { lock.withLock { _videos } }
    func validate(_ id: Int, _ code: String) {
        lock.withLock { if let i = _videos.firstIndex(where: { $0.id == id }) { _videos[i].validation = code } }
    }
    func dropAfterUpload(_ count: Int) { lock.withLock { _dropAfterUpload = count } }
    /// Seconds an upload's answer waits once its body has arrived: a clip stays "on its way" that long.
    func delayUploads(_ seconds: Double) { lock.withLock { _uploadDelay = seconds } }
    private var _uploadDelay = 0.0
    /// Seconds each page of `GET api/video/` waits before its answer: a status poll stays on its way.
    func delayListings(_ seconds: Double) { lock.withLock { _listingDelay = seconds } }
    private var _listingDelay = 0.0
    /// Newer videos of the same participant (on another thing), so that the first ones move to later pages.
    func padVideos(_ count: Int) {
        lock.withLock {
            guard let owner = _videos.first?.owner else { return }
            for _ in 0..<count {
                let id = (_videos.map(\.id).max() ?? 0) + 1
                _videos.append(
                    Video(id: id, thing: 999, technique: "T", validation: "-", sha256: "\(id)", owner: owner))
            }
        }
    }
    /// Staff removes the participant's access (403 to everything, `participant/` included).
    func deactivate() { lock.withLock { for key in participants.keys { participants[key]?.email = "deactivated" } } }
    /// The next answers, in order, whatever is asked.
    func fail(_ replies: [LoopbackHTTPServer.Reply]) { lock.withLock { _faults += replies } }
    /// The next answers to requests that start with `call` ("GET /phasetwo/api/video/"), in order.
    func failRoute(_ call: String, _ replies: [LoopbackHTTPServer.Reply]) {
        lock.withLock { _routeFaults.append(contentsOf: replies.map { (call, $0) }) }
    }
    private var _routeFaults: [(String, LoopbackHTTPServer.Reply)] = []

    static func json(_ status: Int, _ object: Any) -> LoopbackHTTPServer.Reply {
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
        let call = "\(request.method) \(request.path)"
        if let fault = lock.withLock({ () -> LoopbackHTTPServer.Reply? in
            guard let index = _routeFaults.firstIndex(where: { call.hasPrefix($0.0) }) else { return nil }
            return _routeFaults.remove(at: index).1
        }) {
            return fault
        }
        guard request.path.hasPrefix("/phasetwo/api/") else { return .answer(status: 404) }
        let path = String(request.path.dropFirst("/phasetwo/".count))
        let route = String(path.split(separator: "?", maxSplits: 1).first ?? "")
        guard route.hasSuffix("/") else { return .answer(status: request.method == "POST" ? 500 : 301) }
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
        guard lock.withLock({ participants[auth] != nil && participants[auth]?.email != "deactivated" }) else {
            return auth == Self.appCredential ? Self.forbidden : Self.invalid
        }
        if path == "api/participant/" && request.method == "GET" {
            let (start, end) = period
            return Self.json(200, ["study_start": start, "study_end": end])
        }
        guard inPeriod else { return Self.forbidden }
        if path == "api/thing/" && request.method == "POST" {
            guard let label = body["label_participant"] as? String else {
                return Self.json(400, ["label_participant": ["This field is required."]])
            }
            if label.count > 50 {
                return Self.json(400, ["label_participant": ["Ensure this field has no more than 50 characters."]])
            }
            let (id, lost): (Int, LostAnswer?) = lock.withLock {
                defer { nextThing += 1 }
                _things[nextThing] = (label, auth)
                return (nextThing, _lostCreateAnswers.isEmpty ? nil : _lostCreateAnswers.removeFirst())
            }
            switch lost {
            case .dropped: return .reset(afterBodyBytes: nil)
            case .truncated:
                return .answer(
                    status: 201, headers: ["Content-Type": "application/json"],
                    body: Data(#"{"id":\#(id),"label_partici"#.utf8))
            case nil: return Self.json(201, ["id": id, "label_participant": label, "label_validated": ""])
            }
        }
        if route == "api/thing/" && request.method == "GET" { return thingPage(request, auth: auth) }
        if path == "api/video/" && request.method == "POST" {
            Thread.sleep(forTimeInterval: lock.withLock { _uploadDelay })
            return upload(request, auth: auth)
        }
        if route == "api/video/" && request.method == "GET" {
            Thread.sleep(forTimeInterval: lock.withLock { _listingDelay })
            return videoPage(request, auth: auth)
        }
        let parts = path.split(separator: "/")
        if parts.count == 3, parts[1] == "video", let id = Int(parts[2]), request.method == "DELETE" {
            return lock.withLock {
                guard let index = _videos.firstIndex(where: { $0.id == id && $0.owner == auth }) else {
                    return Self.json(404, ["detail": "Not found."])
                }
                _videos.remove(at: index)
                return .answer(status: 204)
            }
        }
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
                lock.withLock {
                    _things[id] = nil
                    _videos.removeAll { $0.thing == id }
                }
                return .answer(status: 204)
            default: return .answer(status: 405)
            }
        }
        return Self.json(404, ["detail": "Not found."])
    }

    /// `POST api/video/`: multipart `thing`, `technique`, `file`; per-thing SHA-256 de-duplication answers 201
    /// with the existing video; `orbit-id` always in the header.
    private func upload(_ request: LoopbackHTTPServer.Request, auth: String) -> LoopbackHTTPServer.Reply {
        guard let parts = request.multipartParts else { return Self.json(400, ["file": ["No file was submitted."]]) }
        if strict && !request.multipartIsClosed { return Self.json(400, ["detail": "Multipart form parse error."]) }
        let field = { (name: String) in parts.first { $0.name == name } }
        guard let file = field("file"), file.filename != nil, !file.data.isEmpty else {
            return Self.json(400, ["file": ["No file was submitted."]])
        }
        let technique = field("technique").map { String(decoding: $0.data, as: UTF8.self) } ?? "N"
        guard ["S", "T"].contains(technique) else {
            return Self.json(400, ["technique": ["\"\(technique)\" is not a valid choice."]])
        }
        let thingText = field("thing").map { String(decoding: $0.data, as: UTF8.self) } ?? ""
        guard let thing = Int(thingText), lock.withLock({ _things[thing] != nil }) else {
            return Self.json(400, ["thing": ["Invalid pk \"\(thingText)\" - object does not exist."]])
        }
        let digest = SHA256Digest.hex(of: file.data)
        let (video, drop): (Video, Bool) = lock.withLock {
            if let existing = _videos.first(where: { $0.thing == thing && $0.sha256 == digest }) {
                return (existing, false)
            }
            let made = Video(
                id: (_videos.map(\.id).max() ?? 0) + 1, thing: thing, technique: technique, validation: "-",
                sha256: digest, owner: auth)
            _videos.append(made)
            let drop = _dropAfterUpload > 0
            if drop { _dropAfterUpload -= 1 }
            return (made, drop)
        }
        if drop { return .reset(afterBodyBytes: nil) }
        var reply = Self.json(
            201, ["id": video.id, "thing": video.thing, "technique": video.technique, "validation": video.validation])
        if case .answer(let status, var headers, let body) = reply {
            headers["orbit-id"] = "\(video.id)"
            reply = .answer(status: status, headers: headers, body: body)
        }
        return reply
    }

    /// `GET api/thing/?page=n`: the participant's things, newest first, 10 a page, as the real server lists them.
    private func thingPage(_ request: LoopbackHTTPServer.Request, auth: String) -> LoopbackHTTPServer.Reply {
        let page = request.path.split(separator: "=").last.flatMap { Int($0) } ?? 1
        let mine = lock.withLock { _things.filter { $0.value.owner == auth }.sorted { $0.key > $1.key } }
        let pages = max(1, (mine.count + 9) / 10)
        guard page >= 1, page <= pages else { return Self.json(404, ["detail": "Invalid page."]) }
        let base = http.baseURL + "/phasetwo/api/thing/"
        return Self.json(
            200,
            [
                "count": mine.count, "next": page < pages ? base + "?page=\(page + 1)" as Any : NSNull(),
                "previous": page > 1 ? base + "?page=\(page - 1)" as Any : NSNull(),
                "results": mine.dropFirst((page - 1) * 10).prefix(10).map {
                    ["id": $0.key, "label_participant": $0.value.label, "label_validated": ""]
                },
            ])
    }

    /// `GET api/video/?page=n`: 10 a page, newest first, absolute `next`/`previous`, no `file`; past the end
    /// 404 `{"detail":"Invalid page."}`.
    private func videoPage(_ request: LoopbackHTTPServer.Request, auth: String) -> LoopbackHTTPServer.Reply {
        let page = request.path.split(separator: "=").last.flatMap { Int($0) } ?? 1
        let mine = lock.withLock { _videos.filter { $0.owner == auth }.reversed() }
        let pages = max(1, (mine.count + 9) / 10)
        guard page >= 1, page <= pages else { return Self.json(404, ["detail": "Invalid page."]) }
        let slice = Array(mine).dropFirst((page - 1) * 10).prefix(10)
        let base = http.baseURL + "/phasetwo/api/video/"
        return Self.json(
            200,
            [
                "count": mine.count, "next": page < pages ? base + "?page=\(page + 1)" as Any : NSNull(),
                "previous": page > 1 ? base + "?page=\(page - 1)" as Any : NSNull(),
                "results": slice.map {
                    ["id": $0.id, "thing": $0.thing, "technique": $0.technique, "validation": $0.validation]
                },
            ])
    }
}

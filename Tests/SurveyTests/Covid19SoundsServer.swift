import Foundation
import HostTesting

/// A loopback server that behaves like the COVID-19 Sounds server (survey spec §8): the three endpoints with
/// their methods and body kinds, credentials checked, tokens that expire, faults injected per endpoint, and
/// everything received kept for assertions.
final class Covid19SoundsServer: @unchecked Sendable {  // because: every mutable member is guarded by `lock`
    enum Endpoint: String, Sendable {
        case createUser = "/api/create_app_user_preauth/", token = "/auth/token/", upload = "/api/receive_file/"
    }

    enum Fault: Sendable { case status(Int), reset, html }

    typealias Part = LoopbackHTTPServer.Part

    struct Upload: Sendable {
        var parts: [Part]
        var bearer: String?
        func part(_ name: String) -> Part? { parts.first { $0.name == name } }
        func json(_ name: String) -> [String: String]? {
            part(name).flatMap { try? JSONSerialization.jsonObject(with: $0.data) as? [String: String] }
        }
    }

    let preauthPassword = "pre-auth-pass"
    let preauthEmail = "study@example.org"
    let clientID = "assist-client"
    let clientSecret = "client-secret-value"
    private let lock = NSLock()
    private var users: [String: String] = [:]
    private var tokens: [String: (user: String, expires: Double)] = [:]
    private var refreshTokens: [String: String] = [:]
    private var faults: [Endpoint: [Fault]] = [:]
    private var _expiresIn = 3600.0
    private var _uploads: [Upload] = []
    private var _calls: [(Endpoint, Int)] = []
    private var _nonJSONReply = false
    private var _uploadRate: Int?
    private var _uploadsStarted = 0
    private(set) var http: LoopbackHTTPServer!

    init() throws {
        let router = Router()
        http = try LoopbackHTTPServer(keptBodyBytes: 32 << 20) { head in
            let decide = LoopbackHTTPServer.Reply.afterBody { request in
                router.server?.answer(request) ?? .answer(status: 500)
            }
            guard head.path == Endpoint.upload.rawValue else { return decide }
            router.server?.noteUploadStarted()
            guard let rate = router.server?.uploadRate else { return decide }
            return .readSlowly(bytesPerSecond: rate, then: decide)
        }
        router.server = self
    }

    /// Lets the HTTP handler reach the server once it exists.
    private final class Router: @unchecked Sendable {  // because: set once before the first request
        weak var server: Covid19SoundsServer?
    }

    deinit { http.stop() }

    var baseURL: String { http.baseURL }
    var uploads: [Upload] { lock.withLock { _uploads } }
    /// Every call with the status answered, in order.
    var calls: [(Endpoint, Int)] { lock.withLock { _calls } }
    var userCount: Int { lock.withLock { users.count } }

    /// Tokens given from now on last `seconds`.
    func setExpiresIn(_ seconds: Double) { lock.withLock { _expiresIn = seconds } }
    /// Makes the next calls to `endpoint` fail, in order.
    func fail(_ endpoint: Endpoint, _ faults: [Fault]) {
        lock.withLock { self.faults[endpoint, default: []] += faults }
    }
    /// Uploads are read at about `bytesPerSecond` (nil: at full speed), so a test can kill the sender halfway.
    func readUploadsSlowly(_ bytesPerSecond: Int?) { lock.withLock { _uploadRate = bytesPerSecond } }
    var uploadRate: Int? { lock.withLock { _uploadRate } }
    /// How many upload requests began to arrive, complete or not.
    var uploadsStarted: Int { lock.withLock { _uploadsStarted } }
    func noteUploadStarted() { lock.withLock { _uploadsStarted += 1 } }

    /// `receive_file` answers 200 with a body that is not JSON.
    func replyWithoutJSON() { lock.withLock { _nonJSONReply = true } }
    /// Every access token stops working (the server restarted its token store).
    func expireAllTokens() { lock.withLock { for key in tokens.keys { tokens[key]?.expires = 0 } } }

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        guard let endpoint = Endpoint(rawValue: request.path) else { return .answer(status: 404) }
        let fault: Fault? = lock.withLock {
            guard var queue = faults[endpoint], !queue.isEmpty else { return nil }
            let first = queue.removeFirst()
            faults[endpoint] = queue
            return first
        }
        let reply: LoopbackHTTPServer.Reply
        switch fault {
        case .status(let code): reply = .answer(status: code, body: Data("{\"detail\":\"injected\"}".utf8))
        case .reset: reply = .reset(afterBodyBytes: nil)
        case .html:
            reply = .answer(
                status: 502, headers: ["Content-Type": "text/html"],
                body: Data("<html><body>Bad gateway</body></html>".utf8))
        case nil: reply = handle(endpoint, request)
        }
        let status: Int
        if case .answer(let code, _, _) = reply { status = code } else { status = 0 }
        lock.withLock { _calls.append((endpoint, status)) }
        return reply
    }

    private func handle(_ endpoint: Endpoint, _ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        func json(_ object: [String: Any], _ status: Int = 200) -> LoopbackHTTPServer.Reply {
            .answer(
                status: status, headers: ["Content-Type": "application/json"],
                body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
        }
        switch endpoint {
        case .createUser:
            guard request.method == "POST", request.header("Content-Type") == "application/x-www-form-urlencoded"
            else { return .answer(status: 400) }
            let form = request.formFields
            guard form["password"] == preauthPassword, form["email"] == preauthEmail,
                let username = form["username"], username.count == 12,
                username.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            else { return json(["detail": "bad preauth"], 403) }
            return lock.withLock {
                guard users[username] == nil else { return json(["detail": "exists"], 400) }
                let password = UUID().uuidString
                users[username] = password
                return json(["username": username, "password": password])
            }
        case .token:
            guard request.method == "POST",
                let fields = Self.multipart(request)?.reduce(
                    into: [String: String](),
                    {
                        if $1.filename == nil { $0[$1.name] = String(decoding: $1.data, as: UTF8.self) }
                    })
            else { return .answer(status: 400) }
            guard fields["client_id"] == clientID, fields["client_secret"] == clientSecret else {
                return json(["error": "invalid_client"], 401)
            }
            return lock.withLock {
                let user: String
                switch fields["grant_type"] {
                case "password":
                    guard let name = fields["username"], let password = fields["password"], users[name] == password
                    else { return json(["error": "invalid_grant"], 400) }
                    user = name
                case "refresh_token":
                    guard let refresh = fields["refresh_token"], let name = refreshTokens.removeValue(forKey: refresh)
                    else { return json(["error": "invalid_grant"], 400) }
                    user = name
                default:
                    return json(["error": "unsupported_grant_type"], 400)
                }
                let access = UUID().uuidString
                let refresh = UUID().uuidString
                tokens[access] = (user, Date().timeIntervalSince1970 + _expiresIn)
                refreshTokens[refresh] = user
                return json([
                    "access_token": access, "refresh_token": refresh, "expires_in": _expiresIn, "token_type": "Bearer",
                ])
            }
        case .upload:
            guard request.method == "PUT", let parts = Self.multipart(request) else { return .answer(status: 400) }
            let bearer = request.header("Authorization").flatMap {
                $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil
            }
            return lock.withLock {
                guard let bearer, let token = tokens[bearer], token.expires > Date().timeIntervalSince1970 else {
                    return json(["detail": "token expired or unknown"], 401)
                }
                _uploads.append(Upload(parts: parts, bearer: bearer))
                if _nonJSONReply { return .answer(status: 200, body: Data("thanks".utf8)) }
                return json(["received_data_length": request.bodyLength])
            }
        }
    }

    /// The parts of a multipart/form-data body, or nil when it is not one.
    static func multipart(_ request: LoopbackHTTPServer.Request) -> [Part]? { request.multipartParts }
}

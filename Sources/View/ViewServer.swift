import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ViewState

/// The low-vision view's web server (docs/view.md): the page, its two assets and one websocket, on
/// 127.0.0.1 only. The page and the socket need the session's random token; the socket also needs the page's
/// own `Origin`, and every request the address as its `Host` (a name that only resolves to loopback does not
/// pass). Each answer carries a strict Content-Security-Policy.
package final class ViewServer: Sendable {
    /// The port it listens on.
    package let port: Int
    /// The port asked for that another program holds (another was chosen), if so.
    package let portTaken: Int?
    /// The random token the page and its socket must carry.
    package let token: String
    private let task: Task<Void, Never>
    /// The pages' sockets still open: `stop` lets them write what was sent before it.
    private let sockets: OpenSockets

    /// The page's address, token included: what `View:` prints.
    package var url: String { "http://127.0.0.1:\(port)/?token=\(token)" }

    /// The assets a page may load: name, and its type.
    static let assets = [
        "view.js": "text/javascript; charset=utf-8", "view.css": "text/css; charset=utf-8",
    ]

    /// The longest message the socket takes from a page.
    static let longestMessage = 16_384

    private init(port: Int, portTaken: Int?, token: String, task: Task<Void, Never>, sockets: OpenSockets) {
        self.port = port
        self.portTaken = portTaken
        self.token = token
        self.task = task
        self.sockets = sockets
    }

    /// Starts serving `hub`'s page from `folder` (share/assist/view) on `port` (nil or 0: any free one; one in
    /// use: another, said by `portTaken`), with `token` (nil: a new one). Returns once it listens.
    package static func start(
        hub: ViewHub, folder: URL, port: Int?, token given: String? = nil, logger: Logger
    ) throws -> ViewServer {
        let token = given.flatMap { isToken($0) ? $0 : nil } ?? randomToken()
        let page = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)
        if let port, port != 0 {
            do {
                return try listen(hub: hub, folder: folder, page: page, port: port, token: token, logger: logger)
            } catch ViewError.portInUse {
                let server = try listen(hub: hub, folder: folder, page: page, port: 0, token: token, logger: logger)
                return ViewServer(
                    port: server.port, portTaken: port, token: token, task: server.task, sockets: server.sockets)
            }
        }
        return try listen(hub: hub, folder: folder, page: page, port: 0, token: token, logger: logger)
    }

    /// Stops listening and closes every page. The hub's pages closed first (`ViewHub.closeAll`), what was sent to
    /// them is written, then a close frame, and each page's answer to it is waited for, up to `drainSeconds` in
    /// all: the last thing a feature shows before Assist ends (filming stopped, the line gone) reaches the page
    /// and is read by it before the connection goes, even on a busy machine.
    package func stop(drainSeconds: Double = 2) {
        sockets.waitUntilClosed(seconds: drainSeconds)
        task.cancel()
    }

    private static func listen(
        hub: ViewHub, folder: URL, page: String, port: Int, token: String, logger: Logger
    ) throws -> ViewServer {
        if port != 0, !portIsFree(port) { throw ViewError.portInUse }
        let address = BoundAddress()
        let openSockets = OpenSockets()
        let rules = Rules(token: token, address: address, logger: logger)
        let router = Router()
        router.get("/") { request, _ -> Response in
            guard rules.allows(request, needsToken: true) else { return rules.refusal() }
            return rules.answer(page, type: "text/html; charset=utf-8")
        }
        // Read once, at start: a page's first paint does not wait on the disk.
        let files = Dictionary(
            uniqueKeysWithValues: assets.keys.compactMap { name in
                (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)).map { (name, $0) }
            })
        router.get("/assets/:name") { request, context -> Response in
            guard rules.allows(request, needsToken: false), let name = context.parameters.get("name"),
                let type = assets[name], let text = files[name]
            else { return rules.refusal(status: .notFound) }
            return rules.answer(text, type: type)
        }
        // A socket refused is answered by the page's router: 403.
        router.get("/socket") { _, _ -> Response in rules.refusal() }
        let sockets = Router(context: BasicWebSocketRequestContext.self)
        sockets.ws("/socket") { request, _ in
            guard rules.allows(request, needsToken: true, needsOrigin: true) else { return .dontUpgrade }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            openSockets.opened()
            defer { openSockets.closed() }
            let outlet = StreamOutlet()
            let (messages, pictures) = (outlet.messages, outlet.pictures)
            let id = hub.connect(outlet)
            defer { hub.disconnect(id) }
            await withTaskGroup(of: SocketHalf.self) { group in
                group.addTask {
                    for await message in messages {
                        do { try await outbound.write(.text(message)) } catch { return .broken }
                    }
                    // The host closed the page (it is stopping): all it was sent is written; the close frame
                    // goes after it, and the page's answer is waited for below, so the connection is not cut
                    // (a reset can lose what the page has not read yet).
                    if Task.isCancelled { return .broken }
                    do { try await outbound.close(.goingAway, reason: nil) } catch { return .broken }
                    return .sent
                }
                group.addTask {
                    for await picture in pictures {
                        do { try await outbound.write(.binary(ByteBuffer(bytes: picture))) } catch { return .broken }
                    }
                    return .sent
                }
                group.addTask {
                    do {
                        for try await message in inbound.messages(maxSize: longestMessage) {
                            if case .text(let text) = message { hub.received(text, from: id) }
                        }
                    } catch {}
                    return .pageGone
                }
                // The page closing (or a write failing) ends the rest; the host closing waits for the page to
                // answer its close (`stop` waits for that, two seconds at most).
                while let half = await group.next(), half == .sent {}
                group.cancelAll()
                hub.disconnect(id)
            }
        }
        let started = StartSignal()
        var quiet = logger
        quiet.logLevel = .error
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(
                webSocketRouter: sockets, configuration: .init(http1: .init(), ws: .init(maxFrameSize: longestMessage))),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                address.set(bound)
                started.finish(.success(bound))
            },
            logger: quiet
        )
        let task = Task.detached {
            do { try await app.run() } catch { started.finish(.failure(error)) }
            hub.closeAll()
        }
        switch started.wait(seconds: 15) {
        case .success(let bound):
            return ViewServer(port: bound, portTaken: nil, token: token, task: task, sockets: openSockets)
        case .failure(let error):
            task.cancel()
            throw ViewError.cannotListen(String(describing: error))
        case nil:
            task.cancel()
            throw ViewError.cannotListen("it did not start within 15 seconds")
        }
    }

    /// 32 hexadecimal digits from the system's random source (getrandom).
    package static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max, using: &generator)) }
            .joined()
    }

    /// True for 32 lowercase hexadecimal digits.
    package static func isToken(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// True when nothing listens on 127.0.0.1:`port` (bound and released at once).
    package static func portIsFree(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        // As the server binds: connections of a process that just ended (TIME_WAIT) do not hold the port.
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return bound == 0
    }
}

/// Why the view cannot start.
package enum ViewError: Error, Equatable {
    case portInUse
    case cannotListen(String)
}

/// Who may have the page and the socket, and the headers every answer carries.
private struct Rules: Sendable {
    let token: String
    let address: BoundAddress
    let logger: Logger

    /// The page's policy: its own script, style and socket, nothing else; it may not be framed.
    func policy(port: Int) -> String {
        [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
            "connect-src ws://127.0.0.1:\(port)", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    func allows(_ request: Request, needsToken: Bool, needsOrigin: Bool = false) -> Bool {
        let port = address.get()
        let host = "127.0.0.1:\(port)"
        guard request.head.authority == host else {
            logger.warning("view: refused a request for another host name")
            return false
        }
        if needsToken {
            let given = request.uri.queryParameters.get("token") ?? ""
            guard Self.same(given, token) else {
                logger.warning("view: refused a request without the session's token (\(request.uri.path))")
                return false
            }
        }
        if needsOrigin, request.headers[.origin] != "http://\(host)" {
            logger.warning("view: refused a socket from another origin")
            return false
        }
        return true
    }

    /// Compares in time that does not depend on where the two differ.
    static func same(_ given: String, _ token: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(token.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    func headers(type: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = type
        fields[.cacheControl] = "no-store"
        if let name = HTTPField.Name("Content-Security-Policy") { fields[name] = policy(port: address.get()) }
        if let name = HTTPField.Name("X-Content-Type-Options") { fields[name] = "nosniff" }
        if let name = HTTPField.Name("Referrer-Policy") { fields[name] = "no-referrer" }
        if let name = HTTPField.Name("X-Frame-Options") { fields[name] = "DENY" }
        return fields
    }

    func answer(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: headers(type: type), body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func refusal(status: HTTPResponse.Status = .forbidden) -> Response {
        let text = status == .forbidden ? "Forbidden: open the address Assist printed after View:.\n" : "Not found.\n"
        return Response(
            status: status, headers: headers(type: "text/plain; charset=utf-8"),
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// The port bound, once known (0 before).
private final class BoundAddress: @unchecked Sendable {  // because: `port` is read and written under `lock`
    private let lock = NSLock()
    private var port = 0
    func set(_ port: Int) { lock.withLock { self.port = port } }
    func get() -> Int { lock.withLock { port } }
}

/// How one of a socket's three tasks ended.
private enum SocketHalf: Sendable {
    /// Everything the host sent is written (and, for the messages, the close frame after it).
    case sent
    /// The page closed, or answered the host's close.
    case pageGone
    /// A write failed: the connection is gone.
    case broken
}

/// How many pages' sockets are open, waited on by `ViewServer.stop`.
private final class OpenSockets: @unchecked Sendable {  // because: `count` is read and written under `condition`
    private let condition = NSCondition()
    private var count = 0

    func opened() { condition.withLock { count += 1 } }

    func closed() {
        condition.withLock {
            count -= 1
            condition.broadcast()
        }
    }

    func waitUntilClosed(seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.withLock {
            while count > 0, condition.wait(until: deadline) {}
        }
    }
}

/// The server's start, waited for by the thread that asked for it.
private final class StartSignal: @unchecked Sendable {  // because: `result` is read and written under `condition`
    private let condition = NSCondition()
    private var result: Result<Int, Error>?

    func finish(_ outcome: Result<Int, Error>) {
        condition.withLock {
            if result == nil { result = outcome }
            condition.broadcast()
        }
    }

    func wait(seconds: Double) -> Result<Int, Error>? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while result == nil, condition.wait(until: deadline) {}
        return result
    }
}

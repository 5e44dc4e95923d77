import Foundation
import HostTesting

/// A loopback AWARE Micro (photo-sensor spec §8): the form route with the study number and key in the path,
/// 401 on a mismatch or an unknown operation, `create_table` a no-op, rows parsed and kept (and a batch
/// whose rows lack a numeric `timestamp` refused with 500 rather than silently lost), the JSON route, 413
/// above 50 MB, and faults on demand.
final class AwareMicroServer: @unchecked Sendable {  // because: every mutable member is guarded by `lock`
    enum Fault: Sendable {
        case status(Int), reset, html, status404InBody
        /// Takes the batch (as AWARE Micro does, before it answers), then never answers.
        case storeThenHang
        /// Answered normally (a placeholder, so faults can start later).
        case normal
    }

    let studyNumber = "7"
    let studyKey = "k3y"
    private let lock = NSLock()
    private var _rows: [String: [[String: Any]]] = [:]
    private var faults: [Fault] = []
    private var _slow: Int?
    private var _started = 0
    private(set) var http: LoopbackHTTPServer!

    init() throws {
        let router = Router()
        http = try LoopbackHTTPServer(keptBodyBytes: 64 << 20) { head in
            let decide = LoopbackHTTPServer.Reply.afterBody { request in
                router.server?.answer(request) ?? .answer(status: 500)
            }
            router.server?.noteStarted()
            guard let rate = router.server?.slow else { return decide }
            return .readSlowly(bytesPerSecond: rate, then: decide)
        }
        router.server = self
    }

    private final class Router: @unchecked Sendable {  // because: set once before the first request
        weak var server: AwareMicroServer?
    }

    deinit { http.stop() }

    var baseURL: String { http.baseURL }
    /// The next requests fail in order; with `after`, that many requests are answered normally first.
    func fail(_ next: [Fault], after: Int = 0) {
        lock.withLock { faults += [Fault](repeating: .normal, count: after) + next }
    }
    func readSlowly(_ bytesPerSecond: Int?) { lock.withLock { _slow = bytesPerSecond } }
    var slow: Int? { lock.withLock { _slow } }
    func noteStarted() { lock.withLock { _started += 1 } }
    var requestsStarted: Int { lock.withLock { _started } }
    func rows(_ table: String) -> [[String: Any]] { lock.withLock { _rows[table] ?? [] } }
    func ids(_ table: String) -> [Int] { rows(table).compactMap { ($0["id"] as? NSNumber)?.intValue } }

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        let fault: Fault? = lock.withLock { faults.isEmpty ? nil : faults.removeFirst() }
        switch fault {
        case .status(let code): return .answer(status: code)
        case .reset: return .reset(afterBodyBytes: nil)
        case .html: return .answer(status: 200, body: Data("<html>maintenance</html>".utf8))
        case .status404InBody: return .answer(status: 200, body: Data(#"{"status":404}"#.utf8))
        case .storeThenHang, .normal, nil: break
        }
        if request.bodyLength > 50 << 20 { return .answer(status: 413) }
        let parts = request.path.split(separator: "/").map(String.init)
        // /index.php/<n>/<key>/<table>/<operation>
        if parts.count == 5, parts[0] == "index.php", request.method == "POST" {
            guard parts[1] == studyNumber, parts[2] == studyKey, ["insert", "create_table"].contains(parts[4]) else {
                return .answer(status: 401)
            }
            if parts[4] == "create_table" { return .answer(status: 200) }
            let form = request.formFields
            guard form["device_id"] != nil, let data = form["data"] else { return .answer(status: 500) }
            let reply = store(table: parts[3], json: data)
            if case .storeThenHang = fault { return .hang }
            return reply
        }
        // /api/<n>/<key>/insert/
        if parts.count == 4, parts[0] == "api", parts[3] == "insert", request.method == "POST" {
            guard parts[1] == studyNumber, parts[2] == studyKey else { return .answer(status: 401) }
            guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
                let table = object["tableName"] as? String, let rows = object["data"],
                let data = try? JSONSerialization.data(withJSONObject: rows)
            else { return .answer(status: 500) }
            return store(table: table, json: String(decoding: data, as: UTF8.self))
        }
        return .answer(status: 401)
    }

    private func store(table: String, json: String) -> LoopbackHTTPServer.Reply {
        guard let rows = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
            rows.allSatisfy({ $0["timestamp"] is NSNumber })
        else { return .answer(status: 500) }
        lock.withLock { _rows[table, default: []] += rows }
        return .answer(status: 200)  // empty body, as the real server answers before it inserts
    }
}

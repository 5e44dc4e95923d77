import Foundation
import PluginABI
import PluginAPI

/// An HTTP request for the host's outbox (`assist.outbox/1`): stored at once, sent in the background in the
/// order enqueued, retried with back-off, kept across restarts.
///
///     var request = OutboxRequest(method: "POST", url: "https://example.org/api/clip/")
///     request.headers = [("Authorization", "Token \(token)")]
///     request.body = .multipart([.field("thing", "7"), .file("file", path: "clips/cup-1.mp4")])
///     let job = try host.enqueue(request)
public struct OutboxRequest: Sendable {
    public enum Body: Sendable {
        case none
        /// JSON bytes, sent as `application/json`.
        case json(Data)
        /// Fields sent url-encoded.
        case form([(name: String, value: String)])
        /// multipart/form-data with a fresh boundary.
        case multipart([Part])
    }

    /// A multipart part: a text field, or a file streamed from the plugin's media or cache folder when sent.
    public enum Part: Sendable {
        case field(String, String)
        /// `path`: a name in the media folder ("clips/cup-1.mp4") or a full path inside media or cache.
        case file(String, path: String, filename: String? = nil, contentType: String? = nil)
    }

    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)] = []
    public var body: Body = .none
    /// Attempts before giving up (transport errors, 5xx, 429); 0 for the host's default, 8.
    public var maxAttempts = 0
    /// The plugin's own reference, handed back with the outcome.
    public var tag: String?

    public init(method: String, url: String) {
        self.method = method
        self.url = url
    }
}

/// How a job ended: the server's final answer, or `status` 0 and `error` when the outbox gave up.
public struct OutboxOutcome: Sendable {
    public var job: Int64
    /// 100-599, or 0 when the outbox gave up.
    public var status: Int
    public var tag: String?
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// True when the body was longer than the 1 MB kept.
    public var truncated: Bool
    public var error: String?

    /// The first header called `name`, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

extension PluginHostHandle {
    /// Stores `request` and returns its job id; throws `.invalid` with the reason for a request that can
    /// never work (bad URL, method or header, a file outside the plugin's folders), `.io` when it cannot be
    /// stored. Wraps `assist_outbox_service.enqueue`. Any thread.
    @discardableResult
    public func enqueue(_ request: OutboxRequest) throws(PluginStatus) -> Int64 {
        guard let enqueue = tables.outbox?.pointee.enqueue else { throw PluginStatus.unsupported }
        return try submit(request, through: enqueue)
    }

    /// Sends `request` once, now, never storing it (for a body that must not reach disk, such as a
    /// participant's name and email); its outcome reaches the `onOutcome` handler with a negative job id and
    /// is not kept across restarts. Throws `.unsupported` on a host too old to offer it: never fall back to
    /// `enqueue` for such a body. Wraps `assist_outbox_service.send_now`. [main]
    ///
    ///     let job = try host.sendNow(request)   // then wait for its outcome
    public func sendNow(_ request: OutboxRequest) throws(PluginStatus) -> Int64 {
        guard let send = tables.outbox?.pointee.send_now else { throw PluginStatus.unsupported }
        return try submit(request, through: send)
    }

    private func submit(
        _ request: OutboxRequest,
        through enqueue:
            @convention(c) (
                UnsafePointer<assist_host>?, UnsafePointer<assist_outbox_request>?, UnsafeMutablePointer<Int64>?,
                UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
            ) -> assist_status
    ) throws(PluginStatus) -> Int64 {
        var strings = CStrings()
        defer { strings.free() }
        let headers = request.headers.map { strings.field($0.name, $0.value) }
        var cRequest = assist_outbox_request()
        cRequest.struct_size = UInt32(MemoryLayout<assist_outbox_request>.size)
        cRequest.method = strings.add(request.method)
        cRequest.url = strings.add(request.url)
        cRequest.max_attempts = UInt32(max(0, request.maxAttempts))
        cRequest.tag = request.tag.flatMap { strings.add($0) }
        var job: Int64 = 0
        var error: UnsafeMutablePointer<CChar>?
        let status: Int32 = headers.withUnsafeBufferPointer { headerBuffer in
            cRequest.headers = headerBuffer.baseAddress
            cRequest.header_count = headerBuffer.count
            switch request.body {
            case .none:
                cRequest.body = ASSIST_OUTBOX_BODY_NONE
                return enqueue(raw, &cRequest, &job, &error)
            case .json(let data):
                cRequest.body = ASSIST_OUTBOX_BODY_JSON
                return data.withUnsafeBytes { bytes in
                    cRequest.json = bytes.baseAddress
                    cRequest.json_size = bytes.count
                    return enqueue(raw, &cRequest, &job, &error)
                }
            case .form(let fields):
                cRequest.body = ASSIST_OUTBOX_BODY_FORM
                return fields.map { strings.field($0.name, $0.value) }.withUnsafeBufferPointer {
                    (cRequest.fields, cRequest.field_count) = ($0.baseAddress, $0.count)
                    return enqueue(raw, &cRequest, &job, &error)
                }
            case .multipart(let parts):
                cRequest.body = ASSIST_OUTBOX_BODY_MULTIPART
                return parts.map { strings.part($0) }.withUnsafeBufferPointer {
                    (cRequest.parts, cRequest.part_count) = ($0.baseAddress, $0.count)
                    return enqueue(raw, &cRequest, &job, &error)
                }
            }
        }
        try PluginStatus.check(status, error)
        return job
    }

    /// Receives outcomes on [main] (also those waiting from before a restart, after this call returns).
    /// Return true when handled, and the host forgets it; false keeps it until `acknowledge`. The handler
    /// lives until `stopOutcomes` or the plugin stops. Wraps `assist_outbox_service.on_outcome`. [main]
    ///
    ///     try host.onOutcome { outcome in
    ///         if outcome.status == 201 { markUploaded(outcome.tag) }
    ///         return true
    ///     }
    public func onOutcome(_ handler: @escaping (OutboxOutcome) -> Bool) throws(PluginStatus) {
        guard let onOutcome = tables.outbox?.pointee.on_outcome else { throw PluginStatus.unsupported }
        let box = Unmanaged.passRetained(OutcomeHandlerBox(handler))
        let status = onOutcome(
            raw,
            { user, outcome in
                guard let user, let outcome else { return false }
                return Unmanaged<OutcomeHandlerBox>.fromOpaque(user).takeUnretainedValue().handle(outcome)
            }, box.toOpaque())
        guard status == ASSIST_OK else {
            box.release()
            throw PluginStatus(status)
        }
        OutcomeHandlerBox.replace(for: raw, with: box)
    }

    /// Stops receiving outcomes; they wait for the next `onOutcome`. [main]
    public func stopOutcomes() {
        _ = tables.outbox?.pointee.on_outcome?(raw, nil, nil)
        OutcomeHandlerBox.replace(for: raw, with: nil)
    }

    /// Forgets an outcome the handler kept. Throws `.notFound` when there is none. Any thread.
    public func acknowledge(job: Int64) throws(PluginStatus) {
        guard let acknowledge = tables.outbox?.pointee.acknowledge else { throw PluginStatus.unsupported }
        try PluginStatus.check(acknowledge(raw, job))
    }

    /// Removes a job not yet being sent. Throws `.notFound` when it is gone or being sent. Any thread.
    public func cancel(job: Int64) throws(PluginStatus) {
        guard let cancel = tables.outbox?.pointee.cancel else { throw PluginStatus.unsupported }
        try PluginStatus.check(cancel(raw, job))
    }

    /// How many of this plugin's jobs wait, are being sent, or have an outcome not yet handled. Any thread.
    public func pendingUploads() throws(PluginStatus) -> Int {
        guard let pending = tables.outbox?.pointee.pending else { throw PluginStatus.unsupported }
        var count: Int64 = 0
        try PluginStatus.check(pending(raw, &count))
        return Int(count)
    }

    /// True when the network reaching `hostName` is up, as the outbox judges it (loopback always); true too
    /// on a host too old to say, so work is never held back for ever. Wraps `assist_outbox_service.is_online`.
    /// Any thread.
    public func isOnline(_ hostName: String) -> Bool {
        guard let check = tables.outbox?.pointee.is_online else { return true }
        return check(raw, hostName)
    }

}

/// C copies of strings that live until `free`.
private struct CStrings {
    private var owned: [UnsafeMutablePointer<CChar>?] = []

    mutating func add(_ text: String) -> UnsafePointer<CChar>? {
        let copy = strdup(text)
        owned.append(copy)
        return copy.map { UnsafePointer($0) }
    }

    mutating func field(_ name: String, _ value: String) -> assist_http_field {
        var field = assist_http_field()
        field.struct_size = UInt32(MemoryLayout<assist_http_field>.size)
        field.name = add(name)
        field.value = add(value)
        return field
    }

    mutating func part(_ part: OutboxRequest.Part) -> assist_outbox_part {
        var raw = assist_outbox_part()
        raw.struct_size = UInt32(MemoryLayout<assist_outbox_part>.size)
        switch part {
        case .field(let name, let text):
            raw.name = add(name)
            raw.text = add(text)
        case .file(let name, let path, let filename, let contentType):
            raw.name = add(name)
            raw.path = add(path)
            raw.filename = filename.flatMap { add($0) }
            raw.content_type = contentType.flatMap { add($0) }
        }
        return raw
    }

    func free() { owned.forEach { Foundation.free($0) } }
}

/// Keeps an outcome handler alive for the C callback, one per plugin instance.
private final class OutcomeHandlerBox {
    let handler: (OutboxOutcome) -> Bool
    init(_ handler: @escaping (OutboxOutcome) -> Bool) { self.handler = handler }

    nonisolated(unsafe) private static var current: [UnsafePointer<assist_host>: Unmanaged<OutcomeHandlerBox>] = [:]
    /// Each host's main thread may replace its own at once (two hosts in one process).
    private static let lock = NSLock()

    /// [main] only, like on_outcome.
    static func replace(for host: UnsafePointer<assist_host>, with box: Unmanaged<OutcomeHandlerBox>?) {
        let old = lock.withLock {
            let old = current.removeValue(forKey: host)
            if let box { current[host] = box }
            return old
        }
        old?.release()
    }

    func handle(_ raw: UnsafePointer<assist_outbox_outcome>) -> Bool {
        guard let outcome = assist_outbox_outcome.read(raw) else { return false }
        let text = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } }
        let headers = (assist_http_field.readArray(outcome.headers, count: outcome.header_count) ?? []).map {
            (name: text($0.name) ?? "", value: text($0.value) ?? "")
        }
        return handler(
            OutboxOutcome(
                job: outcome.job, status: Int(outcome.status), tag: text(outcome.tag), headers: headers,
                body: outcome.body.map { Data(bytes: $0, count: outcome.body_size) } ?? Data(),
                truncated: outcome.truncated, error: text(outcome.error)))
    }
}

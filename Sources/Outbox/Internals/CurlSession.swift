internal import CCurlShims
import Foundation
import Runtime

/// One libcurl handle and what one exchange collects. Used by one thread at a time.
final class CurlSession {
    private let handle: OpaquePointer

    init?() {
        guard let handle = assist_curl_new() else { return nil }
        self.handle = handle
    }

    deinit { assist_curl_free(handle) }

    /// Why libcurl, opened on first use, could not be opened; nil when it was.
    static var loadError: String? { assist_curl_load_error().map { String(cString: $0) } }

    /// What the server said, plus the body reader's failure if the body stopped.
    struct Exchange {
        var status = 0
        var headers: [OutboxRequest.Header] = []
        var body = Data()
        var truncated = false
        var failure: OutboxError?
    }

    /// Collects the answer while libcurl runs.
    fileprivate final class Collector {
        var exchange = Exchange()
        let source: BodySource?
        let maxBody: Int
        init(source: BodySource?, maxBody: Int) {
            self.source = source
            self.maxBody = maxBody
        }
    }

    /// Sends one request; `lines` are complete "Name: value" header lines, `length` the body's size.
    func perform(
        method: String, url: String, lines: [String], body: BodySource?, length: Int64, limits: HTTPSender.Limits
    ) -> Exchange {
        let collector = Collector(source: body, maxBody: limits.maxAnswerBytes)
        let user = Unmanaged.passUnretained(collector).toOpaque()
        let copies = lines.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var reason = [CChar](repeating: 0, count: 256)
        var status = 0
        let failure = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { headerLines in
            method.withCString { methodText in
                url.withCString { urlText in
                    var request = assist_curl_request()
                    request.method = methodText
                    request.url = urlText
                    request.headers = headerLines.baseAddress
                    request.header_count = headerLines.count
                    request.body_length = body == nil ? -1 : length
                    request.read_body = { buffer, size, user in
                        guard let buffer, let user else { return ASSIST_CURL_ABORT }
                        let collector = Unmanaged<Collector>.fromOpaque(user).takeUnretainedValue()
                        return collector.source?.read(into: buffer, capacity: size).map { $0 } ?? ASSIST_CURL_ABORT
                    }
                    request.read_user = user
                    request.on_header = { buffer, size, user in
                        guard let buffer, let user else { return 0 }
                        let collector = Unmanaged<Collector>.fromOpaque(user).takeUnretainedValue()
                        let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: size), as: UTF8.self)
                        collector.header(line)
                        return size
                    }
                    request.header_user = user
                    request.on_body = { buffer, size, user in
                        guard let buffer, let user else { return 0 }
                        let collector = Unmanaged<Collector>.fromOpaque(user).takeUnretainedValue()
                        let room = max(0, collector.maxBody - collector.exchange.body.count)
                        if size > room { collector.exchange.truncated = true }
                        collector.exchange.body.append(
                            UnsafeRawBufferPointer(start: buffer, count: min(size, room)).bindMemory(to: UInt8.self))
                        return size
                    }
                    request.body_user = user
                    request.connect_timeout_ms = Int(limits.connectSeconds * 1_000)
                    request.stall_seconds = limits.stallSeconds
                    var answered = 0
                    let result = assist_curl_perform(handle, &request, &answered, &reason, reason.count)
                    status = answered
                    return result
                }
            }
        }
        var exchange = collector.exchange
        exchange.status = status
        let cause = String(nulTerminated: reason)
        exchange.failure = Self.error(failure, cause: cause, bodyFailure: body?.failure)
        return exchange
    }

    private static func error(_ failure: assist_curl_failure, cause: String, bodyFailure: OutboxError?) -> OutboxError?
    {
        switch failure {
        case ASSIST_CURL_OK: return nil
        case ASSIST_CURL_BAD_URL: return .badRequest(cause)
        case ASSIST_CURL_NO_CONNECTION:
            return OutboxError(code: .noConnection, message: "The server cannot be reached: \(cause).", cause: cause)
        case ASSIST_CURL_STALLED:
            return OutboxError(code: .stalled, message: "The server stopped responding: \(cause).", cause: cause)
        case ASSIST_CURL_BROKEN:
            return OutboxError(
                code: .broken, message: "The connection broke or the answer was not HTTP: \(cause).", cause: cause)
        case ASSIST_CURL_BODY_ABORTED:
            return bodyFailure ?? OutboxError(code: .other, message: "The upload stopped: \(cause).", cause: cause)
        default:
            return OutboxError(code: .other, message: "The upload failed: \(cause).", cause: cause)
        }
    }
}

extension CurlSession.Collector {
    /// A header line: a status line starts a new set (after a 100 Continue, say).
    fileprivate func header(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            exchange.headers = []
            return
        }
        guard let colon = trimmed.firstIndex(of: ":") else { return }
        exchange.headers.append(
            OutboxRequest.Header(
                String(trimmed[..<colon]), trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        )
    }
}

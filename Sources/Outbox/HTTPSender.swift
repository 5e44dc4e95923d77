import Foundation

/// What a server answered.
package struct HTTPAnswer: Equatable, Sendable {
    package var status: Int
    package var headers: [OutboxRequest.Header]
    /// At most `Limits.maxAnswerBytes` of the body.
    package var body: Data
    /// True when the body was longer than kept.
    package var truncated: Bool

    package init(status: Int, headers: [OutboxRequest.Header], body: Data, truncated: Bool) {
        self.status = status
        self.headers = headers
        self.body = body
        self.truncated = truncated
    }

    /// The first header called `name`, any case.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Sends outbox requests over HTTP(S) with libcurl, one at a time, keeping connections alive between them.
/// Bodies stream: JSON and form bodies from memory, multipart file parts from disk, with the length known up
/// front. One thread uses a sender at a time.
package final class HTTPSender {
    package struct Limits: Sendable {
        package var connectSeconds: Double
        /// A transfer that moves under a byte a second for this long is given up (a hanging server).
        package var stallSeconds: Int
        /// How much of an answer's body is kept.
        package var maxAnswerBytes: Int

        package init(connectSeconds: Double = 20, stallSeconds: Int = 60, maxAnswerBytes: Int = 1 << 20) {
            self.connectSeconds = connectSeconds
            self.stallSeconds = stallSeconds
            self.maxAnswerBytes = maxAnswerBytes
        }
    }

    private let session: CurlSession
    package let limits: Limits

    package init(limits: Limits = Limits()) throws(OutboxError) {
        guard let session = CurlSession() else {
            let why = CurlSession.loadError.map { " (\($0)); install the libcurl4 package" } ?? ""
            throw OutboxError(code: .other, message: "libcurl could not start\(why).", cause: nil)
        }
        self.session = session
        self.limits = limits
    }

    /// Sends `request`, adding `Idempotency-Key: key` when given. Returns the answer, whatever its status.
    package func send(_ request: OutboxRequest, idempotencyKey: String? = nil) throws(OutboxError) -> HTTPAnswer {
        try Self.validate(request)
        var lines = request.headers.map { "\($0.name): \($0.value)" }
        if let idempotencyKey, !request.headers.contains(where: { $0.name.lowercased() == "idempotency-key" }) {
            lines.append("Idempotency-Key: \(idempotencyKey)")
        }
        let hasType = request.headers.contains { $0.name.lowercased() == "content-type" }
        var segments: [MultipartLayout.Segment]?
        switch request.body {
        case .none:
            segments = nil
        case .json(let data):
            if !hasType { lines.append("Content-Type: application/json") }
            segments = [.bytes(data)]
        case .form(let fields):
            if !hasType { lines.append("Content-Type: application/x-www-form-urlencoded") }
            segments = [.bytes(Data(Self.formEncoded(fields).utf8))]
        case .multipart(let boundary, let parts):
            let layout: MultipartLayout
            do { layout = try MultipartLayout(boundary: boundary, parts: parts) } catch {
                let path = parts.compactMap(\.path).first { !FileManager.default.fileExists(atPath: $0) } ?? "?"
                throw .unreadableBody(path, cause: "it is missing")
            }
            lines.append("Content-Type: \(layout.contentType)")
            segments = layout.segments
        }
        let length = segments.map(MultipartLayout.length(of:)) ?? -1
        let exchange = session.perform(
            method: request.method, url: request.url, lines: lines, body: segments.map(BodySource.init),
            length: length, limits: limits)
        if let failure = exchange.failure { throw failure }
        return HTTPAnswer(
            status: exchange.status, headers: exchange.headers, body: exchange.body, truncated: exchange.truncated)
    }

    /// Refuses what can never be sent: a URL that is not http(s) with a host, an odd method, header injection.
    package static func validate(_ request: OutboxRequest) throws(OutboxError) {
        guard let components = URLComponents(string: request.url),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { throw .badRequest("\(request.url) is not an http or https address") }
        let tokenCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "!#$%&'*+-.^_`|~"))
        func isToken(_ text: String) -> Bool {
            !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && tokenCharacters.contains($0) }
        }
        guard isToken(request.method) else { throw .badRequest("\(request.method) is not an HTTP method") }
        for header in request.headers {
            guard isToken(header.name), !header.value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
            else { throw .badRequest("the header \(header.name) is malformed") }
        }
    }

    /// `application/x-www-form-urlencoded`: spaces as +, everything else outside the unreserved set escaped.
    package static func formEncoded(_ fields: [OutboxRequest.Field]) -> String {
        let unreserved = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._*")
        func encode(_ text: String) -> String {
            text.split(separator: " ", omittingEmptySubsequences: false).map {
                $0.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
            }.joined(separator: "+")
        }
        return fields.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
    }
}

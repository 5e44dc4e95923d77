import Foundation

/// A small HTTP/1.1 server on 127.0.0.1 for tests and benchmarks, able to fail on demand: it answers, resets
/// the connection (before, during or after the body), hangs, trickles its answer, reads the upload slowly or
/// answers garbage, as the handler decides for each request. Connections are kept alive. Every request it
/// saw is recorded, with whether its body arrived whole.
// because: `requests` and `connections` are guarded by `lock`
package final class LoopbackHTTPServer: @unchecked Sendable {
    /// A request as received.
    package struct Request: Sendable {
        package var method: String
        package var path: String
        package var headers: [(name: String, value: String)]
        /// The first `keptBodyBytes` of the body.
        package var body: Data
        package var bodyLength: Int
        /// True when the whole body (Content-Length bytes) arrived.
        package var complete: Bool

        package func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The body's fields when it is `application/x-www-form-urlencoded` (`+` as space, %-escapes decoded).
        package var formFields: [String: String] {
            var fields: [String: String] = [:]
            for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            return fields
        }
    }

    /// What to do with one request, decided from its head.
    package indirect enum Reply: Sendable {
        case answer(status: Int, headers: [String: String] = [:], body: Data = Data())
        /// Close with a reset after reading `afterBodyBytes` of the body (nil: after all of it).
        case reset(afterBodyBytes: Int?)
        /// Read the request, then say nothing until the client gives up.
        case hang
        /// Send the status line and headers, then one byte of the body every `interval` seconds.
        case trickle(status: Int, body: Data, interval: Double)
        /// Answer something that is not HTTP, then close.
        case garbage
        /// Read the body at about `bytesPerSecond`, then do `then`.
        case readSlowly(bytesPerSecond: Int, then: Reply)
        /// Read the whole body, then let `decide` choose the reply from the complete request (a fake that
        /// checks credentials in a form).
        case afterBody(@Sendable (Request) -> Reply)
    }

    package let port: Int
    package var baseURL: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let keptBodyBytes: Int
    private let lock = NSLock()
    private var recorded: [Request] = []
    private var bodyBytes = 0
    private var connections: Set<Int32> = []
    private var stopped = false

    /// Starts listening on a free port. `handler` sees each request's head (its body is empty then).
    package init(keptBodyBytes: Int = 4 << 20, handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        self.keptBodyBytes = keptBodyBytes
        (listener, port) = try Self.listen()
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "loopback-http"
        thread.start()
    }

    deinit { stop() }

    /// A listening socket on 127.0.0.1 and its port.
    private static func listen() throws -> (Int32, Int) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(listener, 64) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        return (listener, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Every request received so far.
    package var requests: [Request] { lock.withLock { recorded } }
    /// Every connection accepted, whether or not it sent a request.
    package var connectionsAccepted: Int { lock.withLock { connectionCount } }
    private var connectionCount = 0

    /// Body bytes received so far, over all requests, including ones still arriving.
    package var bodyBytesReceived: Int { lock.withLock { bodyBytes } }

    /// Closes the listener and every connection. The connections are shut down under the lock: a serving
    /// thread removes its descriptor under the same lock before closing it, so a number shut down here is
    /// still this server's. (Done outside the lock, a number closed meanwhile could already belong to another
    /// test's socket in this process, a listener or an upload, which then failed for no reason of its own.)
    package func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for descriptor in connections { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                let error = errno
                // Only `stop` ends the loop. Under a loaded test run accept also fails for a client that gave
                // up (ECONNABORTED) or for a moment without descriptors (EMFILE): the server goes on serving.
                if lock.withLock({ stopped }) {
                    close(listener)
                    return
                }
                if error != EINTR { Thread.sleep(forTimeInterval: 0.01) }
                continue
            }
            let accepted = lock.withLock {
                guard !stopped else { return false }
                connectionCount += 1
                connections.insert(client)
                return true
            }
            guard accepted else {
                close(client)
                continue
            }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        let reader = SocketReader(descriptor: client)
        defer {
            lock.withLock { _ = connections.remove(client) }
            close(client)
        }
        while let head = reader.head() {
            var request = Self.parse(head)
            let length = Int(request.header("Content-Length") ?? "0") ?? 0
            let reply = handler(request)
            guard respond(reply, to: &request, length: length, client: client, reader: reader) else { return }
            if request.header("Connection")?.lowercased() == "close" { return }
        }
    }

    /// Carries out `reply`; returns false when the connection is finished.
    private func respond(
        _ reply: Reply, to request: inout Request, length: Int, client: Int32, reader: SocketReader,
        bytesPerSecond: Int? = nil
    ) -> Bool {
        switch reply {
        case .readSlowly(let rate, let then):
            return respond(then, to: &request, length: length, client: client, reader: reader, bytesPerSecond: rate)
        case .reset(let after):
            readBody(&request, length: min(length, after ?? length), reader: reader, rate: bytesPerSecond)
            record(request)
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            return false
        default:
            break
        }
        readBody(&request, length: length, reader: reader, rate: bytesPerSecond)
        record(request)
        guard request.complete else { return false }
        var reply = reply
        if case .afterBody(let decide) = reply {
            reply = decide(request)
            if case .reset = reply {
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                return false
            }
        }
        switch reply {
        case .answer(let status, let headers, let body):
            var head = "HTTP/1.1 \(status) \(status < 400 ? "OK" : "Error")\r\nContent-Length: \(body.count)\r\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
            return write(client, Data((head + "\r\n").utf8) + body)
        case .hang:
            var byte: UInt8 = 0
            while recv(client, &byte, 1, 0) > 0 {}
            return false
        case .trickle(let status, let body, let interval):
            guard write(client, Data("HTTP/1.1 \(status) OK\r\nContent-Length: \(body.count)\r\n\r\n".utf8)) else {
                return false
            }
            for byte in body {
                Thread.sleep(forTimeInterval: interval)
                guard write(client, Data([byte])) else { return false }
            }
            return true
        case .garbage:
            _ = write(client, Data("THIS IS NOT HTTP\r\n\r\n".utf8))
            return false
        default:
            return false
        }
    }

    private func readBody(_ request: inout Request, length: Int, reader: SocketReader, rate: Int?) {
        var remaining = length
        while remaining > 0 {
            let chunk = rate.map { max(1, min($0 / 20, 65_536)) } ?? 65_536
            guard let data = reader.read(max: min(chunk, remaining)) else { break }
            if request.body.count < keptBodyBytes {
                request.body.append(data.prefix(keptBodyBytes - request.body.count))
            }
            request.bodyLength += data.count
            lock.withLock { bodyBytes += data.count }
            remaining -= data.count
            if rate != nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        request.complete = request.bodyLength == Int(request.header("Content-Length") ?? "0")
    }

    private func record(_ request: Request) { lock.withLock { recorded.append(request) } }

    private func write(_ client: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                guard let base = bytes.baseAddress else { return false }
                let count = send(client, base + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }

    private static func parse(_ head: String) -> Request {
        let lines = head.components(separatedBy: "\r\n")
        let start = lines.first?.split(separator: " ") ?? []
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Request(
            method: start.first.map(String.init) ?? "", path: start.count > 1 ? String(start[1]) : "",
            headers: headers, body: Data(), bodyLength: 0, complete: false)
    }
}

/// Buffered reads from a socket: a request head up to its blank line, then body bytes. The buffer never holds
/// more than one read's worth beyond what was asked for, so a 1 GB upload passes through in constant memory.
private final class SocketReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// The head without its blank line; nil when the connection ends first.
    func head() -> String? {
        let blank: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if buffer.count >= 4,
                let end = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<($0 + 4)]) == blank })
            {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                return head
            }
            guard fill() else { return nil }
        }
    }

    /// Up to `max` bytes; nil at the end of the connection.
    func read(max: Int) -> Data? {
        if buffer.isEmpty, !fill() { return nil }
        let count = min(max, buffer.count)
        let data = Data(buffer[..<count])
        buffer.removeFirst(count)
        return data
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}

extension LoopbackHTTPServer {
    /// One part of a multipart/form-data body.
    package struct Part: Sendable {
        package var name: String
        package var filename: String?
        package var contentType: String?
        package var data: Data
    }
}

extension LoopbackHTTPServer.Request {
    /// The parts of a multipart/form-data body, or nil when it is not one.
    package var multipartParts: [LoopbackHTTPServer.Part]? {
        let request = self
        guard let type = request.header("Content-Type"), type.hasPrefix("multipart/form-data"),
            let range = type.range(of: "boundary=")
        else { return nil }
        let boundary = Data(
            ("--" + type[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))).utf8)
        let body = request.body
        var parts: [LoopbackHTTPServer.Part] = []
        var searchStart = body.startIndex
        var starts: [Data.Index] = []
        while let found = body.range(of: boundary, in: searchStart..<body.endIndex) {
            starts.append(found.upperBound)
            searchStart = found.upperBound
        }
        for (index, start) in starts.enumerated().dropLast() {
            guard let end = body.range(of: boundary, in: start..<body.endIndex)?.lowerBound else { continue }
            var chunk = body[start..<end]
            guard let headEnd = chunk.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: chunk[chunk.startIndex..<headEnd.lowerBound], as: UTF8.self)
            chunk = chunk[headEnd.upperBound...]
            if chunk.suffix(2) == Data("\r\n".utf8) { chunk = chunk.dropLast(2) }
            func attribute(_ name: String) -> String? {
                guard let r = head.range(of: "\(name)=\"") else { return nil }
                let rest = head[r.upperBound...]
                return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
            }
            let contentType = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
                .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
            parts.append(
                LoopbackHTTPServer.Part(
                    name: attribute(" name") ?? attribute("name") ?? "", filename: attribute("filename"),
                    contentType: contentType, data: Data(chunk)))
            _ = index
        }
        return parts
    }

    /// True when a multipart body ends with its closing `--boundary--` (a strict server refuses one that does
    /// not).
    package var multipartIsClosed: Bool {
        guard let type = header("Content-Type"), let range = type.range(of: "boundary=") else { return false }
        let closing = "--" + type[range.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) + "--"
        return body.range(of: Data(closing.utf8)) != nil
    }
}

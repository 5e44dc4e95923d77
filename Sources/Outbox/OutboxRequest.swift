import Foundation

/// An HTTP request a plugin wants sent, however long it takes: kept in the host's outbox until the server
/// gives a final answer. File parts of a multipart body are read from disk only while sending.
package struct OutboxRequest: Codable, Equatable, Sendable {
    package var method: String
    package var url: String
    package var headers: [Header]
    package var body: Body
    /// The plugin's own reference, handed back with the outcome.
    package var tag: String?

    /// A header, or a field of a form: a name and its value (stored as JSON with these two keys).
    package struct NameValue: Codable, Equatable, Sendable {
        package var name: String
        package var value: String
        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }

        /// Authorization and cookies never reach a log line (as a header).
        package var isSecret: Bool {
            ["authorization", "proxy-authorization", "cookie", "x-api-key"].contains(name.lowercased())
        }
    }
    package typealias Header = NameValue
    package typealias Field = NameValue

    package enum Body: Codable, Equatable, Sendable {
        case none
        case json(Data)
        case form([Field])
        case multipart(boundary: String, parts: [Part])
    }

    /// A multipart part: a text field, or a file streamed from `path`.
    package struct Part: Codable, Equatable, Sendable {
        package var name: String
        package var text: String?
        package var path: String?
        package var filename: String?
        package var contentType: String?
        /// The file's device, inode, size and time of change as it was opened when the job was queued: what is
        /// sent is that file as it was, opened without following a link, or nothing (`PinnedFile`).
        package var identity: String?

        package static func field(_ name: String, _ value: String) -> Part {
            Part(name: name, text: value, path: nil, filename: nil, contentType: nil, identity: nil)
        }

        package static func file(
            _ name: String, path: String, filename: String, contentType: String, identity: String? = nil
        ) -> Part {
            Part(name: name, text: nil, path: path, filename: filename, contentType: contentType, identity: identity)
        }
    }

    package init(method: String, url: String, headers: [Header] = [], body: Body = .none, tag: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.tag = tag
    }

    /// The request for logs: secret headers are replaced by "(hidden)".
    package var loggable: String {
        let shown = headers.map { "\($0.name): \($0.isSecret ? "(hidden)" : $0.value)" }.joined(separator: ", ")
        return "\(method) \(url)" + (shown.isEmpty ? "" : " [\(shown)]")
    }
}

/// When to try again (collect-videos.md §3, item 23): exponential back-off with full jitter,
/// `random(0, min(6 h, 30 s × 2^attempts))`. Pure, given the random number.
package enum Backoff {
    package static let baseSeconds = 30.0
    package static let capSeconds = 6 * 3_600.0

    /// The delay after `attempts` failed tries; `unit` is a random number in 0…1.
    package static func delay(afterAttempts attempts: Int, unit: Double, base: Double = baseSeconds) -> Double {
        let ceiling = min(capSeconds, base * pow(2, Double(min(max(0, attempts), 30))))
        return ceiling * min(1, max(0, unit))
    }

    /// True for answers worth trying again: no answer at all (nil), 5xx and 429.
    package static func isTransient(status: Int?) -> Bool {
        guard let status else { return true }
        return status == 429 || (500...599).contains(status)
    }
}

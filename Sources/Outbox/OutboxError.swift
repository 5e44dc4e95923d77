/// Why a request could not be sent or was refused before sending: a code, a sentence for the plugin (and the
/// user where they must act), and the library's own reason.
package struct OutboxError: Error, CustomStringConvertible, Sendable {
    package enum Code: Hashable, Sendable {
        /// The request can never succeed as written (bad URL, method or header): not retried.
        case badRequest
        /// The server could not be reached (name lookup, connect, TLS).
        case noConnection
        /// The server stopped sending or receiving.
        case stalled
        /// The connection broke, or the answer was not HTTP.
        case broken
        /// A file part is missing or changed while it was sent: not retried.
        case unreadableBody
        /// The outbox's own database failed.
        case storage
        case other
    }

    package let code: Code
    package let message: String
    package let cause: String?
    package var description: String { message }

    package init(code: Code, message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// Worth trying again later: the network or the server may recover.
    package var isTransient: Bool { code == .noConnection || code == .stalled || code == .broken || code == .other }

    package static func badRequest(_ what: String) -> OutboxError {
        OutboxError(code: .badRequest, message: "The upload request is not valid: \(what).")
    }

    package static func unreadableBody(_ path: String, cause: String) -> OutboxError {
        OutboxError(
            code: .unreadableBody, message: "The file \(path) to upload cannot be read: \(cause).", cause: cause)
    }
}

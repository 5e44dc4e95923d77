/// Why a storage operation failed: a code, a sentence for the plugin (and the user where they must act), and
/// the SQLite or system cause.
package struct StorageError: Error, CustomStringConvertible, Sendable {
    package enum Code: Hashable, Sendable { case sql, full, quota, badPath, missing, io, refused, timeout }

    /// What a plugin's SQL was refused: another file, a statement of the host's, or too much memory.
    package enum Refused: String, Hashable, Sendable { case file, statement, memory }

    package let code: Code
    package let message: String
    package let cause: String?
    /// For `.refused`, what kind.
    package var refused: Refused?
    package var description: String { message }

    /// SQL that SQLite refused (malformed, a constraint, a missing table).
    package static func sql(_ cause: String) -> StorageError {
        StorageError(code: .sql, message: "The database refused a statement: \(cause).", cause: cause)
    }

    /// The disk is full; nothing already stored was lost.
    package static let diskFull = StorageError(
        code: .full, message: "The disk is full. Free some space; nothing already stored was lost.",
        cause: "SQLITE_FULL")

    /// The plugin's media would exceed its quota.
    package static func quota(usedBytes: Int64, limitBytes: Int64) -> StorageError {
        let megabytes = { (bytes: Int64) in
            bytes < 1_048_576 ? "\(bytes / 1_024) kB" : String(format: "%.0f MB", Double(bytes) / 1_048_576)
        }
        return StorageError(
            code: .quota,
            message:
                "This feature's storage is full (\(megabytes(usedBytes)) of \(megabytes(limitBytes))). Delete or send some recordings first.",
            cause: nil)
    }

    /// A name that would leave the plugin's folders.
    package static func badPath(_ name: String) -> StorageError {
        StorageError(
            code: .badPath,
            message: "The file name \(name) is not allowed: names stay inside the feature's own folder.",
            cause: nil)
    }

    /// No such file.
    package static func missing(_ name: String) -> StorageError {
        StorageError(code: .missing, message: "There is no stored file called \(name).", cause: nil)
    }

    /// A plugin's SQL asked for what a feature may not have (docs/security.md).
    package static func refused(_ kind: Refused, _ what: String, cause: String?) -> StorageError {
        var error = StorageError(code: .refused, message: "Refused: \(what).", cause: cause)
        error.refused = kind
        return error
    }

    /// A statement ran past its time, or Assist is stopping.
    package static func timeout(seconds: Double) -> StorageError {
        StorageError(
            code: .timeout,
            message: seconds > 0
                ? "A statement ran longer than \(String(format: "%g", seconds)) s and was stopped; nothing of it was kept."
                : "Assist is stopping; the statement was not finished and nothing of it was kept.",
            cause: nil)
    }

    /// A file system failure.
    package static func io(_ what: String, cause: String) -> StorageError {
        StorageError(code: .io, message: "\(what) failed: \(cause).", cause: cause)
    }
}

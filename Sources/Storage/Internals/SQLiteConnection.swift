internal import CSQLite
import Foundation

/// One `sqlite3*` connection with its prepared statements, cached by SQL text. Owns the handle and closes it
/// in `deinit`. Not thread-safe: `PluginDatabase` serialises every use with its lock.
final class SQLiteConnection {
    private let handle: OpaquePointer
    /// The database file, named in what a failure says.
    private let path: String
    private var statements: [String: OpaquePointer] = [:]
    /// A confined connection's budgets and what its last statement was refused for.
    private var guardian: UnsafeMutablePointer<assist_sqlite_guard>?
    /// SQLite's way of saying "copy this buffer now".
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Opens `path` in WAL mode with a 5 s busy timeout; `readOnly`, an existing file is only read, in the
    /// journal mode its writer chose. `confined`, the connection runs a plugin's SQL: it is opened without
    /// following a link, and keeps to its own file and budgets (`Confinement`). Wraps `sqlite3_open_v2`.
    init(path: String, readOnly: Bool = false, confined: Confinement? = nil) throws(StorageError) {
        if confined != nil { try Self.refuseLinks(path) }
        var opened: OpaquePointer?
        var flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        if confined != nil { flags |= SQLITE_OPEN_NOFOLLOW }
        guard sqlite3_open_v2(path, &opened, flags, nil) == SQLITE_OK, let opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(opened)
            throw .io("Opening the database \(path)", cause: reason)
        }
        handle = opened
        self.path = path
        sqlite3_busy_timeout(handle, 5_000)
        if let confined {
            let guardian = UnsafeMutablePointer<assist_sqlite_guard>.allocate(capacity: 1)
            guardian.initialize(to: assist_sqlite_guard())
            guardian.pointee.statement_ns = Int64(confined.statementSeconds * 1e9)
            guardian.pointee.memory_budget = confined.memoryBytes
            guardian.pointee.stopping = Confinement.stopFlag
            self.guardian = guardian
            let status = assist_sqlite_confine(handle, guardian, Int32(clamping: confined.largestValueBytes))
            guard status == SQLITE_OK else { throw error(status, "it cannot be confined") }
        }
        if !readOnly { try hostStatement("PRAGMA journal_mode = WAL;") }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(handle)
        // The connection's handlers read it until it is closed.
        guardian?.deallocate()
    }

    /// Refuses a database, or a journal beside it, that is a link or not a plain file of its own: another's
    /// file reached through a name in the plugin's folder.
    private static func refuseLinks(_ path: String) throws(StorageError) {
        for name in [path, path + "-wal", path + "-shm", path + "-journal"] {
            var info = stat()
            guard lstat(name, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFREG, info.st_nlink == 1 else {
                throw .refused(
                    .file, "\((name as NSString).lastPathComponent) is a link or not a file of the feature's own",
                    cause: name)
            }
        }
    }

    /// Runs the host's own statement (BEGIN, COMMIT, a pragma the plugin may not run) past the authorizer.
    func hostStatement(_ script: String) throws(StorageError) {
        try asHost { () throws(StorageError) in try execute(script: script) }
    }

    /// Runs `body` with the authorizer standing aside: the host's own statements, never a plugin's.
    func asHost<Result>(_ body: () throws(StorageError) -> Result) throws(StorageError) -> Result {
        guardian?.pointee.host_call = 1
        defer { guardian?.pointee.host_call = 0 }
        return try body()
    }

    /// Runs several statements without parameters or results. Wraps `sqlite3_exec`.
    func execute(script: String) throws(StorageError) {
        var message: UnsafeMutablePointer<CChar>?
        if let guardian { assist_sqlite_arm(guardian) }
        let status = sqlite3_exec(handle, script, nil, nil, &message)
        let text = message.map { String(cString: $0) }
        sqlite3_free(message)
        if status != SQLITE_OK { throw error(status, text) }
    }

    /// Runs one statement: `bind` fills its parameters, `row` sees each result row. Returns the changes.
    /// Wraps `sqlite3_prepare_v3` (persistent), `sqlite3_bind_*`, `sqlite3_step` and `sqlite3_column_*`.
    func execute(
        _ sql: String, arguments: [SQLArgument], row: ((_ columns: [String], _ values: [SQLValue]) -> Bool)?
    ) throws(StorageError) -> Int {
        if let guardian { assist_sqlite_arm(guardian) }
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, argument) in arguments.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch argument {
            case .null: status = sqlite3_bind_null(statement, position)
            case .integer(let number): status = sqlite3_bind_int64(statement, position, number)
            case .real(let number): status = sqlite3_bind_double(statement, position, number)
            case .text(let pointer, let count):
                status = sqlite3_bind_text(statement, position, pointer, Int32(count), Self.transient)
            case .blob(let pointer, let count):
                status = sqlite3_bind_blob(statement, position, pointer, Int32(count), Self.transient)
            }
            if status != SQLITE_OK { throw error(status, nil) }
        }
        let columnCount = sqlite3_column_count(statement)
        var names: [String]?
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error(status, nil) }
            guard let row else { continue }
            let columns = names ?? (0..<columnCount).map { String(cString: sqlite3_column_name(statement, $0)) }
            names = columns
            if !row(columns, (0..<columnCount).map { value(statement, $0) }) { break }
        }
        return Int(sqlite3_changes(handle))
    }

    private func prepared(_ sql: String) throws(StorageError) -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, nil) }
        statements[sql] = statement
        return statement
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            return .text(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// What a failed call says: a full disk as `diskFull`; a file that cannot be written, opened, shared or
    /// read as a database names the database and what to do (SQLite's words kept as the cause); what remains
    /// is SQL the database refused.
    private func error(_ status: Int32, _ message: String?) -> StorageError {
        let cause = message ?? String(cString: sqlite3_errmsg(handle))
        if let refusal = refusal() { return refusal }
        func failed(_ sentence: String) -> StorageError { StorageError(code: .io, message: sentence, cause: cause) }
        switch status & 0xff {
        case SQLITE_FULL:
            return .diskFull
        case SQLITE_READONLY:
            return failed(
                "The database \(path) cannot be written: it is read-only (\(cause)). Its folder and file must be writable."
            )
        case SQLITE_CANTOPEN:
            return failed(
                "The database \(path) or its journal cannot be opened (\(cause)). Its folder must exist and be writable."
            )
        case SQLITE_BUSY, SQLITE_LOCKED:
            return failed("The database \(path) is in use by another program (\(cause)). Try again in a moment.")
        case SQLITE_IOERR:
            return failed("The disk reported an error reading or writing \(path) (\(cause)).")
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return failed("The database \(path) is damaged (\(cause)).")
        default:
            return .sql(cause)
        }
    }
}

extension SQLiteConnection {
    /// What the confinement stopped the last statement for, as the plugin is told it.
    fileprivate func refusal() -> StorageError? {
        guard let guardian, guardian.pointee.reason != 0 else { return nil }
        let detail = withUnsafeBytes(of: guardian.pointee.detail) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        switch guardian.pointee.reason {
        case 1:
            return .refused(
                .file, "a database names another file (\(detail)); a feature keeps to its own", cause: detail)
        case 2: return .timeout(seconds: Double(guardian.pointee.statement_ns) / 1e9)
        case 3: return .refused(.memory, "a statement used more memory than a feature may", cause: nil)
        case 4: return .timeout(seconds: 0)
        case 5: return .refused(.statement, "PRAGMA \(detail) is the host's to set", cause: detail)
        default: return .refused(.statement, "the function \(detail) is not available to features", cause: detail)
        }
    }

    /// The pages the database has now and the most it may have (`PRAGMA max_page_count`), and its page size.
    func pages() -> (count: Int64, limit: Int64, size: Int64) {
        func number(_ pragma: String) -> Int64 {
            var value: Int64 = 0
            _ = try? asHost { () throws(StorageError) in
                try execute(pragma, arguments: []) { _, values in
                    if case .integer(let read) = values.first { value = read }
                    return false
                }
            }
            return value
        }
        return (number("PRAGMA page_count"), number("PRAGMA max_page_count"), number("PRAGMA page_size"))
    }
}

/// What a connection that runs a plugin's SQL keeps to: its own file (no ATTACH of a file, no VACUUM INTO, no
/// extension, only the pragmas that read its schema or its own numbers), one statement's time and memory, and
/// the size of one value. A budget spent ends the statement with `.timeout` or `.refused`; the database keeps
/// what was committed before it.
package struct Confinement: Sendable {
    package var statementSeconds: Double
    package var memoryBytes: Int64
    package var largestValueBytes: Int

    package init(statementSeconds: Double = 5, memoryBytes: Int64 = 256 << 20, largestValueBytes: Int = 64 << 20) {
        self.statementSeconds = statementSeconds
        self.memoryBytes = memoryBytes
        self.largestValueBytes = largestValueBytes
    }

    /// The process's stop flag, read by every confined statement's progress check.
    nonisolated(unsafe) static let stopFlag: UnsafeMutablePointer<Int32> = {
        let flag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        flag.initialize(to: 0)
        return flag
    }()

    /// Ends every confined statement now and from now on: Assist is stopping (SIGTERM, the terminal closed).
    /// Safe from any thread, the signal thread included.
    package static func stopAll() { assist_sqlite_raise(stopFlag) }
}

/// A value to bind, borrowed for one call: text and blobs are pointers into the caller's memory (SQLite
/// copies them).
package enum SQLArgument {
    case null
    case integer(Int64)
    case real(Double)
    case text(UnsafePointer<CChar>, Int)
    case blob(UnsafeRawPointer, Int)
}

import Foundation

/// One plugin's SQLite database (`<data>/plugins/<id>/<name>.sqlite`), in WAL mode with a 5 s busy timeout.
/// Statements take bound parameters and are prepared once; rows come back one at a time. Transactions may
/// span calls (`begin` … `commit`) or one closure (`transaction`), and migrations are versioned with
/// `PRAGMA user_version`. A lock serialises every use of the connection, so any thread may call it.
// because: `connection` is used only under `lock`
package final class PluginDatabase: @unchecked Sendable {
    /// Recursive: `transaction` holds it while its body runs the statements.
    private let lock = NSRecursiveLock()
    /// Transactions begun through `begin` and not yet ended; only the thread holding `lock` touches it.
    private var held = 0
    private let connection: SQLiteConnection
    /// The file.
    package let url: URL

    /// True when the connection runs a plugin's SQL inside its `Confinement`.
    package let confined: Bool

    /// Opens (or creates) the database at `url`; `confined`, for a plugin's SQL (its own file only, budgets).
    package init(url: URL, confined confinement: Confinement? = nil) throws(StorageError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("Creating \(url.deletingLastPathComponent().path)", cause: error.localizedDescription)
        }
        // SQLite gives its -wal and -shm files the database file's mode, so a new file is made 0600 first. Only
        // a new one: closing a descriptor of a file drops every POSIX lock this process holds on it, so opening
        // and closing a database another connection here has open would let a second process's closing
        // connection think it was the last, fold the write-ahead log in and delete it under this one's feet
        // (a test then read three sent jobs back, none of their outcomes).
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 { close(descriptor) }
        connection = try SQLiteConnection(path: url.path, confined: confinement)
        confined = confinement != nil
        self.url = url
    }

    /// Opens another's database at `url` to read it only: nothing is created or changed; a file that is not
    /// there is `.missing`.
    package init(readingOnly url: URL) throws(StorageError) {
        guard FileManager.default.fileExists(atPath: url.path) else { throw .missing(url.path) }
        connection = try SQLiteConnection(path: url.path, readOnly: true)
        confined = false
        self.url = url
    }

    /// Lets the database grow to about `bytes` (at least what it holds now): past it a write fails with
    /// SQLite's "database or disk is full", which `isAtSizeLimit` tells from a full disk.
    package func limitSize(toBytes bytes: Int64) {
        lock.lock()
        defer { lock.unlock() }
        let pages = connection.pages()
        guard pages.size > 0 else { return }
        let limit = max(pages.count, bytes / pages.size)
        try? connection.hostStatement("PRAGMA max_page_count = \(max(1, limit))")
    }

    /// True when the database has reached the size `limitSize` gave it.
    package var isAtSizeLimit: Bool {
        lock.lock()
        defer { lock.unlock() }
        let pages = connection.pages()
        return pages.limit > 0 && pages.count + 2 >= pages.limit
    }

    /// The bytes of the database and its journals on disk.
    package var bytesOnDisk: Int64 {
        [url.path, url.path + "-wal", url.path + "-shm"].reduce(0) { total, path in
            var info = stat()
            return total + (lstat(path, &info) == 0 ? Int64(info.st_size) : 0)
        }
    }

    /// Runs `sql` with `arguments` borrowed for the call, handing each result row (column names, values) to
    /// `row`; `row` returns false to stop early. Returns how many rows the statement changed.
    @discardableResult
    package func execute(
        _ sql: String, borrowing arguments: [SQLArgument],
        row: ((_ columns: [String], _ values: [SQLValue]) -> Bool)? = nil
    ) throws(StorageError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return try connection.execute(sql, arguments: arguments, row: row)
    }

    /// Runs `sql` with owned `arguments`.
    @discardableResult
    package func execute(
        _ sql: String, arguments: [SQLValue] = [], row: ((_ columns: [String], _ values: [SQLValue]) -> Bool)? = nil
    ) throws(StorageError) -> Int {
        // Copies that live until the statement has run (SQLite copies them again when binding).
        var owned: [UnsafeMutableRawPointer] = []
        defer { owned.forEach { free($0) } }
        let borrowed = arguments.map { value -> SQLArgument in
            switch value {
            case .null: return .null
            case .integer(let number): return .integer(number)
            case .real(let number): return .real(number)
            case .text(let text):
                guard let copy = strdup(text) else { return .null }
                owned.append(UnsafeMutableRawPointer(copy))
                return .text(UnsafePointer(copy), text.utf8.count)
            case .blob(let data):
                guard let copy = malloc(max(1, data.count)) else { return .null }
                owned.append(copy)
                data.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress { copy.copyMemory(from: base, byteCount: data.count) }
                }
                return .blob(UnsafeRawPointer(copy), data.count)
            }
        }
        return try execute(sql, borrowing: borrowed, row: row)
    }

    /// Starts a transaction that lasts until `commit` or `rollback` on the same thread. The calling thread holds
    /// the connection meanwhile: another thread's statement waits rather than landing inside this transaction
    /// (a plugin's indexing worker and its main thread share one handle).
    package func begin() throws(StorageError) {
        lock.lock()
        do {
            try connection.hostStatement("BEGIN IMMEDIATE")
            held += 1
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// Commits and lets other threads in again; a failed commit leaves the transaction open (and held) for a
    /// rollback.
    package func commit() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        try connection.hostStatement("COMMIT")
        release()
    }

    package func rollback() throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        defer { release() }
        try connection.hostStatement("ROLLBACK")
    }

    /// The plugin that used this handle is gone (its helper process died, issue 17): a transaction it left
    /// open is rolled back, so what it committed stays and nothing half-done does. The handle is not used
    /// again. When another thread still holds the connection (it began the transaction for the plugin and will
    /// never end it), the rollback goes to SQLite directly: its connections are serialised.
    package func abandon() {
        if lock.try() {
            defer { lock.unlock() }
            if held > 0 { try? connection.execute(script: "ROLLBACK") }
            while held > 0 {
                held -= 1
                lock.unlock()
            }
        } else {
            try? connection.execute(script: "ROLLBACK")
        }
    }

    /// Gives up the hold `begin` took, if this thread has one.
    private func release() {
        guard held > 0 else { return }
        held -= 1
        lock.unlock()
    }

    /// Runs `body` in one transaction that no other thread's statement can join or interleave with: the
    /// connection stays locked until it commits, or rolls back when `body` throws.
    package func transaction<Result>(_ body: () throws(StorageError) -> Result) throws(StorageError) -> Result {
        lock.lock()
        defer { lock.unlock() }
        try connection.hostStatement("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try connection.hostStatement("COMMIT")
            return result
        } catch {
            try? connection.execute(script: "ROLLBACK")
            throw error
        }
    }

    /// The schema version (`PRAGMA user_version`).
    package func version() throws(StorageError) -> Int {
        var version = 0
        try execute("PRAGMA user_version") { _, values in
            if case .integer(let value) = values.first { version = Int(value) }
            return false
        }
        return version
    }

    /// Applies `sql` (one or more statements) and sets the version to `version`, in one transaction, if the
    /// database is older. Returns false when it was already at or past `version`.
    @discardableResult
    package func migrate(to version: Int, sql: String) throws(StorageError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        try connection.hostStatement("BEGIN IMMEDIATE")
        do {
            var current = 0
            _ = try connection.execute("PRAGMA user_version", arguments: []) { _, values in
                if case .integer(let value) = values.first { current = Int(value) }
                return false
            }
            guard current < version else {
                try connection.hostStatement("COMMIT")
                return false
            }
            try connection.execute(script: sql)
            try connection.hostStatement("PRAGMA user_version = \(version)")
            try connection.hostStatement("COMMIT")
            return true
        } catch {
            try? connection.execute(script: "ROLLBACK")
            throw error
        }
    }

    private func script(_ sql: String) throws(StorageError) {
        lock.lock()
        defer { lock.unlock() }
        try connection.execute(script: sql)
    }
}

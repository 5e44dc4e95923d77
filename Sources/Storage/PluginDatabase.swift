import Foundation
import GRDB

/// One plugin's SQLite database (`<data>/plugins/<id>/<name>.sqlite`), in WAL mode with a 5 s busy timeout.
/// Statements take bound parameters; rows come back one at a time. Transactions may span calls
/// (`begin` … `commit`), and migrations are versioned with `PRAGMA user_version`. Owns its GRDB queue, which
/// serialises every use, so any thread may call it.
package final class PluginDatabase: Sendable {
    private let queue: DatabaseQueue
    /// The file.
    package let url: URL

    /// Opens (or creates) the database at `url`.
    package init(url: URL) throws(StorageError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.journalMode = .wal
        // Plugins open a transaction in one call and commit it in another.
        configuration.allowsUnsafeTransactions = true
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            queue = try DatabaseQueue(path: url.path, configuration: configuration)
        } catch {
            throw Self.storageError(error)
        }
        self.url = url
    }

    /// Runs `sql` with `arguments`, handing each result row (column names, values) to `row`; `row` returns
    /// false to stop early. Returns how many rows the statement changed.
    @discardableResult
    package func execute(
        _ sql: String, arguments: [SQLValue] = [], row: ((_ columns: [String], _ values: [SQLValue]) -> Bool)? = nil
    ) throws(StorageError) -> Int {
        do {
            return try queue.inDatabase { db in
                let statement = try db.cachedStatement(sql: sql)
                try statement.setArguments(StatementArguments(arguments.map(Self.databaseValue)))
                if statement.columnCount == 0 && row == nil {
                    try statement.execute()
                    return db.changesCount
                }
                let cursor = try Row.fetchCursor(statement)
                let columns = statement.columnNames
                while let next = try cursor.next() {
                    let values = (0..<columns.count).map { Self.value(next[$0] as DatabaseValue) }
                    if let row, !row(columns, values) { break }
                }
                return db.changesCount
            }
        } catch {
            throw Self.storageError(error)
        }
    }

    /// Starts a transaction that lasts until `commit` or `rollback`.
    package func begin() throws(StorageError) { try execute("BEGIN IMMEDIATE") }
    package func commit() throws(StorageError) { try execute("COMMIT") }
    package func rollback() throws(StorageError) { try execute("ROLLBACK") }

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
        do {
            var applied = false
            try queue.inTransaction { db in
                let current = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                guard current < version else { return .commit }
                try db.execute(sql: sql)
                try db.execute(sql: "PRAGMA user_version = \(version)")
                applied = true
                return .commit
            }
            return applied
        } catch {
            throw Self.storageError(error)
        }
    }

    static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .integer(let number): return number.databaseValue
        case .real(let number): return number.databaseValue
        case .text(let text): return text.databaseValue
        case .blob(let data): return data.databaseValue
        }
    }

    static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: return .null
        case .int64(let number): return .integer(number)
        case .double(let number): return .real(number)
        case .string(let text): return .text(text)
        case .blob(let data): return .blob(data)
        }
    }

    static func storageError(_ error: Error) -> StorageError {
        if let error = error as? StorageError { return error }
        if let database = error as? DatabaseError {
            if database.resultCode == .SQLITE_FULL { return .diskFull }
            return .sql(database.message ?? "\(database.resultCode)")
        }
        return .io("The database", cause: "\(error)")
    }
}

import Foundation
import PluginABI
import PluginAPI

/// One of the plugin's SQLite databases through `assist.storage/1`, for small uses (histories, lists):
/// statements with text, integer and real parameters, rows as text. Wraps `open` and `exec`. Any thread, but
/// blocking: keep long work on a worker.
///
///     let database = try PluginDatabaseHandle(host: host, name: "history")
///     try database.execute("CREATE TABLE IF NOT EXISTS seen (name TEXT PRIMARY KEY)")
///     try database.execute("INSERT OR IGNORE INTO seen VALUES (?)", [.text("cup")])
public struct PluginDatabaseHandle {
    private let host: PluginHostHandle
    private let database: OpaquePointer

    /// Opens (creating) the database `name` (letters, digits, '-' and '_'); throws the host's reason.
    public init(host: PluginHostHandle, name: String) throws(PluginStatus) {
        guard let open = host.tables.storage?.pointee.open else { throw PluginStatus.unsupported }
        var database: OpaquePointer?
        var error: UnsafeMutablePointer<CChar>?
        try PluginStatus.check(open(host.raw, name, &database, &error), error)
        guard let database else { throw PluginStatus.internal }
        self.host = host
        self.database = database
    }

    /// Opens the database `name` and brings its schema to the last of `migrations`: version N is the SQL at
    /// index N-1, each run once, in its own transaction, only when the database is older. A store's schema is
    /// one list that only grows: a change is a new entry, never an edit of an old one.
    ///
    ///     let database = try PluginDatabaseHandle(host: host, name: "history", migrations: [
    ///         "CREATE TABLE seen (name TEXT PRIMARY KEY);",
    ///         "ALTER TABLE seen ADD COLUMN at INTEGER;",
    ///     ])
    public init(host: PluginHostHandle, name: String, migrations: [String]) throws(PluginStatus) {
        try self.init(host: host, name: name)
        for (index, sql) in migrations.enumerated() { try migrate(to: Int32(index + 1), sql) }
    }

    /// Runs `sql` (several statements) and sets the schema version to `version` in one transaction, only when
    /// the database is older. Wraps `assist_storage_service.migrate`.
    ///
    ///     try database.migrate(to: 1, "CREATE TABLE seen (name TEXT PRIMARY KEY);")
    public func migrate(to version: Int32, _ sql: String) throws(PluginStatus) {
        guard let migrate = host.tables.storage?.pointee.migrate else { throw PluginStatus.unsupported }
        var error: UnsafeMutablePointer<CChar>?
        try PluginStatus.check(migrate(host.raw, database, version, sql, &error), error)
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws. Wraps `begin`,
    /// `commit` and `rollback`.
    public func transaction<T>(_ body: () throws(PluginStatus) -> T) throws(PluginStatus) -> T {
        guard let storage = host.tables.storage?.pointee, let begin = storage.begin, let commit = storage.commit
        else { throw PluginStatus.unsupported }
        let began = begin(host.raw, database)
        try PluginStatus.check(began, otherwise: Self.reason(began))
        do {
            let result = try body()
            let committed = commit(host.raw, database)
            try PluginStatus.check(committed, otherwise: Self.reason(committed))
            return result
        } catch {
            _ = storage.rollback?(host.raw, database)
            throw error
        }
    }

    /// `begin` and `commit` give no sentence of their own (the ABI has no `*err` for them): the likely reason
    /// by code, so that a participant hears why rather than a code's name.
    static func reason(_ status: Int32) -> String? {
        switch status {
        case ASSIST_E_IO: return "The disk is full or cannot be written."
        case ASSIST_E_BUSY, ASSIST_E_LOCKED: return "Another program is using the data; try again in a moment."
        default: return nil
        }
    }

    public enum Value {
        case text(String)
        case integer(Int64)
        case real(Double)
    }

    /// Runs `sql` with `values` bound in order; each result row's columns come back as text, in order.
    /// Throws the host's sentence for malformed SQL, a constraint (`.invalid`) or a full disk (`.io`).
    public func execute(_ sql: String, _ values: [Value] = [], rows: (([String]) -> Void)? = nil)
        throws(PluginStatus)
    {
        guard let exec = host.tables.storage?.pointee.exec else { throw PluginStatus.unsupported }
        let texts = values.map { value -> UnsafeMutablePointer<CChar>? in
            if case .text(let text) = value { return strdup(text) }
            return nil
        }
        defer { texts.forEach { free($0) } }
        var parameters = values.enumerated().map { index, value -> assist_value in
            var parameter = assist_value()
            parameter.struct_size = UInt32(MemoryLayout<assist_value>.size)
            switch value {
            case .text(let text):
                parameter.type = ASSIST_VALUE_TEXT
                parameter.data = UnsafeRawPointer(texts[index])
                parameter.size = text.utf8.count
            case .integer(let number):
                parameter.type = ASSIST_VALUE_INT
                parameter.integer = number
            case .real(let number):
                parameter.type = ASSIST_VALUE_REAL
                parameter.real = number
            }
            return parameter
        }
        var collected: [[String]] = []
        var error: UnsafeMutablePointer<CChar>?
        let status = withUnsafeMutablePointer(to: &collected) { target in
            parameters.withUnsafeMutableBufferPointer { buffer in
                exec(
                    host.raw, database, sql, buffer.baseAddress, Int32(buffer.count),
                    { user, count, _, values in
                        guard let user, let values = assist_value.readArray(values, count: Int(count)) else {
                            return false
                        }
                        let row = values.map { value -> String in
                            switch value.type {
                            case ASSIST_VALUE_TEXT:
                                return value.data.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
                            case ASSIST_VALUE_INT: return String(value.integer)
                            case ASSIST_VALUE_REAL: return String(value.real)
                            default: return ""
                            }
                        }
                        user.assumingMemoryBound(to: [[String]].self).pointee.append(row)
                        return true
                    }, target, nil, &error)
            }
        }
        try PluginStatus.check(status, error)
        collected.forEach { rows?($0) }
    }
}

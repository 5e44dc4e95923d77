import Foundation
import PluginABI
import PluginAPI
import Storage

extension ServiceTables {
    // MARK: assist.storage/1

    nonisolated(unsafe) static let storageTable: UnsafeMutablePointer<assist_storage_service> = {
        var table = assist_storage_service()
        table.struct_size = UInt32(MemoryLayout<assist_storage_service>.size)
        table.open = { host, name, out, err in
            guard let context = PluginContext.from(host), let name, let out else { return ASSIST_E_INVALID }
            return storageCall(context, err) {
                out.pointee = try context.openDatabase(String(cString: name))
            }
        }
        table.exec = { host, pointer, sql, params, count, row, user, changes, err in
            guard let context = PluginContext.from(host), let database = context.database(pointer), let sql,
                count >= 0
            else { return ASSIST_E_INVALID }
            guard let values = assist_value.readArray(params, count: Int(count)) else {
                context.misbehaving("storage.exec: the parameters are NULL or their struct_size is wrong")
                return ASSIST_E_INVALID
            }
            // Text and blobs are bound straight from the plugin's memory: SQLite copies them during the call.
            let arguments = values.map { sqlArgument($0) }
            let target = UnsafeTransfer(value: (row, user))
            return storageCall(context, err, database: database) {
                let changed = try database.execute(
                    String(cString: sql), borrowing: arguments,
                    row: row == nil ? nil : { columns, values in deliverRow(columns, values, to: target) })
                changes?.pointee = Int64(changed)
            }
        }
        table.begin = { host, pointer in transaction(host, pointer) { try $0.begin() } }
        table.commit = { host, pointer in transaction(host, pointer) { try $0.commit() } }
        table.rollback = { host, pointer in transaction(host, pointer) { try $0.rollback() } }
        table.migrate = { host, pointer, version, sql, err in
            guard let context = PluginContext.from(host), let database = context.database(pointer), let sql else {
                return ASSIST_E_INVALID
            }
            return storageCall(context, err, database: database) {
                try database.migrate(to: Int(version), sql: String(cString: sql))
            }
        }
        table.media_create = { host, name, path, cap, err in
            mediaPath(host, name, path, cap, err) { try $0.create($1) }
        }
        table.media_reserve = { host, bytes, err in
            guard let context = PluginContext.from(host), bytes >= 0 else { return ASSIST_E_INVALID }
            return storageCall(context, err) { try context.services.storage.media.reserve(bytes) }
        }
        table.media_to_cache = { host, name, path, cap, err in
            mediaPath(host, name, path, cap, err) { try $0.moveToCache($1) }
        }
        table.media_delete = { host, name, inCache in
            guard let context = PluginContext.from(host), let name else { return ASSIST_E_INVALID }
            return storageCall(context, nil) {
                try context.services.storage.media.delete(String(cString: name), inCache: inCache)
            }
        }
        table.media_usage = { host, used, quota in
            guard let context = PluginContext.from(host), let used, let quota else { return ASSIST_E_INVALID }
            let store = context.services.storage.media
            used.pointee = store.usage()
            quota.pointee = store.quotaBytes
            return ASSIST_OK
        }
        return allocate(table)
    }()

    /// Runs a storage call, turning a `StorageError` into a status and an `*err` sentence. With `database`, the
    /// call may write: the database is first held inside what is left of the quota, and a write past it is the
    /// quota's "full", not a full disk's.
    static func storageCall(
        _ context: PluginContext, _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        database: PluginDatabase? = nil, _ body: () throws -> Void
    ) -> assist_status {
        let storage = context.services.storage
        if let database { storage.holdToQuota(database, now: false) }
        do {
            try body()
            return ASSIST_OK
        } catch {
            var error = error as? StorageError ?? .io("Storage", cause: "\(error)")
            if error.code == .full, let database, database.isAtSizeLimit {
                let store = storage.media
                error = .quota(usedBytes: store.usage(), limitBytes: store.quotaBytes)
                storage.holdToQuota(database, now: true)
            }
            err?.pointee = strdup(error.message)
            context.logger.debug("storage: \(error.message)")
            storage.sayIfUserMustAct(error)
            switch error.code {
            case .sql: return ASSIST_E_INVALID
            case .badPath: return ASSIST_E_PERMISSION
            case .missing: return ASSIST_E_NOT_FOUND
            case .refused:
                let kind: ServiceRefusal =
                    switch error.refused {
                    case .file: .data
                    case .memory: .memory
                    default: .statement
                    }
                context.services.permissions.refused(.service(kind), detail: error.message)
                return kind == .memory ? ASSIST_E_NOMEM : ASSIST_E_PERMISSION
            case .timeout:
                context.services.permissions.refused(.service(.long), detail: error.message)
                return ASSIST_E_TIMEOUT
            default: return ASSIST_E_IO
            }
        }
    }

    static func transaction(
        _ host: UnsafePointer<assist_host>?, _ pointer: OpaquePointer?, _ body: (PluginDatabase) throws -> Void
    ) -> assist_status {
        guard let context = PluginContext.from(host), let database = context.database(pointer) else {
            return ASSIST_E_INVALID
        }
        return storageCall(context, nil) { try body(database) }
    }

    static func sqlArgument(_ value: assist_value?) -> SQLArgument {
        guard let value else { return .null }
        switch value.type {
        case ASSIST_VALUE_INT: return .integer(value.integer)
        case ASSIST_VALUE_REAL: return .real(value.real)
        case ASSIST_VALUE_TEXT:
            guard let data = value.data else { return .null }
            return .text(data.assumingMemoryBound(to: CChar.self), value.size)
        case ASSIST_VALUE_BLOB:
            guard let data = value.data else { return .null }
            return .blob(data, value.size)
        default: return .null
        }
    }

    /// Hands one row to the plugin's callback, with text NUL-terminated and everything valid for the call.
    static func deliverRow(
        _ columns: [String], _ values: [SQLValue], to target: UnsafeTransfer<(assist_row_cb?, UnsafeMutableRawPointer?)>
    ) -> Bool {
        guard let callback = target.value.0 else { return false }
        let names = columns.map { strdup($0) }
        var owned: [UnsafeMutableRawPointer?] = []
        defer {
            names.forEach { free($0) }
            owned.forEach { free($0) }
        }
        var cValues: [assist_value] = values.map { value in
            var cValue = assist_value()
            cValue.struct_size = UInt32(MemoryLayout<assist_value>.size)
            switch value {
            case .null: cValue.type = ASSIST_VALUE_NULL
            case .integer(let number):
                cValue.type = ASSIST_VALUE_INT
                cValue.integer = number
            case .real(let number):
                cValue.type = ASSIST_VALUE_REAL
                cValue.real = number
            case .text(let text):
                cValue.type = ASSIST_VALUE_TEXT
                let copy = strdup(text)
                owned.append(UnsafeMutableRawPointer(copy))
                cValue.data = UnsafeRawPointer(copy)
                cValue.size = text.utf8.count
            case .blob(let data):
                cValue.type = ASSIST_VALUE_BLOB
                let copy = malloc(max(1, data.count))
                data.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress { copy?.copyMemory(from: base, byteCount: data.count) }
                }
                owned.append(copy)
                cValue.data = UnsafeRawPointer(copy)
                cValue.size = data.count
            }
            return cValue
        }
        let namePointers: [UnsafePointer<CChar>?] = names.map { $0.map { UnsafePointer($0) } }
        return namePointers.withUnsafeBufferPointer { namesBuffer in
            cValues.withUnsafeMutableBufferPointer { valuesBuffer in
                guard let namesBase = namesBuffer.baseAddress, let valuesBase = valuesBuffer.baseAddress else {
                    return callback(target.value.1, 0, nil, nil)
                }
                return callback(target.value.1, Int32(columns.count), namesBase, valuesBase)
            }
        }
    }

    /// Writes `url`'s path into a plugin's buffer; a buffer too small is ASSIST_E_NOMEM's case.
    /// A media call that makes a file (`media_create`, `media_to_cache`) and writes its path into the plugin's
    /// buffer.
    private static func mediaPath(
        _ host: UnsafePointer<assist_host>?, _ name: UnsafePointer<CChar>?, _ path: UnsafeMutablePointer<CChar>?,
        _ capacity: Int, _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ make: (MediaStore, String) throws -> URL
    ) -> assist_status {
        guard let context = PluginContext.from(host), let name, let path else { return ASSIST_E_INVALID }
        return storageCall(context, err) {
            try copyPath(
                try make(context.services.storage.media, String(cString: name)), into: path, capacity: capacity)
        }
    }

    static func copyPath(_ url: URL, into buffer: UnsafeMutablePointer<CChar>, capacity: Int) throws(StorageError) {
        let bytes = Array(url.path.utf8CString)
        guard bytes.count <= capacity else { throw .io("Returning the path", cause: "the buffer is too small") }
        for (index, byte) in bytes.enumerated() { buffer[index] = byte }
    }
}

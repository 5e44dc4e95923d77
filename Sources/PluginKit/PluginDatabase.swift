import Foundation
import PluginABI
import PluginAPI

/// One of the plugin's SQLite databases through `assist.storage/1`, for small uses (histories, lists):
/// statements with text and integer parameters, rows as text. Wraps `open` and `exec`. Any thread.
public struct PluginDatabaseHandle {
    private let host: PluginHostHandle
    private let database: OpaquePointer

    /// Opens (creating) the database `name`; nil when the host has no storage or refuses.
    public init?(host: PluginHostHandle, name: String) {
        guard let open = host.service(ASSIST_STORAGE_SERVICE, as: assist_storage_service.self)?.pointee.open
        else { return nil }
        var database: OpaquePointer?
        guard open(host.raw, name, &database, nil) == ASSIST_OK, let database else { return nil }
        self.host = host
        self.database = database
    }

    public enum Value {
        case text(String)
        case integer(Int64)
        case real(Double)
    }

    /// Runs `sql` with `values` bound in order; each result row's columns come back as text. Returns false
    /// when the statement failed (the host logs why).
    @discardableResult
    public func execute(_ sql: String, _ values: [Value] = [], rows: (([String]) -> Void)? = nil) -> Bool {
        guard let exec = host.service(ASSIST_STORAGE_SERVICE, as: assist_storage_service.self)?.pointee.exec
        else { return false }
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
                    }, target, nil, nil)
            }
        }
        collected.forEach { rows?($0) }
        return status == ASSIST_OK
    }
}

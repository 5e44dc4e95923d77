import AssistCore
import Foundation
import PluginAPI

extension ServiceTables {
    nonisolated(unsafe) static let settingsTable: UnsafeMutablePointer<assist_settings_service> = {
        var table = assist_settings_service()
        table.struct_size = UInt32(MemoryLayout<assist_settings_service>.size)
        table.get_string = { host, key, buffer, capacity, needed in
            lookup(host, key) { value in
                let text = Array(value.description.utf8CString)
                needed?.pointee = text.count
                guard let buffer, capacity >= text.count else { return ASSIST_E_NOMEM }
                text.withUnsafeBufferPointer { source in
                    guard let base = source.baseAddress else { return }
                    buffer.update(from: base, count: text.count)
                }
                return ASSIST_OK
            }
        }
        table.get_int = { host, key, out in lookup(host, key, into: out) { $0.integer } }
        table.get_double = { host, key, out in lookup(host, key, into: out) { $0.number } }
        table.get_bool = { host, key, out in lookup(host, key, into: out) { $0.flag } }
        table.set_string = { host, key, value in
            guard let value else { return ASSIST_E_INVALID }
            return store(host, key, .string(String(cString: value)))
        }
        table.set_int = { host, key, value in store(host, key, .int(value)) }
        table.set_double = { host, key, value in store(host, key, .double(value)) }
        table.set_bool = { host, key, value in store(host, key, .bool(value)) }
        return allocate(table)
    }()

    private static func lookup(
        _ host: UnsafePointer<assist_host>?, _ key: UnsafePointer<CChar>?, _ body: (SettingValue) -> assist_status
    ) -> assist_status {
        guard let context = PluginContext.from(host), let key else { return ASSIST_E_INVALID }
        let value: SettingValue?
        do {
            value = try context.services.settings.value(String(cString: key))
        } catch {
            context.services.permissions.refused(.service(.setting), detail: "reading \(String(cString: key))")
            return ASSIST_E_PERMISSION
        }
        guard let value else { return ASSIST_E_NOT_FOUND }
        return body(value)
    }

    /// The setting as the type `out` takes; a value of another type is `ASSIST_E_INVALID`.
    private static func lookup<Value>(
        _ host: UnsafePointer<assist_host>?, _ key: UnsafePointer<CChar>?, into out: UnsafeMutablePointer<Value>?,
        _ typed: (SettingValue) -> Value?
    ) -> assist_status {
        lookup(host, key) { value in
            guard let typed = typed(value) else { return ASSIST_E_INVALID }
            out?.pointee = typed
            return ASSIST_OK
        }
    }

    private static func store(_ host: UnsafePointer<assist_host>?, _ key: UnsafePointer<CChar>?, _ value: SettingValue)
        -> assist_status
    {
        guard let context = PluginContext.from(host), context.onMain("settings.set"), let key else {
            return ASSIST_E_INVALID
        }
        let name = String(cString: key)
        do {
            try context.services.settings.set(name, value)
            return ASSIST_OK
        } catch .outsideNamespace(let qualified) {
            context.services.permissions.refused(.service(.change), detail: "writing \(qualified)")
            return ASSIST_E_PERMISSION
        } catch .locked {
            return ASSIST_E_LOCKED
        } catch {
            context.logger.warning("settings.set: \(name) could not be saved")
            return ASSIST_E_IO
        }
    }
}

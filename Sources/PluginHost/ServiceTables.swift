import Foundation
import Logging
import PluginAPI

/// The C tables the host hands to plugins. Each is allocated once and never freed; each function finds the
/// calling plugin through `h->host_data`.
enum ServiceTables {
    nonisolated(unsafe) static let hostVersionString = permanentCString(AssistVersion.current.description)

    static let getService: @convention(c) (UnsafePointer<assist_host>?, UnsafePointer<CChar>?) -> UnsafeRawPointer? = {
        host, id in
        guard let context = PluginContext.from(host), let id else { return nil }
        let name = String(cString: id)
        guard let table = table(for: name) else {
            context.logger.debug("service \(name) is not provided by this host")
            return nil
        }
        return table
    }

    static let alloc: @convention(c) (UnsafePointer<assist_host>?, Int) -> UnsafeMutableRawPointer? = { _, size in
        malloc(max(size, 1))
    }

    static func table(for id: String) -> UnsafeRawPointer? { byID[id] }

    /// ASSIST_E_PERMISSION for a call the plugin was not allowed (the gate logged and told it, once), with its
    /// sentence as the error string.
    static func denied(_ error: PermissionDenied, _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
        -> assist_status
    {
        err?.pointee = strdup(error.message)
        return ASSIST_E_PERMISSION
    }

    /// Frees an error string a plugin allocated with `alloc`, returning its text.
    static func takeError(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    // MARK: assist.log/1

    nonisolated(unsafe) static let logTable: UnsafeMutablePointer<assist_log_service> = {
        var table = assist_log_service()
        table.struct_size = UInt32(MemoryLayout<assist_log_service>.size)
        table.log = { host, level, message in
            guard let context = PluginContext.from(host), let message else { return }
            let text = String(cString: message)
            switch level {
            case ASSIST_LOG_DEBUG: context.logger.debug("\(text)")
            case ASSIST_LOG_INFO: context.logger.info("\(text)")
            case ASSIST_LOG_WARNING: context.logger.warning("\(text)")
            case ASSIST_LOG_ERROR: context.logger.error("\(text)")
            case ASSIST_LOG_FATAL: context.logger.critical("\(text)")
            case ASSIST_LOG_PLUGIN_MISBEHAVING: context.logger.error("plugin-misbehaving: \(text)")
            case ASSIST_LOG_HOST_MISBEHAVING: context.logger.error("host-misbehaving: \(text)")
            default: context.logger.info("\(text)")
            }
        }
        return allocate(table)
    }()

    // MARK: assist.session/1

    nonisolated(unsafe) static let sessionTable: UnsafeMutablePointer<assist_session_service> = {
        var table = assist_session_service()
        table.struct_size = UInt32(MemoryLayout<assist_session_service>.size)
        table.finish = { host, status in
            guard let context = PluginContext.from(host), context.onMain("session.finish") else { return }
            context.services.session.finish(status: status)
        }
        table.language = { host in PluginContext.from(host)?.cString("language") }
        table.data_dir = { host in PluginContext.from(host)?.directory("data") }
        table.cache_dir = { host in PluginContext.from(host)?.directory("cache") }
        table.share_dir = { host in PluginContext.from(host)?.directory("share") }
        return allocate(table)
    }()

    // MARK: assist.thread-check/1

    nonisolated(unsafe) static let threadCheckTable: UnsafeMutablePointer<assist_thread_check_service> = {
        var table = assist_thread_check_service()
        table.struct_size = UInt32(MemoryLayout<assist_thread_check_service>.size)
        table.is_main = { host in PluginContext.from(host)?.services.loop.isOnMain ?? false }
        table.is_frame = { _ in Thread.current.name?.hasPrefix("assist-camera") ?? false }
        return allocate(table)
    }()

    static func allocate<T>(_ value: T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: value)
        return pointer
    }
}

/// A raw pointer or C function moved to another thread; the ABI's thread tags make the plugin responsible.
// because: the plugin promised the pointee is safe on [worker]/[main]
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
}

import PluginABI
import PluginAPI

/// A Swift view of the `assist_host` a plugin was given: typed access to the services it uses most.
/// Plugins hold it for the life of their instance; it is a plain pointer wrapper (no Swift object crosses
/// the ABI).
// because: it wraps a host pointer the ABI declares valid on every thread
public struct PluginHostHandle: @unchecked Sendable {
    /// The raw table, for services this wrapper does not cover.
    public let raw: UnsafePointer<assist_host>

    public init(_ raw: UnsafePointer<assist_host>) {
        self.raw = raw
    }

    /// The service table for `id`, or nil when the host has none or serves one smaller than ABI 1.0's (the
    /// ABI's one rule for versioned structs). Wraps `assist_host.get_service`. Any thread.
    ///
    ///     let speech = host.service(ASSIST_SPEECH_SERVICE, as: assist_speech_service.self)
    public func service<T: VersionedStruct>(_ id: String, as type: T.Type) -> UnsafePointer<T>? {
        guard let pointer = raw.pointee.get_service?(raw, id), T.declaredSize(pointer) >= T.minimumSize else {
            return nil
        }
        return pointer.assumingMemoryBound(to: T.self)
    }

    /// Says `text`, spoken and printed. Wraps `assist_dialog_service.say`. Any thread.
    public func say(_ text: String, priority: Int32 = ASSIST_PRIORITY_MESSAGE) {
        guard let dialog = service(ASSIST_DIALOG_SERVICE, as: assist_dialog_service.self) else { return }
        _ = dialog.pointee.say?(raw, text, priority)
    }

    /// Writes a log line. Wraps `assist_log_service.log`. Any thread.
    public func log(_ level: Int32, _ message: String) {
        guard let log = service(ASSIST_LOG_SERVICE, as: assist_log_service.self) else { return }
        log.pointee.log?(raw, level, message)
    }

    /// Tells the host the feature is done. Wraps `assist_session_service.finish`. Main thread.
    public func finish(status: Int32 = ASSIST_OK) {
        service(ASSIST_SESSION_SERVICE, as: assist_session_service.self)?.pointee.finish?(raw, status)
    }

    /// The user's language code. Wraps `assist_session_service.language`. Any thread.
    public var language: String {
        guard let session = service(ASSIST_SESSION_SERVICE, as: assist_session_service.self),
            let text = session.pointee.language?(raw)
        else { return "en" }
        return String(cString: text)
    }

    /// The plugin's read-only data folder. Wraps `assist_session_service.share_dir`. Any thread.
    public var shareDirectory: String? {
        guard let session = service(ASSIST_SESSION_SERVICE, as: assist_session_service.self),
            let text = session.pointee.share_dir?(raw)
        else { return nil }
        return String(cString: text)
    }

    /// Adds a command for the focused feature. Wraps `assist_input_service.register_command`. Main thread.
    @discardableResult
    public func registerCommand(id: String, label: String, key: String?, phrase: String?) -> Int32 {
        guard let input = service(ASSIST_INPUT_SERVICE, as: assist_input_service.self),
            let register = input.pointee.register_command
        else { return ASSIST_E_UNSUPPORTED }
        return register(raw, id, label, key, phrase, ASSIST_SCOPE_FOCUSED)
    }

    /// Copies `message` into host-allocated memory for an `*err` out-parameter. Wraps `assist_host.alloc`.
    public func errorString(_ message: String) -> UnsafeMutablePointer<CChar>? {
        let bytes = Array(message.utf8CString)
        guard let memory = raw.pointee.alloc?(raw, bytes.count) else { return nil }
        let typed = memory.bindMemory(to: CChar.self, capacity: bytes.count)
        for (index, byte) in bytes.enumerated() { typed[index] = byte }
        return typed
    }
}

import PluginABI
import PluginAPI

#if canImport(Glibc)
    import Glibc
#endif

/// A Swift view of the `assist_host` a plugin was given: typed access to the services it uses most.
/// Plugins hold it for the life of their instance; it is a plain pointer wrapper (no Swift object crosses
/// the ABI).
// because: it wraps a host pointer the ABI declares valid on every thread
public struct PluginHostHandle: @unchecked Sendable {
    /// The raw table, for services this wrapper does not cover.
    public let raw: UnsafePointer<assist_host>
    /// Every service table this wrapper uses, looked up once when the instance is created.
    public let tables: Tables

    /// Wraps the host a plugin instance was created with, looking up its service tables once.
    ///
    ///     let host = PluginHostHandle(raw)
    public init(_ raw: UnsafePointer<assist_host>) {
        self.raw = raw
        self.tables = Tables(raw)
    }

    /// The service table for `id`, or nil when the host has none or serves one smaller than ABI 1.0's (the
    /// ABI's one rule for versioned structs). Wraps `assist_host.get_service`. Any thread.
    ///
    ///     let speech = table(ASSIST_SPEECH_SERVICE, assist_speech_service.self)
    public func service<T: VersionedStruct>(_ id: String, as type: T.Type) -> UnsafePointer<T>? {
        Self.lookUp(raw, id, type)
    }

    static func lookUp<T: VersionedStruct>(_ raw: UnsafePointer<assist_host>, _ id: String, _ type: T.Type)
        -> UnsafePointer<T>?
    {
        guard let pointer = raw.pointee.get_service?(raw, id), T.declaredSize(pointer) >= T.minimumSize else {
            return nil
        }
        return pointer.assumingMemoryBound(to: T.self)
    }

    /// Says `text`, spoken and printed as a plain line. Wraps `assist_dialog_service.say`. Any thread.
    ///
    ///     host.say("Saved.")
    public func say(_ text: String, priority: SpeechPriority = .message) {
        _ = tables.dialog?.pointee.say?(raw, text, priority.rawValue)
    }

    /// Writes a log line tagged with the plugin's id; never spoken. Wraps `assist_log_service.log`. Any thread.
    ///
    ///     host.log(.info, "opened the camera at 1280x720")
    public func log(_ level: LogLevel, _ message: String) {
        tables.log?.pointee.log?(raw, level.rawValue, message)
    }

    /// Tells the host the feature is done, successfully or with `status`. Wraps
    /// `assist_session_service.finish`. [main]
    ///
    ///     host.finish()                // done
    ///     host.finish(.cancelled)      // the user backed out
    public func finish(_ status: PluginStatus = .ok) {
        tables.session?.pointee.finish?(raw, status.code)
    }

    /// The user's language code. Wraps `assist_session_service.language`. Any thread.
    public var language: String {
        guard let session = tables.session,
            let text = session.pointee.language?(raw)
        else { return "en" }
        return String(cString: text)
    }

    /// The plugin's read-only data folder. Wraps `assist_session_service.share_dir`. Any thread.
    public var shareDirectory: String? {
        guard let session = tables.session,
            let text = session.pointee.share_dir?(raw)
        else { return nil }
        return String(cString: text)
    }

    /// Adds a command; it arrives at `PluginFeature.handle(command:argument:)` as `id`. A focused command
    /// works while this feature has the focus; a global one from anywhere in the host, for as long as the
    /// feature runs (a background feature's "sync photos now"). Throws `.busy` when the key or phrase is
    /// taken or reserved. Wraps `assist_input_service.register_command`. [main]
    ///
    ///     try host.registerCommand(id: "save", label: "Save text", key: "ctrl+s", phrase: "save text")
    public func registerCommand(id: String, label: String, key: String?, phrase: String?, global: Bool = false)
        throws(PluginStatus)
    {
        guard let register = tables.input?.pointee.register_command else { throw PluginStatus.unsupported }
        try PluginStatus.check(
            register(raw, id, label, key, phrase, global ? ASSIST_SCOPE_GLOBAL : ASSIST_SCOPE_FOCUSED))
    }

    /// Adds the command `id` with its label and spoken phrase from `phrases` (`command.<id>` and `phrase.<id>`,
    /// as the first-party plugins name them), in the user's language. [main]
    ///
    ///     try host.registerCommand("save", key: "ctrl+s", phrases: phrases)
    public func registerCommand(_ id: String, key: String?, phrases: PhraseTable, global: Bool = false)
        throws(PluginStatus)
    {
        try registerCommand(
            id: id, label: phrases.text("command." + id), key: key, phrase: phrases.text("phrase." + id),
            global: global)
    }

    /// Removes a command this plugin added. Wraps `assist_input_service.unregister_command`. [main]
    public func unregisterCommand(_ id: String) {
        _ = tables.input?.pointee.unregister_command?(raw, id)
    }

    /// Sets the closed list of words that may follow `phrase` (a manifest keyword or a command's phrase): once
    /// the phrase is heard, the voice recogniser listens for one of `choices`, and they arrive as if typed
    /// after it. `prompt` is said when nothing follows the phrase. Call it from `PluginExport.entry`'s
    /// `prepare`, so the list is there before the phrase is first heard. False on a host without it (older
    /// than 1.1's input service) or when another plugin set a list for the phrase. Wraps
    /// `assist_input_service.set_choices`. [main]
    @discardableResult
    public func setChoices(after phrase: String, prompt: String?, choices: [String]) -> Bool {
        guard let input = tables.input, assist_input_service.has(\.set_choices, in: input.pointee.struct_size),
            let set = input.pointee.set_choices
        else { return false }
        var pointers = choices.map { UnsafePointer(strdup($0)) }
        defer { pointers.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { list in
                set(raw, phrase, prompt, list.baseAddress.map { UnsafePointer($0) }, list.count) == ASSIST_OK
            }
        }
    }

    /// Asks `question` ("Delete every recording?") before the command `id` reaches the feature, by key, words
    /// or voice; only yes delivers it (nil: no longer). False on a host without it. Wraps
    /// `assist_input_service.set_confirmation`. [main]
    @discardableResult
    public func setConfirmation(command id: String, question: String?) -> Bool {
        guard let input = tables.input, assist_input_service.has(\.set_confirmation, in: input.pointee.struct_size),
            let set = input.pointee.set_confirmation
        else { return false }
        return set(raw, id, question) == ASSIST_OK
    }

    /// True when the host can take voice dictation in `language` now. Wraps
    /// `assist_input_service.dictation_available`. [any]
    public func dictationAvailable(language: String) -> Bool {
        tables.input?.pointee.dictation_available?(raw, language) ?? false
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

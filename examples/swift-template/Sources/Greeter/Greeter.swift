import CAssistPlugin

#if canImport(Glibc)
import Glibc
#endif

// A minimal Swift plugin: it greets the user by name (asked with a text dialog) and finishes.
// Replace the greeting with your feature; keep the entry table and the thread rules.

/// The host and services one instance uses. Lives from create to destroy.
final class Greeter {
    let host: UnsafePointer<assist_host>
    let dialog: UnsafePointer<assist_dialog_service>
    let session: UnsafePointer<assist_session_service>

    init?(host: UnsafePointer<assist_host>) {
        guard let dialog = host.pointee.get_service(host, ASSIST_DIALOG_SERVICE),
            let session = host.pointee.get_service(host, ASSIST_SESSION_SERVICE)
        else { return nil }
        self.host = host
        self.dialog = dialog.assumingMemoryBound(to: assist_dialog_service.self)
        self.session = session.assumingMemoryBound(to: assist_session_service.self)
    }

    func say(_ text: String) {
        _ = dialog.pointee.say(host, text, ASSIST_PRIORITY_MESSAGE)
    }

    static func from(_ plugin: UnsafeMutablePointer<assist_plugin>?) -> Greeter? {
        guard let data = plugin?.pointee.plugin_data else { return nil }
        return Unmanaged<Greeter>.fromOpaque(data).takeUnretainedValue()
    }
}

private func makePlugin(_ greeter: Greeter) -> UnsafeMutablePointer<assist_plugin> {
    var table = assist_plugin()
    table.struct_size = UInt32(MemoryLayout<assist_plugin>.size)
    table.plugin_data = Unmanaged.passRetained(greeter).toOpaque()
    table.start = { plugin, _, _, _ in
        guard let greeter = Greeter.from(plugin) else { return ASSIST_E_INVALID }
        // [main] Ask, then answer in the callback, also on [main].
        return greeter.dialog.pointee.ask_text(
            greeter.host, "What is your name?", ASSIST_TEXT_PLAIN,
            { user, result in
                guard let user, let result else { return }
                let greeter = Unmanaged<Greeter>.fromOpaque(user).takeUnretainedValue()
                let name = result.pointee.text.map { String(cString: $0) } ?? ""
                if result.pointee.status == ASSIST_OK {
                    greeter.say(name.isEmpty ? "Hello from Swift." : "Hello, \(name), from Swift.")
                }
                greeter.session.pointee.finish(greeter.host, ASSIST_OK)
            }, plugin?.pointee.plugin_data, nil)
    }
    table.destroy = { plugin in
        guard let plugin else { return }
        if let data = plugin.pointee.plugin_data { Unmanaged<Greeter>.fromOpaque(data).release() }
        plugin.deinitialize(count: 1)
        plugin.deallocate()
    }
    let pointer = UnsafeMutablePointer<assist_plugin>.allocate(capacity: 1)
    pointer.initialize(to: table)
    return pointer
}

/// The entry table, built once and never freed.
nonisolated(unsafe) private let entryTable: UnsafeMutablePointer<assist_entry> = {
    var entry = assist_entry()
    entry.struct_size = UInt32(MemoryLayout<assist_entry>.size)
    entry.abi = assist_version(major: UInt16(ASSIST_ABI_MAJOR), minor: UInt16(ASSIST_ABI_MINOR), patch: 0, reserved: 0)
    entry.id = UnsafePointer(strdup("org.example.greeter"))
    entry.version = UnsafePointer(strdup("1.0.0"))
    entry.`init` = { _ in true }
    entry.deinit = {}
    entry.create = { host, _ in
        guard let host, let greeter = Greeter(host: host) else { return nil }
        return makePlugin(greeter)
    }
    let pointer = UnsafeMutablePointer<assist_entry>.allocate(capacity: 1)
    pointer.initialize(to: entry)
    return pointer
}()

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    UnsafePointer(entryTable)
}

import PluginAPI
import PluginKit

// A minimal Swift plugin: it greets the user by name (asked with a text dialog) and finishes. Replace the
// greeting with your feature. PluginKit builds the C tables; every method here runs on the host's main loop.

/// One running instance; lives from create to destroy.
final class Greeter: PluginFeature {
    let host: PluginHostHandle

    init(host: PluginHostHandle) {
        self.host = host
    }

    func start(arguments: [String]) throws(PluginError) {
        host.askText("What is your name?") { [host] name in
            // nil: the user cancelled; nothing to say.
            if let name { host.say(name.isEmpty ? "Hello from Swift." : "Hello, \(name), from Swift.") }
            host.finish()
        }
    }
}

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "org.example.greeter", version: "1.0.0") { host in Greeter(host: host) }
}

import PluginAPI
import PluginKit
import ReadTextCore

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "assist.read-text", version: "1.0.0", prepare: ReadText.offerPageNumbers) { host in
        ReadText(host: host)
    }
}

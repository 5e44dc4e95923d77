import ColourCore
import PluginAPI
import PluginKit

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "assist.colour", version: "1.0.0") { host in Colour(host: host) }
}

import CollectVideosCore
import PluginAPI
import PluginKit

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "assist.collect-videos", version: "0.2.0") { host in CollectVideos(host: host) }
}

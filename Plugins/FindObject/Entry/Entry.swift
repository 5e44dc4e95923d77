import FindObjectCore
import PluginAPI
import PluginKit

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "assist.find-object", version: "1.0.0", prepare: FindObject.offerNames) { host in
        FindObject(host: host)
    }
}

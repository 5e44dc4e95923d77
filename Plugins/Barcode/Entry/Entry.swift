import BarcodeCore
import PluginAPI
import PluginKit

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "assist.barcode", version: "1.0.0") { host in Barcode(host: host) }
}

import PhotoSensorCore
import PluginAPI
import PluginKit

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "assist.photo-sensor", version: "0.2.0") { host in PhotoSensor(host: host) }
}

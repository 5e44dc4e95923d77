import PluginAPI
import PluginKit
import TalkingClockCore

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "assist.clock", version: "1.0.0") { host in TalkingClock(host: host) }
}

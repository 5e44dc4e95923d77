import PluginAPI
import PluginKit
import SurveyCore

/// The plugin's only exported symbol.
@c(assist_plugin_entry)
public func assistPluginEntry() -> UnsafePointer<assist_entry> {
    PluginExport.entry(id: "assist.survey", version: "1.0.0") { host in Survey(host: host) }
}

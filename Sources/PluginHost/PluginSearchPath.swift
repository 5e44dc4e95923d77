import AssistCore
import Foundation

/// The folders searched for plugins, in order; the first plugin found with an id wins.
package struct PluginSearchPath: Sendable {
    /// One place plugins may be.
    package enum Entry: Equatable, Sendable {
        /// `<dir>/<id>/manifest.json` with its library beside it.
        case installed(URL)
        /// A SwiftPM build folder: manifests stay in `<root>/Plugins/*/manifest.json`, libraries in `buildDir`.
        case development(manifests: URL, libraries: URL)
    }

    package var entries: [Entry]

    /// A search path of exactly `entries`.
    package init(entries: [Entry]) {
        self.entries = entries
    }

    /// The standard order: system, local, user, `$ASSIST_PLUGIN_PATH`, then `--plugin-dir`s, then, when running
    /// from a build folder, that folder. `<exe>/../lib/assist/plugins` is searched first for relocated installs.
    package static func standard(
        paths: AssistPaths, pluginDirs: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> PluginSearchPath {
        var entries: [Entry] = []
        func add(_ entry: Entry) { if !entries.contains(entry) { entries.append(entry) } }
        let prefix = paths.executable.deletingLastPathComponent().deletingLastPathComponent()
        add(.installed(prefix.appendingPathComponent("lib/assist/plugins")))
        add(.installed(URL(fileURLWithPath: "/usr/lib/assist/plugins")))
        add(.installed(URL(fileURLWithPath: "/usr/local/lib/assist/plugins")))
        let home = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory())
        add(.installed(home.appendingPathComponent(".local/lib/assist/plugins")))
        for dir in (environment["ASSIST_PLUGIN_PATH"] ?? "").split(separator: ":") where !dir.isEmpty {
            add(classify(URL(fileURLWithPath: String(dir))))
        }
        for dir in pluginDirs {
            add(classify(URL(fileURLWithPath: dir)))
        }
        if let root = paths.developmentRoot {
            add(
                .development(
                    manifests: root.appendingPathComponent("Plugins"),
                    libraries: paths.executable.deletingLastPathComponent()))
        }
        return PluginSearchPath(entries: entries)
    }

    /// A build folder given with `--plugin-dir .build/debug` becomes a development entry; anything else is installed.
    static func classify(_ url: URL) -> Entry {
        let standardised = url.standardizedFileURL
        if let root = AssistPaths.developmentRoot(for: standardised) {
            return .development(manifests: root.appendingPathComponent("Plugins"), libraries: standardised)
        }
        return .installed(standardised)
    }

    /// Every candidate: a manifest file and the folder its library is looked up in. Reads no library.
    package func candidates() -> [(manifest: URL, libraryDirectory: URL)] {
        let files = FileManager.default
        var found: [(URL, URL)] = []
        for entry in entries {
            switch entry {
            case .installed(let dir):
                guard let names = try? files.contentsOfDirectory(atPath: dir.path) else { continue }
                for name in names.sorted() {
                    let pluginDir = dir.appendingPathComponent(name)
                    let manifest = pluginDir.appendingPathComponent("manifest.json")
                    if files.fileExists(atPath: manifest.path) {
                        found.append((manifest, pluginDir))
                    } else if let libraries = try? files.contentsOfDirectory(atPath: pluginDir.path),
                        libraries.contains(where: { $0.hasSuffix(".so") })
                    {
                        // A plugin folder with a library and no manifest: report it rather than skip it silently.
                        found.append((manifest, pluginDir))
                    }
                }
            case .development(let manifests, let libraries):
                guard let names = try? files.contentsOfDirectory(atPath: manifests.path) else { continue }
                for name in names.sorted() {
                    let manifest = manifests.appendingPathComponent(name).appendingPathComponent("manifest.json")
                    if files.fileExists(atPath: manifest.path) { found.append((manifest, libraries)) }
                }
            }
        }
        return found
    }
}

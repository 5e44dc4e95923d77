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
        /// One plugin: this manifest, its library in `libraries` (`plugins check` and `plugins install`, whose
        /// unpacked copy is in a dot-folder no search reads).
        case single(manifest: URL, libraries: URL)
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
        add(.installed(systemFolder(environment: environment)))
        add(.installed(userFolder(environment: environment)))
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

    /// Where `assist plugins install --system` puts plugins, for every user: /usr/local/lib/assist/plugins
    /// (`ASSIST_SYSTEM_PLUGIN_DIR` stands in for it, for tests and packagers).
    package static func systemFolder(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        URL(fileURLWithPath: environment["ASSIST_SYSTEM_PLUGIN_DIR"] ?? "/usr/local/lib/assist/plugins")
    }

    /// Where `assist plugins install` puts plugins for this user: ~/.local/lib/assist/plugins.
    package static func userFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(
            ".local/lib/assist/plugins")
    }

    /// Where a plugin found at `manifest` came from, as `plugins list` says it: "first-party" (Assist's own, from
    /// its installation or build folder), "system" (/usr/local), "user" (~/.local) or "path" (`--plugin-dir`,
    /// `ASSIST_PLUGIN_PATH`).
    package static func origin(
        of manifest: URL, id: String, paths: AssistPaths,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        let folder = manifest.deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL.path
        if folder == userFolder(environment: environment).standardizedFileURL.path { return "user" }
        if folder == systemFolder(environment: environment).standardizedFileURL.path { return "system" }
        let prefix = paths.executable.deletingLastPathComponent().deletingLastPathComponent()
        let own = [prefix.appendingPathComponent("lib/assist/plugins").path, "/usr/lib/assist/plugins"]
        if own.contains(folder) { return id.hasPrefix("assist.") ? "first-party" : "system" }
        if let root = paths.developmentRoot, folder == root.appendingPathComponent("Plugins").path {
            return "first-party"
        }
        return "path"
    }

    /// True for Assist's own features (`origin` "first-party"): what the admin's `user-may-grant` does not limit.
    package static func isFirstParty(manifest: URL, id: String, paths: AssistPaths) -> Bool {
        origin(of: manifest, id: id, paths: paths) == "first-party"
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
                // Dot-folders are an install or removal under way (`assist plugins install`), never a plugin.
                for name in names.sorted() where !name.hasPrefix(".") {
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
            case .single(let manifest, let libraries):
                found.append((manifest, libraries))
            }
        }
        return found
    }
}

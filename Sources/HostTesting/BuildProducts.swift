import Foundation

/// Where the package's build products and sources are, seen from a running test.
package enum BuildProducts {
    /// The build folder holding the test bundle, `assist` and the plugin libraries.
    package static var directory: URL {
        let candidates = [CommandLine.arguments.first, Bundle.main.executablePath].compactMap { $0 }
        for candidate in candidates {
            var url = URL(fileURLWithPath: candidate).resolvingSymlinksInPath()
            for _ in 0..<4 {
                url = url.deletingLastPathComponent()
                if FileManager.default.fileExists(atPath: url.appendingPathComponent("assist").path) { return url }
            }
        }
        return packageRoot.appendingPathComponent(".build/debug")
    }

    /// The built `assist` executable.
    package static var assist: String { directory.appendingPathComponent("assist").path }

    /// The package root (the folder holding Package.swift).
    package static var packageRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url = url.deletingLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// The folder holding `assist_plugin.h`.
    package static var headerDirectory: URL {
        packageRoot.appendingPathComponent("Sources/PluginAPI/include")
    }
}

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

    /// The folder holding the `assist_plugin.h` test plugins are compiled against: this package's, or the one
    /// in `ASSIST_TEST_PLUGIN_HEADERS` (`scripts/abi-compat.sh` builds 1.0 plugins for a 1.1 host that way).
    package static var headerDirectory: URL {
        if let folder = ProcessInfo.processInfo.environment["ASSIST_TEST_PLUGIN_HEADERS"], !folder.isEmpty {
            return URL(fileURLWithPath: folder)
        }
        return packageRoot.appendingPathComponent("Sources/PluginAPI/include")
    }

    /// "MAJOR.MINOR" of the header in `headerDirectory`, the ABI a test plugin's manifest declares.
    package static var headerABI: String {
        let text = try? String(contentsOf: headerDirectory.appendingPathComponent("assist/core.h"), encoding: .utf8)
        func value(_ name: String) -> String? {
            text?.split(separator: "\n").first { $0.hasPrefix("#define \(name) ") }?.split(separator: " ").last
                .map(String.init)
        }
        return "\(value("ASSIST_ABI_MAJOR") ?? "1").\(value("ASSIST_ABI_MINOR") ?? "0")"
    }
}

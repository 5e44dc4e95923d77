import Foundation

/// Builds real plugin folders for tests: the C test plugin compiled with `cc` against the ABI header, a
/// manifest beside it, and deliberately broken variants.
package struct CPluginBuilder {
    /// The folder plugins are created in (one sub-folder per plugin).
    package let root: URL

    package init(root: URL) {
        self.root = root
    }

    /// The default manifest fields for `id`.
    package static func manifest(
        id: String, library: String = "libtest.so", abi: String = BuildProducts.headerABI, extra: [String: Any] = [:]
    ) -> [String: Any] {
        var fields: [String: Any] = [
            "id": id, "name": "Test \(id)", "version": "1.0.0", "library": library, "abi": abi, "min_host": "1.0.0",
            "last_tested_host": "1.0.0", "mode": "foreground",
            "services": ["required": ["assist.dialog/1"], "optional": ["assist.teleport/1"]],
        ]
        for (key, value) in extra { fields[key] = value }
        return fields
    }

    /// Compiles the test plugin with `defines` into `<root>/<folder>/libtest.so` and writes `manifest`.
    /// Returns the plugin folder.
    @discardableResult
    package func build(
        folder: String, defines: [String] = [], manifest: [String: Any]?, library: String = "libtest.so",
        source: String = "test_plugin.c"
    ) throws -> URL {
        let directory = root.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try compile(defines: defines, output: directory.appendingPathComponent(library), source: source)
        if let manifest {
            let data = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: directory.appendingPathComponent("manifest.json"))
        }
        return directory
    }

    /// Compiles a C test plugin (a file in `Tests/Fixtures/plugins`) into `output` with the strict flags a third
    /// party would use.
    package func compile(defines: [String], output: URL, source: String = "test_plugin.c") throws {
        let source = BuildProducts.packageRoot.appendingPathComponent("Tests/Fixtures/plugins/\(source)").path
        let arguments =
            ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fPIC", "-shared", "-fvisibility=hidden"]
            + [
                "-I", BuildProducts.headerDirectory.path, "-I",
                URL(fileURLWithPath: source).deletingLastPathComponent().path,
            ]
            + defines.map { "-D\($0)" } + [source, "-o", output.path]
        let result = try ProcessRunner.run(ProcessRunner.which("cc") ?? "/usr/bin/cc", arguments)
        guard result.status == 0 else {
            throw BuildFailure(message: "cc failed: \(result.standardError)")
        }
    }

    /// A build step that failed.
    package struct BuildFailure: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }
}

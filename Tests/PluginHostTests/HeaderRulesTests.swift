import Foundation
import HostTesting
import Testing

/// The plugin ABI's headers: `assist_plugin.h` is the one include, an index over one header per service, and
/// each header stands alone, tags every function with its thread and says how long each `user` must live.
@Suite("The ABI headers")
struct HeaderRulesTests {
    static let include = BuildProducts.packageRoot.appendingPathComponent("Sources/PluginAPI/include")
    static var parts: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: include.appendingPathComponent("assist").path)) ?? [])
            .filter { $0.hasSuffix(".h") }.sorted()
    }

    @Test func everyFunctionHasAThreadTagAndEveryUserPointerALifetime() throws {
        let script = BuildProducts.packageRoot.appendingPathComponent("scripts/check-header.py").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script, Self.include.path])
        #expect(result.status == 0, "\(result.standardOutput)")
    }

    /// The helper protocol's service code is generated from these headers (scripts/gen-bridge.py): a function
    /// added, removed or changed in a header without regenerating it fails here.
    @Test func theBridgesServiceCodeIsWhatTheHeadersDescribe() throws {
        let script = BuildProducts.packageRoot.appendingPathComponent("scripts/gen-bridge.py").path
        let result = try ProcessRunner.run("/usr/bin/python3", [script, "--check"])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        // The check can fail: a header with one more function differs from the checked-in code.
        let folder = try TemporaryDirectory("assist-bridge-check")
        let copy = folder.path("tree")
        for path in [
            "scripts", "Sources/PluginAPI/include/assist", "Sources/CPluginBridge/generated",
            "Sources/PluginHost/Services/ServiceTables+List.swift", "Sources/PluginKit/PluginHostHandle+Tables.swift",
        ] {
            try FileManager.default.createDirectory(
                at: copy.appendingPathComponent(path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: BuildProducts.packageRoot.appendingPathComponent(path), to: copy.appendingPathComponent(path))
        }
        let copied = try ProcessRunner.run(
            "/usr/bin/python3", [copy.appendingPathComponent("scripts/gen-bridge.py").path, "--check"])
        #expect(copied.status == 0, "the copy is current before the header changes: \(copied)")
        let header = copy.appendingPathComponent("Sources/PluginAPI/include/assist/cues.h")
        let text = try String(contentsOf: header, encoding: .utf8)
        try text.replacingOccurrences(
            of: "    bool (*enabled)(const assist_host *h);",
            with: "    bool (*enabled)(const assist_host *h);\n    bool (*muted)(const assist_host *h);"
        ).write(to: header, atomically: true, encoding: .utf8)
        let stale = try ProcessRunner.run(
            "/usr/bin/python3", [copy.appendingPathComponent("scripts/gen-bridge.py").path, "--check"])
        #expect(stale.status == 1 && stale.standardOutput.contains("run scripts/gen-bridge.py"), "\(stale)")
        // A new service's id goes into the host's list and PluginKit's tables from its header alone.
        try """
        #include "core.h"
        #define ASSIST_VIBRATION_SERVICE "assist.vibration/1"
        typedef struct assist_vibration_service {
            uint32_t struct_size;
            assist_status (*pulse)(const assist_host *h, uint32_t ms);
        } assist_vibration_service;
        """.write(
            to: copy.appendingPathComponent("Sources/PluginAPI/include/assist/vibration.h"), atomically: true,
            encoding: .utf8)
        let made = try ProcessRunner.run(
            "/usr/bin/python3", [copy.appendingPathComponent("scripts/gen-bridge.py").path])
        #expect(made.status == 0, "\(made)")
        let list = try String(
            contentsOf: copy.appendingPathComponent("Sources/PluginHost/Services/ServiceTables+List.swift"),
            encoding: .utf8)
        #expect(list.contains("ASSIST_VIBRATION_SERVICE: UnsafeRawPointer(vibrationTable),"), "\(list)")
        let tables = try String(
            contentsOf: copy.appendingPathComponent("Sources/PluginKit/PluginHostHandle+Tables.swift"),
            encoding: .utf8)
        #expect(tables.contains("public let vibration: UnsafePointer<assist_vibration_service>?"), "\(tables)")
    }

    @Test func theUmbrellaIncludesEveryPartAndEachPartStandsAlone() throws {
        let umbrella = try String(contentsOf: Self.include.appendingPathComponent("assist_plugin.h"), encoding: .utf8)
        #expect(Self.parts.count >= 16)
        let folder = try TemporaryDirectory("assist-headers")
        for part in Self.parts {
            #expect(umbrella.contains("#include \"assist/\(part)\""), "\(part) is in the umbrella")
            #expect(umbrella.contains(" *   assist/\(part) "), "\(part) is in the index")
            let source = folder.path("\(part).c")
            try "#include \"assist/\(part)\"\nint main(void) { return 0; }\n".write(
                to: source, atomically: false, encoding: .utf8)
            let compiled = try ProcessRunner.run(
                "/usr/bin/cc",
                [
                    "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I", Self.include.path, "-c", source.path,
                    "-o", folder.path("\(part).o").path,
                ])
            #expect(compiled.status == 0, "\(part): \(compiled.standardError)")
        }
        let cpp = folder.path("all.cpp")
        try "#include \"assist_plugin.h\"\nint main() { return 0; }\n".write(
            to: cpp, atomically: false, encoding: .utf8)
        let compiled = try ProcessRunner.run(
            "/usr/bin/c++",
            [
                "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", Self.include.path, "-c", cpp.path,
                "-o", folder.path("all.o").path,
            ])
        #expect(compiled.status == 0, "C++: \(compiled.standardError)")
    }
}

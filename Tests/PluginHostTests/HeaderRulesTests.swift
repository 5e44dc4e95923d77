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
        let copy = try copyOfTheBridgeSources(into: folder)
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

    /// The headers, the generator and what it writes, copied into `folder`; returns the copy's root.
    private func copyOfTheBridgeSources(into folder: TemporaryDirectory) throws -> URL {
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
        return copy
    }

    /// A minor version's layout is recorded once (scripts/abi-layouts) and frozen: filling a reserved slot
    /// fails the check until ASSIST_ABI_MINOR is bumped and the new layout recorded, and a later minor that
    /// drops or reorders an older minor's field fails it for good.
    @Test func aMinorVersionsLayoutIsFrozenAndLaterOnesOnlyAppend() throws {
        let folder = try TemporaryDirectory("assist-layout-check")
        let copy = try copyOfTheBridgeSources(into: folder)
        let script = copy.appendingPathComponent("scripts/gen-bridge.py").path
        func edit(_ name: String, _ old: String, _ new: String) throws {
            let file = copy.appendingPathComponent("Sources/PluginAPI/include/assist/\(name)")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(old), "\(name) holds \(old)")
            try text.replacingOccurrences(of: old, with: new).write(to: file, atomically: true, encoding: .utf8)
        }
        func recordLayout(_ version: String) throws {
            let layout = try ProcessRunner.run("/usr/bin/python3", [script, "--layout"])
            try layout.standardOutput.write(
                to: copy.appendingPathComponent("scripts/abi-layouts/\(version).txt"), atomically: true, encoding: .utf8
            )
        }
        try edit(
            "dialog.h", "    uint64_t reserved[4];\n} assist_dialog_result;",
            "    uint64_t answered_ms;\n    uint64_t reserved[3];\n} assist_dialog_result;")
        let filled = try ProcessRunner.run("/usr/bin/python3", [script, "--check"])
        #expect(filled.status == 1 && filled.standardOutput.contains("bump ASSIST_ABI_MINOR"), "\(filled)")
        // The next minor version of whichever this tree is (abi-compat runs this on a simulated 1.1).
        let core = try String(
            contentsOf: copy.appendingPathComponent("Sources/PluginAPI/include/assist/core.h"), encoding: .utf8)
        let defined = core.split(separator: "\n").first { $0.hasPrefix("#define ASSIST_ABI_MINOR ") }
        let minor = try #require(defined.flatMap { Int($0.split(separator: " ").last ?? "") })
        let next = "1.\(minor + 1)"
        try edit("core.h", "#define ASSIST_ABI_MINOR \(minor)", "#define ASSIST_ABI_MINOR \(minor + 1)")
        try recordLayout(next)
        let bumped = try ProcessRunner.run("/usr/bin/python3", [script, "--check"])
        #expect(bumped.status == 0, "a new minor with its layout recorded: \(bumped)")
        try edit("dialog.h", "    int32_t index;", "")
        try recordLayout(next)
        let dropped = try ProcessRunner.run("/usr/bin/python3", [script, "--check"])
        #expect(
            dropped.status == 1
                && dropped.standardOutput.contains("assist_dialog_result no longer begins with ABI 1.0's fields"),
            "\(dropped)")
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

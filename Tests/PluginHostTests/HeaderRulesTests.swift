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

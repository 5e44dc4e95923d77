import AssistCore
import Foundation
import HostTesting
import PluginAPI
import PluginHost
import Testing

/// Each refusal is a real folder: a `.so` built with cc (or a broken file) and a manifest. The host must skip
/// the plugin with a one-line reason and keep running.
@Suite("Loader refusals")
struct LoaderRefusalTests {
    let root: TemporaryDirectory
    let builder: CPluginBuilder

    init() throws {
        root = try TemporaryDirectory("assist-plugins")
        builder = CPluginBuilder(root: root.url)
    }

    private func discover() throws -> TestHost {
        try TestHost(pluginDirectories: [root.url])
    }

    private func record(_ host: TestHost, _ id: String) throws -> PluginRecord {
        try #require(host.features.records.first { $0.id == id })
    }

    @Test func aGoodPluginLoads() throws {
        try builder.build(
            folder: "good", defines: ["PLUGIN_ID=\"org.test.good\""],
            manifest: CPluginBuilder.manifest(id: "org.test.good"))
        let host = try discover()
        let good = try record(host, "org.test.good")
        #expect(good.state == .available)
        #expect(host.features.load(good) == nil)
        #expect(good.state == .loaded)
    }

    @Test func missingLibrary() throws {
        let folder = root.path("nolib")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let data = try JSONSerialization.data(withJSONObject: CPluginBuilder.manifest(id: "org.test.nolib"))
        try data.write(to: folder.appendingPathComponent("manifest.json"))
        let plugin = try record(try discover(), "org.test.nolib")
        #expect(plugin.state == .failedInit)
        #expect(plugin.reason?.contains("does not exist") == true)
    }

    @Test func notAnELFFile() throws {
        let folder = try builder.build(folder: "text", manifest: CPluginBuilder.manifest(id: "org.test.text"))
        try Data("this is not a library\n".utf8).write(to: folder.appendingPathComponent("libtest.so"))
        let plugin = try record(try discover(), "org.test.text")
        #expect(plugin.state == .failedInit)
        #expect(plugin.reason?.contains("not an ELF file") == true)
    }

    @Test func truncatedLibraryIsRefusedBeforeAndByDlopen() throws {
        let folder = try builder.build(
            folder: "short", defines: ["PLUGIN_ID=\"org.test.short\""],
            manifest: CPluginBuilder.manifest(id: "org.test.short"))
        let library = folder.appendingPathComponent("libtest.so")
        let whole = try Data(contentsOf: library)
        // A header that passes the ELF check, then nothing: dlopen itself must refuse it.
        try whole.prefix(200).write(to: library)
        let host = try discover()
        let plugin = try record(host, "org.test.short")
        #expect(plugin.state == .available)
        let refusal = try #require(host.features.load(plugin))
        #expect(refusal.state == .failedInit)
        #expect(refusal.message.contains("could not be loaded"))
        // Two bytes is too short even for the header check.
        try whole.prefix(2).write(to: library)
        #expect(try record(try discover(), "org.test.short").reason?.contains("file too short") == true)
    }

    @Test func wrongArchitecture() throws {
        let folder = try builder.build(folder: "arm", manifest: CPluginBuilder.manifest(id: "org.test.arm"))
        let library = folder.appendingPathComponent("libtest.so")
        var bytes = [UInt8](try Data(contentsOf: library))
        bytes[18] = 183  // EM_AARCH64
        bytes[19] = 0
        try Data(bytes).write(to: library)
        let plugin = try record(try discover(), "org.test.arm")
        #expect(plugin.state == .incompatible)
        #expect(plugin.reason?.contains("built for aarch64, this host is x86_64") == true)
    }

    @Test func missingEntrySymbol() throws {
        try builder.build(
            folder: "noentry", defines: ["NO_ENTRY", "PLUGIN_ID=\"org.test.noentry\""],
            manifest: CPluginBuilder.manifest(id: "org.test.noentry"))
        let host = try discover()
        let refusal = try #require(host.features.load(try record(host, "org.test.noentry")))
        #expect(refusal.state == .failedInit)
        #expect(refusal.message.contains("assist_plugin_entry"))
        #expect(refusal.message.contains("undefined symbol"))
    }

    @Test func missingManifest() throws {
        try builder.build(folder: "nomanifest", manifest: nil)
        let plugin = try record(try discover(), "nomanifest")
        #expect(plugin.state == .failedInit)
        #expect(plugin.reason?.contains("manifest") == true)
    }

    @Test func malformedManifest() throws {
        let folder = try builder.build(folder: "badjson", manifest: nil)
        try Data("{\"id\": \"org.test.badjson\", ".utf8).write(to: folder.appendingPathComponent("manifest.json"))
        #expect(try record(try discover(), "badjson").reason?.contains("not valid JSON") == true)
        var fields = CPluginBuilder.manifest(id: "org.test.badjson")
        fields.removeValue(forKey: "library")
        try JSONSerialization.data(withJSONObject: fields).write(to: folder.appendingPathComponent("manifest.json"))
        #expect(try record(try discover(), "badjson").reason?.contains("\"library\" is missing") == true)
        // A field inside a list is named as its author writes it (it read "keywords.Index 0.phrase").
        fields = CPluginBuilder.manifest(id: "org.test.badjson", extra: ["keywords": [["phrase": 3]]])
        try JSONSerialization.data(withJSONObject: fields).write(to: folder.appendingPathComponent("manifest.json"))
        let listed = try record(try discover(), "badjson").reason ?? ""
        #expect(listed.contains("the field \"keywords[0].phrase\" has the wrong type"), "\(listed)")
        fields = CPluginBuilder.manifest(id: "org.test.badjson", extra: ["keywords": [["weight": 1]]])
        try JSONSerialization.data(withJSONObject: fields).write(to: folder.appendingPathComponent("manifest.json"))
        let missing = try record(try discover(), "badjson").reason ?? ""
        #expect(missing.contains("the field \"keywords[0].phrase\" is missing"), "\(missing)")
    }

    /// Issue 73, item 9: a manifest that gives a key twice is refused, whatever the key and however deep:
    /// Foundation read the first `"id"`, Python's `json` the last, so a tool checking the plugin saw another id
    /// than Assist loaded.
    @Test func aManifestThatGivesAKeyTwiceIsRefused() throws {
        let folder = try builder.build(folder: "twice", manifest: nil)
        let good = String(
            decoding: try JSONSerialization.data(withJSONObject: CPluginBuilder.manifest(id: "org.test.twice")),
            as: UTF8.self)
        for (text, key) in [
            (good.replacingOccurrences(of: "{", with: #"{"id": "org.test.other", "#, options: .anchored), "id"),
            (good.replacingOccurrences(of: "{", with: #"{"\u0069d": "org.test.other", "#, options: .anchored), "id"),
            (
                good.replacingOccurrences(
                    of: "{", with: #"{"x": {"a": 1, "b": [{"a": 2}], "a": 3}, "#, options: .anchored),
                "x.a"
            ),
        ] {
            try Data(text.utf8).write(to: folder.appendingPathComponent("manifest.json"))
            let plugins = try discover().features.records
            #expect(plugins.allSatisfy { $0.state != .available }, "\(text)")
            let reason = plugins.first?.reason ?? ""
            #expect(reason.contains("it gives the key \"\(key)\" twice"), "\(text): \(reason)")
        }
        // The same key in two objects, or in objects of a list, is no duplicate.
        #expect(
            JSONDuplicateKeys.first(in: Data(#"{"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]}"#.utf8)) == nil
        )
        #expect(JSONDuplicateKeys.first(in: Data(#"{"a": "k", "k": "a,\"k\":"}"#.utf8)) == nil)
        #expect(JSONDuplicateKeys.first(in: Data(#"[{"a": 1, "a": 2}]"#.utf8)) == "a")
    }

    @Test func entryThatDisagreesWithItsManifest() throws {
        try builder.build(
            folder: "mismatch", defines: ["PLUGIN_ID=\"org.test.other\""],
            manifest: CPluginBuilder.manifest(id: "org.test.mismatch"))
        let host = try discover()
        let refusal = try #require(host.features.load(try record(host, "org.test.mismatch")))
        #expect(refusal.message.contains("says it is org.test.other"))
    }

    @Test func abiMajorMismatchIsRefusedBeforeDlopen() throws {
        // The library would crash in init: refusing it without running it proves discovery never opens it.
        try builder.build(
            folder: "abi2", defines: ["INIT_CRASHES", "ABI_MAJOR=2"],
            manifest: CPluginBuilder.manifest(id: "org.test.abi2", abi: "2.0"))
        let host = try discover()
        let plugin = try record(host, "org.test.abi2")
        #expect(plugin.state == .incompatible)
        #expect(
            plugin.reason
                == "plugin built for ABI 2.0, host supports 1.\(ASSIST_ABI_MINOR); rebuild it against the installed assist_plugin.h"
        )
        #expect(host.features.load(plugin) != nil)
    }

    @Test func pluginNewerThanHost() throws {
        try builder.build(
            folder: "new", defines: ["ABI_MINOR=4"], manifest: CPluginBuilder.manifest(id: "org.test.new", abi: "1.4"))
        let plugin = try record(try discover(), "org.test.new")
        #expect(plugin.state == .incompatible)
        #expect(plugin.reason?.contains("plugin built for ABI 1.4, host supports 1.\(ASSIST_ABI_MINOR)") == true)
        try builder.build(
            folder: "minhost", manifest: CPluginBuilder.manifest(id: "org.test.minhost", extra: ["min_host": "1.3.0"]))
        #expect(try record(try discover(), "org.test.minhost").reason?.contains("needs Assist 1.3.0 or newer") == true)
    }

    @Test func requiredServiceMissing() throws {
        let services = ["required": ["assist.dialog/1", "assist.teleport/1"]]
        try builder.build(
            folder: "svc", manifest: CPluginBuilder.manifest(id: "org.test.svc", extra: ["services": services]))
        let plugin = try record(try discover(), "org.test.svc")
        #expect(plugin.state == .incompatible)
        #expect(plugin.reason?.contains("assist.teleport/1") == true)
    }

    @Test func duplicateIDKeepsTheFirst() throws {
        try builder.build(
            folder: "a-first", defines: ["PLUGIN_ID=\"org.test.dup\""],
            manifest: CPluginBuilder.manifest(id: "org.test.dup"))
        try builder.build(
            folder: "b-second", defines: ["PLUGIN_ID=\"org.test.dup\""],
            manifest: CPluginBuilder.manifest(id: "org.test.dup"))
        let records = try discover().features.records.filter { $0.id == "org.test.dup" }
        #expect(records.count == 2)
        #expect(records[0].state == .available)
        #expect(records[1].state == .disabled)
        #expect(records[1].reason?.contains("a-first") == true)
    }

    @Test func initFailure() throws {
        try builder.build(
            folder: "initfail", defines: ["INIT_FAILS", "PLUGIN_ID=\"org.test.initfail\""],
            manifest: CPluginBuilder.manifest(id: "org.test.initfail"))
        let host = try discover()
        let plugin = try record(host, "org.test.initfail")
        let refusal = try #require(host.features.load(plugin))
        #expect(refusal.state == .failedInit)
        #expect(plugin.state == .failedInit)
        #expect(refusal.message.contains("refused to start in init"))
    }

    /// The ABI's one rule: below 1.0's size is refused; a larger table (a newer 1.x header) is read as far
    /// as this host knows it.
    @Test func entryStructSizeIsChecked() throws {
        try builder.build(
            folder: "small", defines: ["ENTRY_SIZE=16", "PLUGIN_ID=\"org.test.small\""],
            manifest: CPluginBuilder.manifest(id: "org.test.small"))
        try builder.build(
            folder: "large", defines: ["ENTRY_SIZE=4096", "PLUGIN_ID=\"org.test.large\""],
            manifest: CPluginBuilder.manifest(id: "org.test.large"))
        let host = try discover()
        #expect(
            host.features.load(try record(host, "org.test.small"))?.message.contains("smaller than ABI 1.0") == true)
        #expect(host.features.load(try record(host, "org.test.large")) == nil)
    }

    @Test func createFailureSpeaksThePluginsReason() throws {
        try builder.build(
            folder: "createfail", defines: ["CREATE_FAILS", "PLUGIN_ID=\"org.test.createfail\""],
            manifest: CPluginBuilder.manifest(id: "org.test.createfail"))
        let host = try discover()
        let plugin = try record(host, "org.test.createfail")
        let features = host.features
        host.run(until: { true }) { _ = features.activate(plugin) }
        host.settle()
        #expect(host.output.lines.contains("The test plugin cannot be created."))
        #expect(host.speaker.spoken.contains("The test plugin cannot be created."))
        #expect(plugin.state == .failedInit)
    }
}

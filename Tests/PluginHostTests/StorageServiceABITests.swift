import Foundation
import HostTesting
import PluginHost
import Testing

/// A C plugin drives assist.storage/1: a real SQLite file in its data folder and real media files.
@Suite("Storage service through the ABI")
struct StorageServiceABITests {
    /// Builds the C fixture, runs it once with `arguments` until it ends, and returns the host.
    func runStoragePlugin(_ arguments: [String] = [], inHelper: Bool = false) throws -> TestHost {
        let root = try TemporaryDirectory("assist-storage-abi")
        let manifest = CPluginBuilder.manifest(
            id: "org.test.storage", extra: ["services": ["required": ["assist.storage/1"]]])
        try CPluginBuilder(root: root.url).build(folder: "storage", manifest: manifest, source: "storage_plugin.c")
        let host = try TestHost(pluginDirectories: [root.url], inHelperProcesses: inHelper)
        let features = host.features
        let plugin = try #require(features.record(id: "org.test.storage"))
        let ended = EndRecorder()
        features.onFeatureEnded = { record, status in ended.record(record.id, status) }
        host.run(timeoutSeconds: 10, until: { !ended.events.isEmpty }) {
            _ = features.activate(plugin, arguments: arguments)
        }
        return host
    }

    /// In process, and in a helper process (rows and parameters cross the socket): the plugin cannot tell.
    @Test(arguments: [false, true])
    func aPluginStoresReadsAndKeepsItsFilesInItsFolder(inHelper: Bool) throws {
        let host = try runStoragePlugin(inHelper: inHelper)
        let lines = host.output.lines
        #expect(lines.contains("Inserted 1; rows: id=1 label=кружка weight=0.25 photo=(type 4, 3 bytes)"), "\(lines)")
        #expect(
            lines.contains {
                $0.hasPrefix("Mistake: ASSIST_E_INVALID, The database refused a statement: near \"SELEC\"")
            })
        #expect(
            lines.contains(
                "Media: moved ASSIST_OK, used 10, quota set yes, escape ASSIST_E_PERMISSION, missing ASSIST_E_NOT_FOUND"
            ))
        let database = host.dataDirectory.path("plugins/org.test.storage/main.sqlite")
        #expect(FileManager.default.fileExists(atPath: database.path), "a real file in the plugin's own folder")
        let mode =
            try FileManager.default.attributesOfItem(atPath: database.deletingLastPathComponent().path)[
                .posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func aFullDiskAndAFullQuotaAreSaidOnceAndLoseNothing() throws {
        let host = try runStoragePlugin(["full"])
        let disk = "The disk is full. Free some space; nothing already stored was lost."
        let full = try #require(host.output.lines.first { $0.hasPrefix("Full after ") }, "\(host.output.lines)")
        let kept = try #require(Int(full.split(separator: " ")[2]))
        #expect(kept > 5 && full == "Full after \(kept) rows: ASSIST_E_IO, \(disk); kept n=\(kept)", "\(full)")
        let reserve = try #require(host.output.lines.first { $0.hasPrefix("Reserve: ") })
        #expect(
            reserve.hasPrefix("Reserve: ASSIST_E_IO then ASSIST_E_IO, This feature's storage is full"), "\(reserve)")
        let spoken = host.speaker.spoken
        #expect(spoken.filter { $0 == "Test org.test.storage: \(disk)" }.count == 1, "said once: \(spoken)")
        #expect(
            spoken.filter { $0.hasPrefix("Test org.test.storage: This feature's storage is full") }.count == 1,
            "the second refusal within a minute is not said again: \(spoken)")
    }
}

import AssistCore
import Foundation
import HostTesting
import PluginHost
import Testing

/// A C plugin drives assist.storage/1: a real SQLite file in its data folder and real media files.
@Suite("Storage service through the ABI")
struct StorageServiceABITests {
    /// Builds the C fixture, runs it once with `arguments` until it ends, and returns the host.
    func runStoragePlugin(_ arguments: [String] = [], inHelper: Bool = false, quotaMB: Int64? = nil) throws -> TestHost
    {
        let root = try TemporaryDirectory("assist-storage-abi")
        let manifest = CPluginBuilder.manifest(
            id: "org.test.storage", extra: ["services": ["required": ["assist.storage/1"]]])
        try CPluginBuilder(root: root.url).build(folder: "storage", manifest: manifest, source: "storage_plugin.c")
        let settings = SettingsStore()
        if let quotaMB { settings.apply(["storage.quota-mb": .int(quotaMB)], admin: false) }
        let host = try TestHost(pluginDirectories: [root.url], settings: settings, inHelperProcesses: inHelper)
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
        let media = try #require(lines.first { $0.hasPrefix("Media: ") }, "\(lines)")
        #expect(media.hasPrefix("Media: moved ASSIST_OK, used "))
        #expect(media.hasSuffix(", quota set yes, escape ASSIST_E_PERMISSION, missing ASSIST_E_NOT_FOUND"))
        // The quota counts the database beside the 10 bytes of media.
        let used = Int(media.split(separator: " ")[4].dropLast()) ?? 0
        #expect(used > 10 + 4_096, "\(media)")
        let database = host.dataDirectory.path("plugins/org.test.storage/main.sqlite")
        #expect(FileManager.default.fileExists(atPath: database.path), "a real file in the plugin's own folder")
        let mode =
            try FileManager.default.attributesOfItem(atPath: database.deletingLastPathComponent().path)[
                .posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    /// `storage.quota-mb` counts the databases with the media: rows past it are refused with the quota's "full"
    /// (said once), what was stored before stays, and the page limit that holds the database is not the
    /// plugin's to lift.
    @Test func aFullQuotaStopsTheDatabaseToAndIsSaidOnceLosingNothing() throws {
        let host = try runStoragePlugin(["full"], quotaMB: 1)
        let full = try #require(host.output.lines.first { $0.hasPrefix("Full after ") }, "\(host.output.lines)")
        let kept = try #require(Int(full.split(separator: " ")[2]))
        #expect(kept > 500 && kept < 1_100, "about 1 MB of 1,000-byte rows: \(full)")
        #expect(full.hasPrefix("Full after \(kept) rows: ASSIST_E_IO, This feature's storage is full"), "\(full)")
        #expect(full.hasSuffix("; kept n=\(kept) ; pragma ASSIST_E_PERMISSION"), "\(full)")
        let reserve = try #require(host.output.lines.first { $0.hasPrefix("Reserve: ") })
        #expect(
            reserve.hasPrefix("Reserve: ASSIST_E_IO then ASSIST_E_IO, This feature's storage is full"), "\(reserve)")
        let spoken = host.speaker.spoken
        #expect(
            spoken.filter { $0.hasPrefix("Test org.test.storage: This feature's storage is full") }.count == 1,
            "said once, the database's and the media's alike: \(spoken)")
        #expect(
            spoken.filter { $0.contains("asked the storage for something only Assist may do") }.count == 1,
            "the refused pragma is said once: \(spoken)")
        let database = host.dataDirectory.path("plugins/org.test.storage/full.sqlite").path
        var info = stat()
        #expect(lstat(database, &info) == 0 && info.st_size <= 1_048_576 + 65_536, "\(info.st_size)")
    }
}

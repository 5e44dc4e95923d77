import AssistCore
import Foundation
import PluginAPI
import Storage

/// A plugin's open databases and its media store.
// because: `databases` and `lastSaid` are guarded by `lock`; the media store is a value
final class StorageState: @unchecked Sendable {
    let lock = NSLock()
    /// Open databases by name; the handle given to the plugin points at the `DatabaseHandle`.
    var databases: [String: DatabaseHandle] = [:]
    /// When a full disk or a full quota was last said.
    var lastSaid: [StorageError.Code: Double] = [:]
}

/// What an `assist_db *` points at.
final class DatabaseHandle {
    let database: PluginDatabase
    init(_ database: PluginDatabase) { self.database = database }
    var pointer: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }
}

extension PluginContext {
    /// The plugin's private data folder.
    var dataFolder: URL { hub.paths.data.appendingPathComponent("plugins").appendingPathComponent(id) }

    /// The plugin's media store: `<data>/plugins/<id>/media`, cache `<cache>/plugins/<id>`, quota from
    /// `storage.quota-mb` (default 4096 MB).
    var mediaStore: MediaStore {
        var megabytes: Int64 = 4_096
        if let configured = hub.settings.value("storage.quota-mb")?.integer, configured > 0 { megabytes = configured }
        return MediaStore(
            media: dataFolder.appendingPathComponent("media"),
            cache: hub.paths.cache.appendingPathComponent("plugins").appendingPathComponent(id),
            quotaBytes: megabytes * 1_048_576)
    }

    /// A full disk or a full quota needs the user: it is said aloud, naming the feature, at most once a minute
    /// for each of the two (the quota's figures change as files come and go); the plugin gets the same sentence
    /// as its error. Any thread.
    func sayIfUserMustAct(_ error: StorageError) {
        guard error.code == .full || error.code == .quota else { return }
        let now = ProcessInfo.processInfo.systemUptime
        let due = storageState.lock.withLock {
            if let last = storageState.lastSaid[error.code], now - last < 60 { return false }
            storageState.lastSaid[error.code] = now
            return true
        }
        guard due else { return }
        let text = hub.interaction.phrases.text(
            "storage.trouble", ["feature": manifest.name, "message": error.message])
        let announcer = hub.interaction.announcer
        hub.loop.post { announcer.say(text, priority: .important) }
    }

    /// Opens (once) the database `name`.
    func openDatabase(_ name: String) throws(StorageError) -> DatabaseHandle {
        let allowed = name.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_"
        }
        guard !name.isEmpty, name.count <= 64, allowed else { throw .badPath(name) }
        storageState.lock.lock()
        defer { storageState.lock.unlock() }
        if let open = storageState.databases[name] { return open }
        do { try AssistPaths.ensurePrivateDirectory(dataFolder) } catch {
            throw .io("Creating \(dataFolder.path)", cause: error.localizedDescription)
        }
        let handle = DatabaseHandle(try PluginDatabase(url: dataFolder.appendingPathComponent("\(name).sqlite")))
        storageState.databases[name] = handle
        return handle
    }

    /// The handle behind a plugin's `assist_db *`, if it is one of this plugin's.
    func database(_ pointer: OpaquePointer?) -> PluginDatabase? {
        guard let pointer else { return nil }
        return storageState.lock.withLock { storageState.databases.values.first { $0.pointer == pointer }?.database }
    }
}

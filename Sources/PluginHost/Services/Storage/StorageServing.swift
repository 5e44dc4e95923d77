import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech
import Storage

/// assist.storage/1: the plugin's databases and media files.
package protocol StorageProviding: Sendable {
    /// Opens (once) the database `name` in the plugin's data folder, confined. Any thread.
    func openDatabase(_ name: String) throws(StorageError) -> PluginDatabase
    /// Keeps `database` inside what is left of the quota; `now` sets it again at once. Any thread.
    func holdToQuota(_ database: PluginDatabase, now: Bool)
    /// The plugin's media store (`<data>/media`, its cache, its quota). Any thread.
    var media: MediaStore { get }
    /// Says a full disk or a full quota aloud, naming the feature, at most once a minute for each; other
    /// errors are the plugin's to handle. Any thread.
    func sayIfUserMustAct(_ error: StorageError)
}

/// The plugin's databases (opened once each) and media store.
final class LocalStorage: StorageProviding, @unchecked Sendable {  // because: `databases`, `lastSaid` under `lock`
    let folders: PluginFolders
    let settings: SettingsStore
    let dialogs: any DialogProviding
    let featureName: String
    private let lock = NSLock()
    private var databases: [String: PluginDatabase] = [:]
    private var lastSaid: [StorageError.Code: Double] = [:]
    /// When each database's size limit was last set from the quota (`systemUptime`).
    private var limited: [ObjectIdentifier: UInt64] = [:]

    /// The databases one plugin may have open.
    static let openDatabases = 32

    init(folders: PluginFolders, settings: SettingsStore, dialogs: any DialogProviding, featureName: String) {
        self.folders = folders
        self.settings = settings
        self.dialogs = dialogs
        self.featureName = featureName
    }

    func openDatabase(_ name: String) throws(StorageError) -> PluginDatabase {
        let allowed = name.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_"
        }
        guard !name.isEmpty, name.count <= 64, allowed else { throw .badPath(name) }
        lock.lock()
        defer { lock.unlock() }
        if let open = databases[name] { return open }
        // Each open database keeps its own page cache (SQLite's 2 MB; `cache_size` is the host's): with this
        // many at most, and one statement's growth held to `storage.memory-mb`, a plugin's memory is bounded.
        guard databases.count < Self.openDatabases else {
            throw .refused(
                .memory, "more than \(Self.openDatabases) databases open at once; keep data in fewer", cause: nil)
        }
        do { try AssistPaths.ensurePrivateDirectory(folders.data) } catch {
            throw .io("Creating \(folders.data.path)", cause: error.localizedDescription)
        }
        let database = try PluginDatabase(
            url: folders.data.appendingPathComponent("\(name).sqlite"), confined: confinement)
        databases[name] = database
        limited[ObjectIdentifier(database)] = nil
        return database
    }

    /// What a plugin's SQL keeps to: `storage.statement-seconds` (default 5) and `storage.memory-mb` (256).
    var confinement: Confinement {
        var confinement = Confinement()
        if let seconds = settings.value("storage.statement-seconds")?.number, seconds > 0 {
            confinement.statementSeconds = min(seconds, 600)
        }
        if let megabytes = settings.value("storage.memory-mb")?.integer, megabytes > 0 {
            confinement.memoryBytes = min(megabytes, 65_536) << 20
        }
        return confinement
    }

    /// Lets `database` grow only into what is left of the quota (media and the other databases counted), set
    /// again at most every 2 s, and at once with `now`.
    func holdToQuota(_ database: PluginDatabase, now: Bool = false) {
        // Called before every statement: a key and a clock that cost nanoseconds (a URL's name cost microseconds,
        // which made 100k inserts four times slower).
        let key = ObjectIdentifier(database)
        let time = DispatchTime.now().uptimeNanoseconds
        let due = lock.withLock {
            if !now, let last = limited[key], time &- last < 2_000_000_000 { return false }
            limited[key] = time
            return true
        }
        guard due else { return }
        let store = media
        database.limitSize(toBytes: store.quotaBytes - store.usage() + database.bytesOnDisk)
    }

    /// `<data>/media`, cache `<cache>`, quota from `storage.quota-mb` (default 4096 MB) over them and the
    /// databases.
    var media: MediaStore {
        var megabytes: Int64 = 4_096
        if let configured = settings.value("storage.quota-mb")?.integer, configured > 0 { megabytes = configured }
        return MediaStore(
            media: folders.data.appendingPathComponent("media"), cache: folders.cache,
            quotaBytes: megabytes * 1_048_576, databases: folders.data)
    }

    func sayIfUserMustAct(_ error: StorageError) {
        guard error.code == .full || error.code == .quota else { return }
        let now = ProcessInfo.processInfo.systemUptime
        let due = lock.withLock {
            if let last = lastSaid[error.code], now - last < 60 { return false }
            lastSaid[error.code] = now
            return true
        }
        guard due else { return }
        dialogs.sayPhrase("storage.trouble", ["feature": featureName, "message": error.message], priority: .important)
    }
}

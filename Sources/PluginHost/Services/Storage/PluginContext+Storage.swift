import Foundation
import PluginAPI
import Storage

/// The database handles handed to a plugin: an `assist_db *` points at the `PluginDatabase` itself, and is
/// honoured only when it is one of these.
final class StorageState: @unchecked Sendable {  // because: `handles` is guarded by `lock`
    let lock = NSLock()
    var handles: [OpaquePointer: PluginDatabase] = [:]
}

extension PluginContext {
    /// Opens (once) the database `name` through the storage service and returns the plugin's handle for it.
    func openDatabase(_ name: String) throws(StorageError) -> OpaquePointer {
        let database = try services.storage.openDatabase(name)
        let pointer = OpaquePointer(Unmanaged.passUnretained(database).toOpaque())
        storageState.lock.withLock { storageState.handles[pointer] = database }
        return pointer
    }

    /// Rolls back what the plugin left half-done in its databases; they are not used again (a new load opens
    /// new handles). For a plugin whose helper process died.
    func abandonDatabases() {
        let databases = storageState.lock.withLock { Array(storageState.handles.values) }
        databases.forEach { $0.abandon() }
    }

    /// The database behind a plugin's `assist_db *`, if it is one of this plugin's.
    func database(_ pointer: OpaquePointer?) -> PluginDatabase? {
        guard let pointer else { return nil }
        return storageState.lock.withLock { storageState.handles[pointer] }
    }
}

import Foundation

/// One of a plugin's own SQLite files (in its data folder) that SQLite cannot read: found by its first bytes or by
/// the storage service's sentence, and kept aside under a dated name, with its journal files, so that the plugin
/// can start a new one and nothing is deleted (find-object's things, barcode's labels: `--start-again`).
///
///     let labels = DamagedDatabase(file: "labels.sqlite")
///     if labels.isDamaged(in: host.dataDirectory) { … say so, and name the way out … }
///     let kept = try labels.keepAside(in: folder, at: Date())
public struct DamagedDatabase: Sendable {
    /// The file's name in the plugin's data folder ("things.sqlite").
    public let file: String

    public init(file: String) { self.file = file }

    /// True when `folder` holds the file and it is not an SQLite database (its first 16 bytes are not "SQLite
    /// format 3" and a NUL). An empty file is a new database to SQLite, not a damaged one.
    public func isDamaged(in folder: String?) -> Bool {
        guard let folder, let handle = FileHandle(forReadingAtPath: folder + "/" + file) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        return !head.isEmpty && head != Data("SQLite format 3\u{0}".utf8)
    }

    /// True when the storage service found a database damaged when it opened or read it (its sentence says so).
    public static func saysDamaged(_ error: PluginStatus) -> Bool { error.message.contains(" is damaged (") }

    /// Moves the file and its journal files to `FILE.damaged-YYYYMMDD-HHMMSS` (and `…-wal`, `…-shm`, `…-journal`
    /// beside it); the new path.
    public func keepAside(in folder: String, at date: Date) throws -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMdd-HHmmss"
        let kept = "\(folder)/\(file).damaged-\(format.string(from: date))"
        try FileManager.default.moveItem(atPath: "\(folder)/\(file)", toPath: kept)
        for suffix in ["-wal", "-shm", "-journal"]
        where FileManager.default.fileExists(atPath: "\(folder)/\(file)\(suffix)") {
            try FileManager.default.moveItem(atPath: "\(folder)/\(file)\(suffix)", toPath: kept + suffix)
        }
        return kept
    }
}

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

    /// True when `error`, met opening or reading the file in `folder`, is the file being damaged.
    public func isDamaged(in folder: String?, failing error: PluginStatus) -> Bool {
        isDamaged(in: folder) || Self.saysDamaged(error)
    }

    /// What `startAgain` did.
    public enum StartedAgain: Sendable {
        /// The file can be read: nothing was moved.
        case notDamaged
        /// The file was kept aside at this path.
        case keptAside(String)
    }

    /// A plugin's `--start-again`: when the file in `folder` is damaged (by its first bytes, or as `open`, which
    /// opens it through the storage service, finds it), it is kept aside (`keepAside`); a file that can be read is
    /// left alone. Throws `open`'s error when it fails for another reason, and the file system's when the file
    /// cannot be moved (`StartAgainError`).
    public func startAgain(in folder: String, at date: Date = Date(), opening open: () throws(PluginStatus) -> Void)
        throws(StartAgainError) -> StartedAgain
    {
        if !isDamaged(in: folder) {
            do { try open() } catch {
                guard Self.saysDamaged(error) else { throw .unreadable(error) }
                return try keptAside(in: folder, at: date)
            }
            return .notDamaged
        }
        return try keptAside(in: folder, at: date)
    }

    private func keptAside(in folder: String, at date: Date) throws(StartAgainError) -> StartedAgain {
        do { return .keptAside(try keepAside(in: folder, at: date)) } catch {
            throw .notMoved(error.localizedDescription)
        }
    }

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

/// Why `DamagedDatabase.startAgain` did nothing.
public enum StartAgainError: Error, Sendable {
    /// The file could not be opened, for a reason other than damage: the storage service's.
    case unreadable(PluginStatus)
    /// The damaged file could not be moved aside: the file system's reason.
    case notMoved(String)
}

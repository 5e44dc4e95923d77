import Foundation
import PluginKit

/// A things file SQLite cannot read (issue 73, item 6): said with the way out, and kept aside on request.
extension FindObject {
    /// Why the things cannot be read, and, when their file is damaged, the way out (issue 73, item 6: teaching
    /// was refused for good, and a search went on as if nothing was taught).
    func unreadableThings(_ error: PluginStatus) -> String {
        let said = phrases.text("things-unreadable", ["reason": error.message])
        let damaged = ThingFile.isDamaged(in: host.dataDirectory) || ThingFile.saysDamaged(error)
        return damaged ? said + " " + phrases.text("things-start-again") : said
    }

    /// `things --start-again`: a damaged things file is kept aside (`things.sqlite.damaged-DATE`, with its journal),
    /// and the next teach starts a new one. A file that can be read is left alone.
    func startAgain() throws(PluginError) -> Bool {
        guard let folder = host.dataDirectory else { throw PluginError(phrases.text("things-usage")) }
        var damaged = ThingFile.isDamaged(in: folder)
        if !damaged {
            do { _ = try ThingStore(host: host) } catch {
                guard ThingFile.saysDamaged(error) else { throw PluginError(unreadableThings(error)) }
                damaged = true
            }
        }
        guard damaged else { throw PluginError(phrases.text("things-not-damaged")) }
        do {
            let kept = try ThingFile.keepAside(in: folder, at: Date())
            host.speak(phrases.text("things-kept-aside", ["path": kept]))
            host.finish()
        } catch {
            throw PluginError(phrases.text("things-not-moved", ["reason": "\(error.localizedDescription)"]))
        }
        return true
    }
}

/// The things' database file, when SQLite cannot read it (issue 73, item 6): found by its first bytes, and kept
/// aside under a dated name so that a new one can be started and nothing is deleted.
enum ThingFile {
    static let name = "things.sqlite"

    /// True when `folder` holds a things file that is not an SQLite database (its first 16 bytes are not
    /// "SQLite format 3" and a NUL), or one SQLite finds damaged when it checks it.
    static func isDamaged(in folder: String?) -> Bool {
        guard let folder else { return false }
        let path = folder + "/" + name
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        let head = (try? file.read(upToCount: 16)) ?? Data()
        // An empty file is a new database to SQLite.
        return !head.isEmpty && head != Data("SQLite format 3\u{0}".utf8)
    }

    /// True when SQLite found the file damaged (the storage service's sentence says so).
    static func saysDamaged(_ error: PluginStatus) -> Bool { error.message.contains(" is damaged (") }

    /// Moves the file and its journal files to `things.sqlite.damaged-YYYYMMDD-HHMMSS` (and `…-wal`, `…-shm`,
    /// `…-journal` beside it); the new path.
    static func keepAside(in folder: String, at date: Date) throws -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyyMMdd-HHmmss"
        let kept = "\(folder)/\(name).damaged-\(format.string(from: date))"
        try FileManager.default.moveItem(atPath: "\(folder)/\(name)", toPath: kept)
        for suffix in ["-wal", "-shm", "-journal"]
        where FileManager.default.fileExists(atPath: "\(folder)/\(name)\(suffix)") {
            try FileManager.default.moveItem(atPath: "\(folder)/\(name)\(suffix)", toPath: kept + suffix)
        }
        return kept
    }
}

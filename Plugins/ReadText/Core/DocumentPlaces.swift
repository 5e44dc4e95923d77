import Digest
import Foundation
import PluginKit

/// Where reading stopped in each document (issue 70, item 2): re-opened, a document goes on from there, asked
/// first. A document is known by its content, not its name or folder: the SHA-256 of its size and its first and
/// last mebibyte, so a copy elsewhere is the same document and a new bill saved under last month's name is not.
/// Neither the name nor the path is kept. Kept in read-text's own database (`places`), the last 200 documents.
struct DocumentPlaces {
    /// A place in a document: its page (from 1) and the sentence on that page (from 1), of `pages`.
    struct Place: Equatable {
        var page: Int
        var item: Int
        var pages: Int
    }

    static let kept = 200
    private let database: PluginDatabaseHandle

    init(host: PluginHostHandle) throws(PluginStatus) {
        database = try PluginDatabaseHandle(
            host: host, name: "places",
            migrations: [
                """
                CREATE TABLE place (document TEXT PRIMARY KEY, page INTEGER NOT NULL, item INTEGER NOT NULL,
                  pages INTEGER NOT NULL, at INTEGER NOT NULL);
                """
            ])
    }

    /// The key of the document at `url`; nil when it cannot be read.
    static func key(of url: URL) -> String? {
        guard let file = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? file.close() }
        guard let size = try? file.seekToEnd() else { return nil }
        let window: UInt64 = 1 << 20
        var digest = SHA256Digest()
        digest.update(data: Data("\(size)\n".utf8))
        do {
            try file.seek(toOffset: 0)
            digest.update(data: try file.read(upToCount: Int(window)) ?? Data())
            if size > window {
                try file.seek(toOffset: max(window, size - window))
                digest.update(data: try file.read(upToCount: Int(window)) ?? Data())
            }
        } catch { return nil }
        return SHA256Digest.hexadecimal(digest.finalize())
    }

    /// Where reading stopped in `document`; nil when it was never left partway.
    func place(of document: String) -> Place? {
        var found: Place?
        try? database.execute("SELECT page, item, pages FROM place WHERE document = ?", [.text(document)]) { row in
            guard row.count == 3, let page = Int(row[0]), let item = Int(row[1]), let pages = Int(row[2]) else {
                return
            }
            found = Place(page: page, item: item, pages: pages)
        }
        return found
    }

    /// Keeps `place` for `document`, and only the last `kept` documents' places.
    func keep(_ place: Place, of document: String) throws(PluginStatus) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try database.transaction { () throws(PluginStatus) in
            try database.execute(
                "INSERT OR REPLACE INTO place (document, page, item, pages, at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(document), .integer(Int64(place.page)), .integer(Int64(place.item)),
                    .integer(Int64(place.pages)), .integer(now),
                ])
            try database.execute(
                "DELETE FROM place WHERE document NOT IN (SELECT document FROM place ORDER BY at DESC LIMIT ?)",
                [.integer(Int64(Self.kept))])
        }
    }

    /// Forgets `document`'s place: it was read to its end.
    func forget(_ document: String) throws(PluginStatus) {
        try database.execute("DELETE FROM place WHERE document = ?", [.text(document)])
    }
}

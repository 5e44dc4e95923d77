import Foundation
import PluginKit

/// A person's own names for codes, in barcode's database ("labels"): one row per code, under the code's key
/// (`CodeText.key`), with the kind and the code as read, the name as given, and its comparison key (NameKey).
struct LabelStore {
    let database: PluginDatabaseHandle
    /// Its file in barcode's data folder, for when SQLite cannot read it (`labels --start-again`).
    static let file = DamagedDatabase(file: "labels.sqlite")

    struct Label: Equatable {
        var key: String
        var kind: String
        var code: String
        var name: String

        init(key: String, kind: String, code: String, name: String) {
            self.key = key
            self.kind = kind
            self.code = code
            self.name = name
        }

        /// A row of `SELECT key, kind, code, name`.
        init?(row: [String]) {
            guard row.count == 4 else { return nil }
            self.init(key: row[0], kind: row[1], code: row[2], name: row[3])
        }
    }

    init(host: PluginHostHandle) throws(PluginStatus) {
        database = try PluginDatabaseHandle(
            host: host, name: "labels",
            migrations: [
                """
                CREATE TABLE labels (key TEXT PRIMARY KEY, kind TEXT NOT NULL, code TEXT NOT NULL,
                  name TEXT NOT NULL, name_key TEXT NOT NULL, saved_at INTEGER NOT NULL);
                CREATE INDEX labels_by_name ON labels(name_key);
                """,
                // Names the product lookup gave (barcode.lookup-url): a code looked up once is not sent again.
                """
                CREATE TABLE looked_up (key TEXT PRIMARY KEY, name TEXT NOT NULL, looked_up_at INTEGER NOT NULL);
                """,
            ])
    }

    /// The name the product lookup gave for the code under `key`.
    func lookedUp(key: String) throws(PluginStatus) -> String? {
        var name: String?
        try database.execute("SELECT name FROM looked_up WHERE key = ?", [.text(key)]) { row in name = row.first }
        return name
    }

    /// Keeps the name the product lookup gave for `key`.
    func saveLookedUp(key: String, name: String) throws(PluginStatus) {
        try database.execute(
            """
            INSERT INTO looked_up (key, name, looked_up_at) VALUES (?, ?, ?)
            ON CONFLICT(key) DO UPDATE SET name = excluded.name, looked_up_at = excluded.looked_up_at
            """, [.text(key), .text(name), .integer(Int64(Date().timeIntervalSince1970))])
    }

    /// Every label, by name.
    func all() throws(PluginStatus) -> [Label] {
        var labels: [Label] = []
        try database.execute("SELECT key, kind, code, name FROM labels ORDER BY name_key, key") { row in
            if let label = Label(row: row) { labels.append(label) }
        }
        return labels
    }

    /// The label kept for the code under `key`.
    func label(forKey key: String) throws(PluginStatus) -> Label? {
        var found: Label?
        try database.execute("SELECT key, kind, code, name FROM labels WHERE key = ?", [.text(key)]) { row in
            found = Label(row: row) ?? found
        }
        return found
    }

    /// The label called `name` (compared as NameKey compares), or kept under the code `name` spells.
    func label(named name: String) throws(PluginStatus) -> Label? {
        var found: Label?
        try database.execute(
            "SELECT key, kind, code, name FROM labels WHERE name_key = ? OR code = ? ORDER BY key LIMIT 1",
            [.text(NameKey.of(name)), .text(NameKey.cleaned(name))]
        ) { row in
            found = Label(row: row) ?? found
        }
        return found
    }

    /// Saves `label` (replacing the code's earlier name).
    func save(_ label: Label) throws(PluginStatus) {
        try database.execute(
            """
            INSERT INTO labels (key, kind, code, name, name_key, saved_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(key) DO UPDATE SET name = excluded.name, name_key = excluded.name_key,
              saved_at = excluded.saved_at
            """,
            [
                .text(label.key), .text(label.kind), .text(label.code), .text(label.name),
                .text(NameKey.of(label.name)), .integer(Int64(Date().timeIntervalSince1970)),
            ])
    }

    func delete(key: String) throws(PluginStatus) {
        try database.execute("DELETE FROM labels WHERE key = ?", [.text(key)])
    }
}

/// Why a name cannot be a label, as a phrase key; nil when it can (barcode.md: at most 100 characters, no
/// control characters, not empty, not only "my" or "the", not the name of another code).
enum LabelName {
    static let longest = 100

    static func problem(_ name: String, existing: LabelStore.Label?, forKey key: String) -> String? {
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "label-control"
        }
        let cleaned = NameKey.cleaned(name)
        if cleaned.isEmpty { return "label-empty" }
        if cleaned.count > longest { return "label-long" }
        if NameKey.isFillerOnly(cleaned) { return "label-filler" }
        if let existing, existing.key != key { return "label-taken" }
        return nil
    }
}

import Foundation
import PluginKit

/// `aware_photos.sqlite` in the plugin's data folder (photo-sensor spec §4), through the host's storage
/// service: the two AWARE tables under their original names, and the sensor's private index and state.
public final class SensorStore {
    private let database: PluginDatabaseHandle

    /// One `ios_photos` row.
    public struct PhotoRow: Equatable, Sendable {
        public var id: Int64 = 0
        public var timestamp: Int64
        public var deviceId: String
        public var label: String
        public var localIdentifier: String
        public var mediaType: Int
        public var mediaWidth: Int
        public var mediaHeight: Int
        public var creationTimestamp: Int64
        public var duration: Double
        public var timezone: Int
    }

    /// What the index knows of a path.
    public struct SeenFile: Equatable, Sendable {
        public var path: String
        public var size: Int64
        public var mtimeNs: Int64
        public var sha256: String
        public var mediaType: Int
        public var recorded: Bool
        public var recognitionDone: Bool

        public init(
            path: String, size: Int64, mtimeNs: Int64, sha256: String, mediaType: Int, recorded: Bool,
            recognitionDone: Bool
        ) {
            self.path = path
            self.size = size
            self.mtimeNs = mtimeNs
            self.sha256 = sha256
            self.mediaType = mediaType
            self.recorded = recorded
            self.recognitionDone = recognitionDone
        }
    }

    public init(host: PluginHostHandle) throws(PluginStatus) {
        database = try PluginDatabaseHandle(
            host: host, name: "aware_photos",
            migrations: [
                """
                CREATE TABLE ios_photos (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp INTEGER NOT NULL,
                    deviceId TEXT NOT NULL, label TEXT, localIdentifier TEXT NOT NULL, mediaType INTEGER NOT NULL,
                    mediaWidth INTEGER NOT NULL, mediaHeight INTEGER NOT NULL, creationTimestamp INTEGER NOT NULL,
                    duration REAL NOT NULL, isFavorite BOOLEAN NOT NULL, os TEXT NOT NULL, timezone INTEGER NOT NULL,
                    jsonVersion INTEGER NOT NULL);
                CREATE TABLE ios_photos_recognition (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp INTEGER NOT NULL,
                    deviceId TEXT NOT NULL, label TEXT, photoLocalIdentifier TEXT NOT NULL,
                    recognitionLabel TEXT NOT NULL, confidence REAL NOT NULL, recognitionType TEXT NOT NULL,
                    os TEXT NOT NULL, timezone INTEGER NOT NULL, jsonVersion INTEGER NOT NULL);
                CREATE TABLE seen_files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
                    sha256 TEXT NOT NULL, media_type INTEGER NOT NULL, recorded INTEGER NOT NULL,
                    recognition_done INTEGER NOT NULL);
                CREATE TABLE sync_state (table_name TEXT PRIMARY KEY, last_uploaded_id INTEGER NOT NULL);
                CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """
            ])
    }

    // MARK: Settings

    static let deviceKey = "com.aware.ios.sensor.core.key.deviceid"

    public func value(_ key: String) throws(PluginStatus) -> String? {
        var found: String?
        try database.execute("SELECT value FROM settings WHERE key = ?", [.text(key)]) { found = $0[0] }
        return found
    }

    public func setValue(_ value: String, for key: String) throws(PluginStatus) {
        try database.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", [.text(key), .text(value)])
    }

    /// The device id: a random UUID made once and kept (a lost one is made again).
    public func deviceID() throws(PluginStatus) -> String {
        if let id = try value(Self.deviceKey), !id.isEmpty { return id }
        let id = UUID().uuidString
        try setValue(id, for: Self.deviceKey)
        return id
    }

    // MARK: The index

    public func seen(_ path: String) throws(PluginStatus) -> SeenFile? {
        var found: SeenFile?
        try database.execute(
            "SELECT path, size, mtime_ns, sha256, media_type, recorded, recognition_done FROM seen_files WHERE path = ?",
            [.text(path)]
        ) { found = Self.seenFile($0) }
        return found
    }

    public func allSeen() throws(PluginStatus) -> [SeenFile] {
        var found: [SeenFile] = []
        try database.execute(
            "SELECT path, size, mtime_ns, sha256, media_type, recorded, recognition_done FROM seen_files"
        ) { row in Self.seenFile(row).map { found.append($0) } }
        return found
    }

    private static func seenFile(_ row: [String]) -> SeenFile? {
        guard row.count == 7 else { return nil }
        return SeenFile(
            path: row[0], size: Int64(row[1]) ?? 0, mtimeNs: Int64(row[2]) ?? 0, sha256: row[3],
            mediaType: Int(row[4]) ?? 0, recorded: row[5] == "1", recognitionDone: row[6] == "1")
    }

    public func index(_ file: SeenFile) throws(PluginStatus) {
        try database.execute(
            "INSERT OR REPLACE INTO seen_files VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(file.path), .integer(file.size), .integer(file.mtimeNs), .text(file.sha256),
                .integer(Int64(file.mediaType)), .integer(file.recorded ? 1 : 0),
                .integer(file.recognitionDone ? 1 : 0),
            ])
    }

    /// A rename inside the watched tree: the entry follows the file (for a folder, everything below it).
    public func move(from old: String, to new: String) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            try database.execute("UPDATE OR REPLACE seen_files SET path = ? WHERE path = ?", [.text(new), .text(old)])
            try database.execute(
                "UPDATE OR REPLACE seen_files SET path = ? || substr(path, ?) WHERE substr(path, 1, ?) = ?",
                [
                    .text(new), .integer(Int64(old.utf8.count + 1)), .integer(Int64(old.utf8.count + 1)),
                    .text(old + "/"),
                ])
        }
    }

    /// Forgets index entries whose files are gone (catch-up).
    public func forget(_ paths: [String]) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            for path in paths { try database.execute("DELETE FROM seen_files WHERE path = ?", [.text(path)]) }
        }
    }

    // MARK: Rows

    /// Writes the row and marks the file recorded, in one transaction; returns the row's id.
    public func record(_ row: PhotoRow, file: SeenFile) throws(PluginStatus) -> Int64 {
        try database.transaction { () throws(PluginStatus) -> Int64 in
            try database.execute(
                """
                INSERT INTO ios_photos (timestamp, deviceId, label, localIdentifier, mediaType, mediaWidth,
                    mediaHeight, creationTimestamp, duration, isFavorite, os, timezone, jsonVersion)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'Linux', ?, 1)
                """,
                [
                    .integer(row.timestamp), .text(row.deviceId), .text(row.label), .text(row.localIdentifier),
                    .integer(Int64(row.mediaType)), .integer(Int64(row.mediaWidth)), .integer(Int64(row.mediaHeight)),
                    .integer(row.creationTimestamp), .real(row.duration), .integer(Int64(row.timezone)),
                ])
            var id: Int64 = 0
            try database.execute("SELECT last_insert_rowid()") { id = Int64($0[0]) ?? 0 }
            var recorded = file
            recorded.recorded = true
            try index(recorded)
            return id
        }
    }

    // MARK: Recognition

    /// Recorded pictures still owed recognition (spec §3.18), oldest first: what a restart resumes.
    public func owedRecognition() throws(PluginStatus) -> [SeenFile] {
        var found: [SeenFile] = []
        try database.execute(
            """
            SELECT path, size, mtime_ns, sha256, media_type, recorded, recognition_done FROM seen_files
            WHERE recognition_done = 0 AND recorded = 1 AND media_type = 1 ORDER BY rowid
            """
        ) { row in Self.seenFile(row).map { found.append($0) } }
        return found
    }

    /// One `ios_photos_recognition` row per label and the picture marked done, in one transaction (no label:
    /// only the mark). `labels` are (name, confidence).
    public func recordRecognition(
        of file: SeenFile, labels: [(String, Double)], deviceId: String, label: String, at time: Date
    ) throws(PluginStatus) {
        let timestamp = Int64(time.timeIntervalSince1970 * 1000)
        let zone = TimeZone.current.secondsFromGMT(for: time) / 3600
        try database.transaction { () throws(PluginStatus) in
            for (name, confidence) in labels {
                try database.execute(
                    """
                    INSERT INTO ios_photos_recognition (timestamp, deviceId, label, photoLocalIdentifier,
                        recognitionLabel, confidence, recognitionType, os, timezone, jsonVersion)
                    VALUES (?, ?, ?, ?, ?, ?, 'detection', 'Linux', ?, 1)
                    """,
                    [
                        .integer(timestamp), .text(deviceId), .text(label),
                        .text("\(file.path)#sha256:\(file.sha256)"), .text(name), .real(confidence),
                        .integer(Int64(zone)),
                    ])
            }
            try database.execute(
                "UPDATE seen_files SET recognition_done = 1 WHERE path = ? AND sha256 = ?",
                [.text(file.path), .text(file.sha256)])
        }
    }

    public func recognitionCount() throws(PluginStatus) -> Int {
        var count = 0
        try database.execute("SELECT count(*) FROM ios_photos_recognition") { count = Int($0[0]) ?? 0 }
        return count
    }

    public func photoCount() throws(PluginStatus) -> Int {
        var count = 0
        try database.execute("SELECT count(*) FROM ios_photos") { count = Int($0[0]) ?? 0 }
        return count
    }

    public func photos() throws(PluginStatus) -> [PhotoRow] {
        var rows: [PhotoRow] = []
        try database.execute(
            "SELECT id, timestamp, deviceId, label, localIdentifier, mediaType, mediaWidth, mediaHeight, creationTimestamp, duration, timezone FROM ios_photos ORDER BY id"
        ) { row in
            var photo = PhotoRow(
                timestamp: Int64(row[1]) ?? 0, deviceId: row[2], label: row[3], localIdentifier: row[4],
                mediaType: Int(row[5]) ?? 0, mediaWidth: Int(row[6]) ?? 0, mediaHeight: Int(row[7]) ?? 0,
                creationTimestamp: Int64(row[8]) ?? 0, duration: Double(row[9]) ?? 0, timezone: Int(row[10]) ?? 0)
            photo.id = Int64(row[0]) ?? 0
            rows.append(photo)
        }
        return rows
    }

    /// A photo recorded: its path and the labels recognition gave it, surest first.
    public struct RecentPhoto: Equatable, Sendable {
        public var path: String
        public var labels: [String]
    }

    /// The last `limit` photos recorded, the newest file first (a photo's labels go with its rows: once sent and
    /// removed by `removeAfterSync`, it has none).
    public func recentPhotos(limit: Int) throws(PluginStatus) -> [RecentPhoto] {
        var found: [(path: String, sha256: String)] = []
        try database.execute(
            """
            SELECT path, sha256 FROM seen_files WHERE recorded = 1 AND media_type = 1
            ORDER BY mtime_ns DESC, path LIMIT ?
            """, [.integer(Int64(limit))]
        ) { row in if row.count == 2 { found.append((row[0], row[1])) } }
        var photos: [RecentPhoto] = []
        for file in found {
            var labels: [String] = []
            try database.execute(
                """
                SELECT recognitionLabel FROM ios_photos_recognition WHERE photoLocalIdentifier = ?
                GROUP BY recognitionLabel ORDER BY max(confidence) DESC
                """, [.text("\(file.path)#sha256:\(file.sha256)")]
            ) { row in labels.append(row[0]) }
            photos.append(RecentPhoto(path: file.path, labels: labels))
        }
        return photos
    }

    // MARK: Sync

    /// The tables sent, in order, with their AWARE object types.
    public static let syncedTables = [
        ("ios_photos", "PhotosData"), ("ios_photos_recognition", "PhotosRecognitionData"),
    ]

    public func checkpoint(_ table: String) throws(PluginStatus) -> Int64 {
        var id: Int64 = 0
        try database.execute("SELECT last_uploaded_id FROM sync_state WHERE table_name = ?", [.text(table)]) {
            id = Int64($0[0]) ?? 0
        }
        return id
    }

    /// Moves the checkpoint after a batch the server took; with `remove`, exactly the rows sent are deleted,
    /// in the same transaction.
    /// Moves `table`'s checkpoint to `last` (removing the rows with `remove`); returns how many rows the batch
    /// held.
    @discardableResult
    public func acknowledge(_ table: String, from first: Int64, through last: Int64, remove: Bool)
        throws(PluginStatus) -> Int
    {
        guard Self.syncedTables.contains(where: { $0.0 == table }) else { throw PluginStatus.invalid }
        var count = 0
        try database.transaction { () throws(PluginStatus) in
            try database.execute(
                "SELECT count(*) FROM \(table) WHERE id >= ? AND id <= ?", [.integer(first), .integer(last)]
            ) { count = Int($0[0]) ?? 0 }
            try database.execute(
                "INSERT OR REPLACE INTO sync_state VALUES (?, max(?, coalesce((SELECT last_uploaded_id FROM sync_state WHERE table_name = ?), 0)))",
                [.text(table), .integer(last), .text(table)])
            if remove {
                try database.execute(
                    "DELETE FROM \(table) WHERE id >= ? AND id <= ?", [.integer(first), .integer(last)])
            }
        }
        return count
    }

    /// Up to `limit` rows of `table` after `checkpoint`, ordered by id, each as the JSON object AWARE stores.
    public func batch(_ table: String, after checkpoint: Int64, limit: Int) throws(PluginStatus)
        -> [(id: Int64, json: String)]
    {
        guard Self.syncedTables.contains(where: { $0.0 == table }) else { throw PluginStatus.invalid }
        var rows: [(Int64, String)] = []
        let columns =
            table == "ios_photos"
            ? "id, timestamp, deviceId, label, localIdentifier, mediaType, mediaWidth, mediaHeight, creationTimestamp, duration, isFavorite, os, timezone, jsonVersion"
            : "id, timestamp, deviceId, label, photoLocalIdentifier, recognitionLabel, confidence, recognitionType, os, timezone, jsonVersion"
        let names = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let text: Set<String> = [
            "deviceId", "label", "localIdentifier", "os", "photoLocalIdentifier", "recognitionLabel", "recognitionType",
        ]
        try database.execute(
            "SELECT \(columns) FROM \(table) WHERE id > ? ORDER BY id LIMIT ?",
            [.integer(checkpoint), .integer(Int64(limit))]
        ) { row in
            let fields = zip(names, row).map { name, value in
                "\"\(name)\":" + (text.contains(name) ? Self.quoted(value) : (value.isEmpty ? "0" : value))
            }
            rows.append((Int64(row[0]) ?? 0, "{" + fields.joined(separator: ",") + "}"))
        }
        return rows
    }

    /// Every row of `table` as CSV (RFC 4180, a header of the original column names), for a study without a
    /// reachable server. Rows are read 1000 at a time.
    public func csv(_ table: String) throws(PluginStatus) -> (text: String, rows: Int) {
        guard Self.syncedTables.contains(where: { $0.0 == table }) else { throw PluginStatus.invalid }
        var names: [String] = []
        try database.execute("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
            names.append($0[0])
        }
        func field(_ value: String) -> String {
            guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
            return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        var text = names.joined(separator: ",") + "\r\n"
        var count = 0
        var after: Int64 = 0
        while true {
            var page = 0
            try database.execute(
                "SELECT * FROM \(table) WHERE id > ? ORDER BY id LIMIT 1000", [.integer(after)]
            ) { row in
                text += row.map(field).joined(separator: ",") + "\r\n"
                after = Int64(row[0]) ?? after
                page += 1
            }
            count += page
            if page < 1000 { break }
        }
        return (text, count)
    }

    public func pendingCount() throws(PluginStatus) -> Int {
        var total = 0
        for (table, _) in Self.syncedTables {
            let checkpoint = try checkpoint(table)
            try database.execute("SELECT count(*) FROM \(table) WHERE id > ?", [.integer(checkpoint)]) {
                total += Int($0[0]) ?? 0
            }
        }
        return total
    }

    static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}

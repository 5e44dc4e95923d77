import Foundation
import PluginKit

/// The plugin's database (spec §4) through the host's storage service: the participant's study period and
/// upload state, things and their 7 video slots. Server writes go through the host outbox; what waits for a
/// thing's server id is kept here (`pending_op`). Labels may identify a person: never logged.
public final class OrbitStore {
    let database: PluginDatabaseHandle
    /// The plugin's data folder, where the offer of training clips is kept (`TrainingClipsOffer`).
    let data: String?

    public struct Thing: Equatable, Sendable {
        public var id: Int64
        public var orbitID: Int64?
        public var label: String
        public var createdAt: Int64
    }

    public init(host: PluginHostHandle) throws(PluginStatus) {
        database = try PluginDatabaseHandle(
            host: host, name: "orbit",
            migrations: [
                """
                CREATE TABLE participant (id INTEGER PRIMARY KEY CHECK (id = 1), study_start TEXT, study_end TEXT,
                    last_poll_at INTEGER, upload_pause TEXT NOT NULL DEFAULT 'none');
                CREATE TABLE thing (id INTEGER PRIMARY KEY AUTOINCREMENT, orbit_id INTEGER, label TEXT NOT NULL,
                    created_at INTEGER NOT NULL);
                CREATE TABLE video (id INTEGER PRIMARY KEY AUTOINCREMENT,
                    thing_id INTEGER NOT NULL REFERENCES thing(id) ON DELETE CASCADE, kind TEXT NOT NULL,
                    slot INTEGER NOT NULL, filename TEXT NOT NULL, location TEXT NOT NULL DEFAULT 'data',
                    recorded_at INTEGER NOT NULL, orbit_id INTEGER, validation TEXT NOT NULL DEFAULT '-',
                    state TEXT NOT NULL DEFAULT 'recording', UNIQUE (thing_id, kind, slot));
                CREATE TABLE recording (id INTEGER PRIMARY KEY CHECK (id = 1), thing_id INTEGER NOT NULL,
                    kind TEXT NOT NULL, slot INTEGER NOT NULL, filename TEXT NOT NULL, started_at INTEGER NOT NULL);
                CREATE TABLE pending_op (id INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL, local_id INTEGER,
                    remote_path TEXT, state TEXT NOT NULL DEFAULT 'pending', job INTEGER, last_http_status INTEGER,
                    last_error TEXT);
                """,
                // Version 2: when statuses were last read whole, and whether the latest try failed (spec §7).
                """
                ALTER TABLE participant ADD COLUMN statuses_at INTEGER;
                ALTER TABLE participant ADD COLUMN statuses_failed INTEGER NOT NULL DEFAULT 0;
                """,
                // Version 3: what the participant was last told of a clip's fate (a validation code, or `R`
                // for a refused upload), so a rejection is said once.
                "ALTER TABLE video ADD COLUMN told TEXT NOT NULL DEFAULT '';",
            ])
        data = host.dataDirectory
        offerClips()
    }

    /// Writes the offer of training clips anew after a change of things or clips. A failure only leaves the
    /// offer as it was (teaching then finds the clips it had): the change itself stands.
    func offerClips() {
        guard let data, let offer = try? TrainingClipsOffer.read(database) else { return }
        try? offer.write(into: data)
    }

    // MARK: Things

    public func things() throws(PluginStatus) -> [Thing] {
        var found: [Thing] = []
        try database.execute("SELECT id, orbit_id, label, created_at FROM thing ORDER BY created_at DESC, id DESC") {
            found.append(
                Thing(id: Int64($0[0]) ?? 0, orbitID: Int64($0[1]), label: $0[2], createdAt: Int64($0[3]) ?? 0))
        }
        return found
    }

    /// The thing called `label`: the one whose label is exactly that, else the only one whose name is the same
    /// by `NameKey` (heard the same: case, spaces, full-width letters). Never a guess between two (names made
    /// before such duplicates were refused may be alike): then none.
    public func thing(labelled label: String) throws(PluginStatus) -> Thing? {
        let wanted = label.trimmingCharacters(in: .whitespacesAndNewlines)
        let all = try things()
        if let exact = all.first(where: { $0.label == wanted }) { return exact }
        let key = NameKey.of(wanted)
        let alike = all.filter { NameKey.of($0.label) == key }
        return alike.count == 1 ? alike[0] : nil
    }

    /// Another thing than `thing` whose name is heard the same as `label` (`NameKey`): a name must tell things
    /// apart by ear.
    public func otherThing(than thing: Thing?, labelled label: String) throws(PluginStatus) -> Thing? {
        let key = NameKey.of(label)
        return try things().first { $0.id != thing?.id && NameKey.of($0.label) == key }
    }

    public func thing(id: Int64) throws(PluginStatus) -> Thing? { try things().first { $0.id == id } }

    /// A new thing and its create request waiting, in one transaction.
    public func addThing(_ label: String, at time: Date = Date()) throws(PluginStatus) -> Thing {
        defer { offerClips() }
        return try database.transaction { () throws(PluginStatus) -> Thing in
            try database.execute(
                "INSERT INTO thing (label, created_at) VALUES (?, ?)",
                [.text(label), .integer(Int64(time.timeIntervalSince1970 * 1000))])
            var id: Int64 = 0
            try database.execute("SELECT last_insert_rowid()") { id = Int64($0[0]) ?? 0 }
            try database.execute("INSERT INTO pending_op (op, local_id) VALUES ('thing_create', ?)", [.integer(id)])
            return Thing(id: id, orbitID: nil, label: label, createdAt: Int64(time.timeIntervalSince1970 * 1000))
        }
    }

    /// A new label; a PATCH waits when the server has the thing (a create still waiting takes the new label).
    public func rename(_ thing: Thing, to label: String) throws(PluginStatus) {
        defer { offerClips() }
        try database.transaction { () throws(PluginStatus) in
            try database.execute("UPDATE thing SET label = ? WHERE id = ?", [.text(label), .integer(thing.id)])
            // A create the server refused (400) is tried again under the new name.
            try database.execute(
                """
                UPDATE pending_op SET state = 'pending', last_error = NULL, last_http_status = NULL
                WHERE op = 'thing_create' AND local_id = ? AND state = 'failed'
                """, [.integer(thing.id)])
            if let orbitID = thing.orbitID {
                try database.execute(
                    "DELETE FROM pending_op WHERE op = 'thing_rename' AND local_id = ? AND job IS NULL",
                    [.integer(thing.id)])
                try database.execute(
                    "INSERT INTO pending_op (op, local_id, remote_path) VALUES ('thing_rename', ?, ?)",
                    [.integer(thing.id), .text("api/thing/\(orbitID)/")])
            }
        }
    }

    /// The thing, its videos and everything waiting for it go; a DELETE waits when the server has it.
    public func delete(_ thing: Thing) throws(PluginStatus) -> [String] {
        defer { offerClips() }
        return try database.transaction { () throws(PluginStatus) -> [String] in
            var files: [String] = []
            try database.execute("SELECT filename FROM video WHERE thing_id = ?", [.integer(thing.id)]) {
                files.append($0[0])
            }
            try database.execute(
                "DELETE FROM pending_op WHERE local_id = ? AND op LIKE 'thing_%' AND job IS NULL", [.integer(thing.id)])
            try database.execute(
                """
                DELETE FROM pending_op WHERE op = 'video_upload' AND job IS NULL
                    AND local_id IN (SELECT id FROM video WHERE thing_id = ?)
                """, [.integer(thing.id)])
            try database.execute("DELETE FROM video WHERE thing_id = ?", [.integer(thing.id)])
            try database.execute("DELETE FROM thing WHERE id = ?", [.integer(thing.id)])
            if let orbitID = thing.orbitID {
                try database.execute(
                    "INSERT INTO pending_op (op, local_id, remote_path) VALUES ('thing_delete', NULL, ?)",
                    [.text("api/thing/\(orbitID)/")])
            }
            return files
        }
    }

    public func setOrbitID(_ orbitID: Int64, forThing id: Int64) throws(PluginStatus) {
        try database.execute("UPDATE thing SET orbit_id = ? WHERE id = ?", [.integer(orbitID), .integer(id)])
    }

    /// The server already has this thing (a create whose answer never came, or came unreadable): its id is
    /// taken and the create is done.
    public func adopt(_ orbitID: Int64, forThing id: Int64) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            try database.execute("UPDATE thing SET orbit_id = ? WHERE id = ?", [.integer(orbitID), .integer(id)])
            try database.execute(
                "DELETE FROM pending_op WHERE op = 'thing_create' AND local_id = ? AND job IS NULL", [.integer(id)])
        }
    }

    /// A server thing this device made twice: its DELETE waits, once.
    public func queueDelete(ofServerThing orbitID: Int64) throws(PluginStatus) {
        try queueOnce("thing_delete", path: "api/thing/\(orbitID)/")
    }

    /// `op` on `path` waits, unless something for that path already does.
    private func queueOnce(_ op: String, path: String) throws(PluginStatus) {
        var queued = false
        try database.execute("SELECT 1 FROM pending_op WHERE remote_path = ?", [.text(path)]) { _ in queued = true }
        if queued { return }
        try database.execute("INSERT INTO pending_op (op, remote_path) VALUES (?, ?)", [.text(op), .text(path)])
    }

    public func clearOrbitID(forThing id: Int64) throws(PluginStatus) {
        try database.execute("UPDATE thing SET orbit_id = NULL WHERE id = ?", [.integer(id)])
    }

    // MARK: Videos

    public struct Video: Equatable, Sendable {
        public var id: Int64
        public var thingID: Int64
        public var kind: String
        public var slot: Int
        public var filename: String
        public var location: String
        public var recordedAt: Int64
        public var orbitID: Int64?
        public var validation: String
    }

    public func videos(of thingID: Int64) throws(PluginStatus) -> [Video] {
        var found: [Video] = []
        try database.execute(
            """
            SELECT id, thing_id, kind, slot, filename, location, recorded_at, orbit_id, validation FROM video
            WHERE thing_id = ? ORDER BY kind DESC, slot
            """, [.integer(thingID)]
        ) { row in
            found.append(
                Video(
                    id: Int64(row[0]) ?? 0, thingID: Int64(row[1]) ?? 0, kind: row[2], slot: Int(row[3]) ?? 0,
                    filename: row[4], location: row[5], recordedAt: Int64(row[6]) ?? 0, orbitID: Int64(row[7]),
                    validation: row[8]))
        }
        return found
    }

    public func video(id: Int64) throws(PluginStatus) -> Video? {
        var thing: Int64?
        try database.execute("SELECT thing_id FROM video WHERE id = ?", [.integer(id)]) { thing = Int64($0[0]) }
        guard let thing else { return nil }
        return try videos(of: thing).first { $0.id == id }
    }

    /// A recording begins: kept here so a crash can be recovered at the next start.
    public func beginRecording(thing: Int64, kind: String, slot: Int, filename: String) throws(PluginStatus) {
        try database.execute(
            "INSERT OR REPLACE INTO recording VALUES (1, ?, ?, ?, ?, ?)",
            [
                .integer(thing), .text(kind), .integer(Int64(slot)), .text(filename),
                .integer(Int64(Date().timeIntervalSince1970 * 1000)),
            ])
    }

    public func unfinishedRecording() throws(PluginStatus) -> (thing: Int64, kind: String, slot: Int, filename: String)?
    {
        var found: (Int64, String, Int, String)?
        try database.execute("SELECT thing_id, kind, slot, filename FROM recording WHERE id = 1") {
            found = (Int64($0[0]) ?? 0, $0[1], Int($0[2]) ?? 0, $0[3])
        }
        return found
    }

    public func dropRecording() throws(PluginStatus) {
        try database.execute("DELETE FROM recording")
    }

    /// The clip becomes the slot's video, in one transaction: an older clip there is replaced (its file name
    /// returned for deletion, a DELETE queued when the server has it), the upload waits.
    public func saveRecording(thing: Int64, kind: String, slot: Int, filename: String) throws(PluginStatus) -> String? {
        defer { offerClips() }
        return try database.transaction { () throws(PluginStatus) -> String? in
            let old = try removeSlot(thing: thing, kind: kind, slot: slot)
            try database.execute(
                """
                INSERT INTO video (thing_id, kind, slot, filename, recorded_at, state) VALUES (?, ?, ?, ?, ?, 'ready')
                """,
                [
                    .integer(thing), .text(kind), .integer(Int64(slot)), .text(filename),
                    .integer(Int64(Date().timeIntervalSince1970 * 1000)),
                ])
            var id: Int64 = 0
            try database.execute("SELECT last_insert_rowid()") { id = Int64($0[0]) ?? 0 }
            try database.execute("INSERT INTO pending_op (op, local_id) VALUES ('video_upload', ?)", [.integer(id)])
            try database.execute("DELETE FROM recording")
            return old
        }
    }

    /// One clip goes (spec §3.19's deletion, for one slot): its row at once, its upload if not yet handed to the
    /// outbox, and a DELETE waits when the server has it. An upload already on its way is left to end: its answer
    /// then finds no clip and deletes the server's new copy (`CollectVideos.apply`). The file name, for the
    /// caller to delete; nil when the slot is empty.
    public func deleteVideo(thing: Int64, kind: String, slot: Int) throws(PluginStatus) -> String? {
        defer { offerClips() }
        return try database.transaction { () throws(PluginStatus) -> String? in
            try removeSlot(thing: thing, kind: kind, slot: slot)
        }
    }

    /// The slot's clip removed inside the caller's transaction, as `deleteVideo` says; its file name, or nil.
    private func removeSlot(thing: Int64, kind: String, slot: Int) throws(PluginStatus) -> String? {
        var found: (file: String, orbit: Int64?, id: Int64)?
        try database.execute(
            "SELECT filename, orbit_id, id FROM video WHERE thing_id = ? AND kind = ? AND slot = ?",
            [.integer(thing), .text(kind), .integer(Int64(slot))]
        ) { found = ($0[0], Int64($0[1]), Int64($0[2]) ?? 0) }
        guard let found else { return nil }
        try database.execute("DELETE FROM video WHERE id = ?", [.integer(found.id)])
        try database.execute(
            "DELETE FROM pending_op WHERE op = 'video_upload' AND local_id = ? AND job IS NULL", [.integer(found.id)])
        if let orbit = found.orbit { try queueDelete(ofServerVideo: orbit) }
        return found.file
    }

    /// The server has a clip this device no longer keeps (deleted or filmed again while it was being sent):
    /// its DELETE waits, once.
    public func queueDelete(ofServerVideo orbitID: Int64) throws(PluginStatus) {
        try queueOnce("video_delete", path: "api/video/\(orbitID)/")
    }

    public func uploaded(video: Int64, orbitID: Int64, validation: String) throws(PluginStatus) {
        defer { offerClips() }
        try database.execute(
            "UPDATE video SET orbit_id = ?, validation = ?, location = 'cache' WHERE id = ?",
            [.integer(orbitID), .text(validation), .integer(video)])
    }

    public func setValidation(_ validation: String, forOrbitVideo orbitID: Int64) throws(PluginStatus) {
        try database.execute(
            "UPDATE video SET validation = ? WHERE orbit_id = ?", [.text(validation), .integer(orbitID)])
    }

    /// Clips the study team rejected (`P`, `I`, `M`) or whose upload the server refused (`R`, with the refusal
    /// as said then), not yet told to the participant; oldest first.
    public func untoldRejections() throws(PluginStatus) -> [(video: Video, code: String, refusal: String?)] {
        var found: [(Int64, String, String?)] = []
        try database.execute(
            """
            SELECT id, validation, NULL FROM video WHERE validation IN ('P', 'I', 'M') AND told != validation
            UNION ALL
            SELECT video.id, 'R', pending_op.last_error FROM video JOIN pending_op ON pending_op.local_id = video.id
                WHERE pending_op.op = 'video_upload' AND pending_op.state = 'failed' AND video.told != 'R'
            ORDER BY 1
            """
        ) { found.append((Int64($0[0]) ?? 0, $0[1], $0[2].isEmpty ? nil : $0[2])) }
        var result: [(video: Video, code: String, refusal: String?)] = []
        for (id, code, refusal) in found {
            if let video = try video(id: id) { result.append((video, code, refusal)) }
        }
        return result
    }

    public func markTold(video id: Int64, _ code: String) throws(PluginStatus) {
        try database.execute("UPDATE video SET told = ? WHERE id = ?", [.text(code), .integer(id)])
    }

    /// Leaving the study: every row goes, and the file is rebuilt so that no freed page keeps a label.
    public func forgetEverything() throws(PluginStatus) {
        defer { offerClips() }
        try database.transaction { () throws(PluginStatus) in
            for table in ["pending_op", "recording", "video", "thing", "participant"] {
                try database.execute("DELETE FROM \(table)")
            }
        }
        try database.execute("VACUUM")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    // MARK: Pending operations

    public struct PendingOp: Equatable, Sendable {
        public var id: Int64
        public var op: String
        public var localID: Int64?
        public var remotePath: String?
        public var state: String
        public var job: Int64?
        public var lastError: String?
    }

    public func pendingOps() throws(PluginStatus) -> [PendingOp] {
        var found: [PendingOp] = []
        try database.execute(
            "SELECT id, op, local_id, remote_path, state, job, last_error FROM pending_op ORDER BY id"
        ) { row in
            found.append(
                PendingOp(
                    id: Int64(row[0]) ?? 0, op: row[1], localID: Int64(row[2]),
                    remotePath: row[3].isEmpty ? nil : row[3],
                    state: row[4], job: Int64(row[5]), lastError: row[6].isEmpty ? nil : row[6]))
        }
        return found
    }

    public func markSent(_ op: Int64, job: Int64) throws(PluginStatus) {
        try database.execute(
            "UPDATE pending_op SET job = ?, state = 'sent' WHERE id = ?", [.integer(job), .integer(op)])
    }

    public func finish(_ op: Int64) throws(PluginStatus) {
        try database.execute("DELETE FROM pending_op WHERE id = ?", [.integer(op)])
    }

    /// Back to waiting (a new try later), or stopped with the server's words (`failed`, until the user acts).
    public func setState(_ op: Int64, _ state: String, status: Int?, error: String?) throws(PluginStatus) {
        try database.execute(
            "UPDATE pending_op SET state = ?, job = NULL, last_http_status = ?, last_error = ? WHERE id = ?",
            [.text(state), status.map { .integer(Int64($0)) } ?? .text(""), .text(error ?? ""), .integer(op)])
    }

    // MARK: Participant

    public func setPeriod(start: String?, end: String?) throws(PluginStatus) {
        try database.execute(
            """
            INSERT INTO participant (id, study_start, study_end, last_poll_at) VALUES (1, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET study_start = excluded.study_start, study_end = excluded.study_end,
                last_poll_at = excluded.last_poll_at
            """,
            [.text(start ?? ""), .text(end ?? ""), .integer(Int64(Date().timeIntervalSince1970 * 1000))])
    }

    /// Why uploads wait (spec §4): `none`, `revoked`, `before_period` or `after_period`.
    public func uploadPause() throws(PluginStatus) -> String {
        var found = "none"
        try database.execute("SELECT upload_pause FROM participant WHERE id = 1") { found = $0[0] }
        return found
    }

    public func setUploadPause(_ pause: String) throws(PluginStatus) {
        try database.execute(
            """
            INSERT INTO participant (id, upload_pause) VALUES (1, ?)
            ON CONFLICT(id) DO UPDATE SET upload_pause = excluded.upload_pause
            """, [.text(pause)])
    }

    /// Statuses were read (every page, `ok`) or the try failed; the last whole reading's time is kept.
    public func statusesRead(ok: Bool, at time: Date = Date()) throws(PluginStatus) {
        let now = Int64(time.timeIntervalSince1970 * 1000)
        try database.execute(
            """
            INSERT INTO participant (id, statuses_at, statuses_failed)
                VALUES (1, CASE WHEN ?2 = 0 THEN ?1 END, ?2)
            ON CONFLICT(id) DO UPDATE SET statuses_failed = excluded.statuses_failed,
                statuses_at = CASE WHEN excluded.statuses_failed = 0 THEN excluded.statuses_at ELSE statuses_at END
            """, [.integer(now), .integer(ok ? 0 : 1)])
    }

    /// When statuses were last read whole (ms since 1970, nil never), and whether the latest try failed.
    public func statuses() throws(PluginStatus) -> (at: Int64?, failed: Bool) {
        var found: (Int64?, Bool) = (nil, false)
        try database.execute("SELECT statuses_at, statuses_failed FROM participant WHERE id = 1") {
            found = (Int64($0[0]), $0[1] == "1")
        }
        return found
    }

    public func period() throws(PluginStatus) -> (start: String?, end: String?) {
        var found: (String?, String?) = (nil, nil)
        try database.execute("SELECT study_start, study_end FROM participant WHERE id = 1") {
            found = ($0[0].isEmpty ? nil : $0[0], $0[1].isEmpty ? nil : $0[1])
        }
        return found
    }
}

import Foundation
import Storage

/// The outbox's memory: every job and every undelivered outcome in one SQLite file the host owns
/// (`<data>/outbox.sqlite`), so nothing is lost to a restart or a `kill -9`. Jobs leave in the order they
/// came; a job that was in flight when the host died is sent again (servers de-duplicate by the
/// `Idempotency-Key` header each job carries). A job being sent by another live process (`assist outbox send`
/// beside a running shell) is never taken back (`SenderClaim`). Any thread: the database serialises.
package final class OutboxStore: Sendable {
    let database: PluginDatabase
    /// Where the claims of the processes sending from this file are (`SenderClaim`).
    private let senders: URL
    /// This store's claim, made when it first takes a job.
    private let claim = HeldClaim()

    /// The claim under a lock: an `NSLock` rather than `Synchronization.Mutex`, whose futex ThreadSanitizer does
    /// not see (it reported two senders making the first claim as a race).
    private final class HeldClaim: @unchecked Sendable {  // because: `claim` is used only under `lock`
        let lock = NSLock()
        var claim: SenderClaim?
    }

    /// A job as stored.
    package struct Job: Equatable, Sendable {
        package var id: Int64
        package var owner: String
        package var request: OutboxRequest
        package var attempts: Int
        package var maxAttempts: Int
        package var idempotencyKey: String
    }

    /// Opens (creating) the store at `url`.
    package init(url: URL) throws(StorageError) {
        database = try PluginDatabase(url: url)
        // Requests carry credentials and answers carry what the user sent: what leaves is overwritten with
        // zeros, whatever SQLite was built with (see `scrub`).
        try database.execute("PRAGMA secure_delete = ON") { _, _ in false }
        try Self.refuseForeign(database, before: true)
        try database.migrate(
            to: 1,
            sql: """
                CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, request TEXT NOT NULL,
                    state TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
                    max_attempts INTEGER NOT NULL, next_try_at REAL NOT NULL DEFAULT 0, idempotency_key TEXT NOT NULL,
                    last_status INTEGER, last_error TEXT);
                CREATE TABLE outcomes (job_id INTEGER PRIMARY KEY, owner TEXT NOT NULL, status INTEGER,
                    headers TEXT NOT NULL, body BLOB NOT NULL, error TEXT);
                """)
        try database.migrate(
            to: 2,
            sql: """
                ALTER TABLE outcomes ADD COLUMN tag TEXT;
                ALTER TABLE outcomes ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX jobs_by_owner ON jobs (owner, id);
                """)
        try database.migrate(to: 3, sql: "CREATE INDEX outcomes_by_owner ON outcomes (owner, job_id);")
        try database.migrate(to: 4, sql: "ALTER TABLE jobs ADD COLUMN taken_by TEXT;")
        try Self.refuseForeign(database, before: false)
        senders = url.deletingLastPathComponent().appendingPathComponent("outbox-senders")
    }

    /// What `StorageError.cause` begins with for a database that is not Assist's upload queue.
    package static let foreignCause = "it is not Assist's upload queue"

    /// The columns each of the queue's tables must have.
    private static let columns: [String: Set<String>] = [
        "jobs": [
            "id", "owner", "request", "state", "attempts", "max_attempts", "next_try_at", "idempotency_key",
            "last_status", "last_error", "taken_by",
        ],
        "outcomes": ["job_id", "owner", "status", "headers", "body", "error", "tag", "truncated"],
    ]

    /// Throws when the file is another program's database (issue 73: one with a `jobs` table of its own made every
    /// command say "table jobs already exists"): before the migrations, a database without a version that holds
    /// tables; after them, a table of the queue without the columns it needs.
    private static func refuseForeign(_ database: PluginDatabase, before: Bool) throws(StorageError) {
        var tables: [String: Set<String>] = [:]
        try database.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
            _, values in
            if case .text(let name) = values.first { tables[name] = [] }
            return true
        }
        if before {
            guard try database.version() == 0, !tables.isEmpty else { return }
            let names = tables.keys.sorted().prefix(5).joined(separator: ", ")
            throw .sql("\(foreignCause): it holds the tables \(names) and no version")
        }
        for (table, wanted) in columns {
            var found = Set<String>()
            try database.execute("SELECT name FROM pragma_table_info(?)", arguments: [.text(table)]) { _, values in
                if case .text(let name) = values.first { found.insert(name) }
                return true
            }
            let missing = wanted.subtracting(found)
            guard missing.isEmpty else {
                throw .sql(
                    "\(foreignCause): its table \(table) has no column \(missing.sorted().joined(separator: ", "))")
            }
        }
    }

    /// The token this store marks the jobs it takes with, its claim made on first use.
    private func senderToken() throws(StorageError) -> String {
        claim.lock.lock()
        defer { claim.lock.unlock() }
        if let held = claim.claim { return held.token }
        let made = try SenderClaim(folder: senders)
        claim.claim = made
        return made.token
    }

    /// A job is due when its owner has no older job: each plugin's jobs leave in the order they came, so a
    /// video never overtakes the record it belongs to, while one plugin's failing job never holds up another's.
    private static let isHead =
        "NOT EXISTS (SELECT 1 FROM jobs older WHERE older.owner = jobs.owner AND older.id < jobs.id)"

    /// Adds a job; returns its id.
    package func enqueue(owner: String, request: OutboxRequest, maxAttempts: Int = 8) throws(StorageError) -> Int64 {
        let encoded = String(decoding: (try? JSONEncoder().encode(request)) ?? Data(), as: UTF8.self)
        // One transaction holding the connection: a sender storing an outcome on it between the insert and
        // last_insert_rowid() would otherwise hand back the outcome's row id (seen under AddressSanitizer).
        return try database.transaction { () throws(StorageError) -> Int64 in
            try database.execute(
                "INSERT INTO jobs (owner, request, max_attempts, idempotency_key) VALUES (?, ?, ?, ?)",
                arguments: [
                    .text(owner), .text(encoded), .integer(Int64(max(1, maxAttempts))), .text(UUID().uuidString),
                ])
            var id: Int64 = 0
            try database.execute("SELECT last_insert_rowid()") { _, values in
                if case .integer(let value) = values.first { id = value }
                return false
            }
            return id
        }
    }

    /// Gives up this store's claim: for a process whose sending has ended (none of its exchanges is under way).
    /// A job it had in flight (cut short) is then free for the next sender to take back.
    package func releaseClaim() {
        claim.lock.withLock { claim.claim = nil }
    }

    /// Jobs left in flight by a sender that is gone (the host stopped or died mid-upload) go back to pending;
    /// those another live process is sending stay as they are, so nothing is sent twice. Also clears the
    /// claims gone senders left. Returns how many jobs went back.
    @discardableResult
    package func recover() throws(StorageError) -> Int {
        var takers: [String?] = []
        try database.execute("SELECT DISTINCT taken_by FROM jobs WHERE state = 'in_flight'") { _, values in
            if case .text(let token) = values.first { takers.append(token) } else { takers.append(nil) }
            return true
        }
        var recovered = 0
        for taker in takers where taker.map({ SenderClaim.isGone($0, in: senders) }) ?? true {
            recovered += try database.execute(
                "UPDATE jobs SET state = 'pending', taken_by = NULL WHERE state = 'in_flight' AND taken_by IS ?",
                arguments: [taker.map { .text($0) } ?? .null])
        }
        SenderClaim.sweep(senders)
        return recovered
    }

    /// Why a stored job that cannot be decoded leaves the outbox.
    package static let unreadableReason = "the stored upload is damaged and cannot be read, so it was not sent"

    /// The oldest pending job due at `now` (seconds since 1970), marked in flight; nil when none is due. A job
    /// that cannot be decoded (a damaged row) never blocks the others: it leaves at once with a failed outcome,
    /// handed to `onUnreadable` after the transaction, and the next job is looked at.
    package func takeNext(
        now: Double, onUnreadable: (Outcome) -> Void = { _ in }
    ) throws(StorageError) -> Job? {
        var unreadable: [Outcome] = []
        defer { unreadable.forEach(onUnreadable) }
        let token = try senderToken()
        // One transaction holding the connection: two senders never take the same job.
        return try database.transaction { () throws(StorageError) -> Job? in
            while true {
                var row: [SQLValue]?
                try database.execute(
                    """
                    SELECT id, owner, request, attempts, max_attempts, idempotency_key FROM jobs
                    WHERE state = 'pending' AND next_try_at <= ? AND \(Self.isHead) ORDER BY id LIMIT 1
                    """, arguments: [.real(now)]
                ) { _, values in
                    row = values
                    return false
                }
                guard let row else { return nil }
                if let job = Self.job(row) {
                    try database.execute(
                        "UPDATE jobs SET state = 'in_flight', taken_by = ? WHERE id = ?",
                        arguments: [.text(token), .integer(job.id)])
                    return job
                }
                guard case .integer(let id) = row[0] else { return nil }
                var owner = "unknown"
                if case .text(let text) = row[1] { owner = text }
                let outcome = Outcome(
                    jobID: id, owner: owner, status: nil, headers: [], body: Data(), error: Self.unreadableReason,
                    tag: nil, truncated: false)
                try insert(outcome)
                unreadable.append(outcome)
            }
        }
    }

    /// When the next pending job falls due, or nil when nothing waits.
    package func nextDueTime() throws(StorageError) -> Double? {
        var due: Double?
        try database.execute("SELECT MIN(next_try_at) FROM jobs WHERE state = 'pending' AND \(Self.isHead)") {
            _, values in
            if case .real(let value) = values.first { due = value }
            if case .integer(let value) = values.first { due = Double(value) }
            return false
        }
        return due
    }

    /// The server gave a final answer: the job leaves and its outcome waits for its owner.
    package func finish(_ job: Job, answer: HTTPAnswer) throws(StorageError) {
        try store(
            Outcome(
                jobID: job.id, owner: job.owner, status: answer.status, headers: answer.headers, body: answer.body,
                error: nil, tag: job.request.tag, truncated: answer.truncated))
    }

    /// The job can never succeed (a bad address, a missing file): it leaves with `error` as its outcome.
    package func fail(_ job: Job, error: String) throws(StorageError) {
        try store(
            Outcome(
                jobID: job.id, owner: job.owner, status: nil, headers: [], body: Data(), error: error,
                tag: job.request.tag, truncated: false))
    }

    /// Back to pending without counting an attempt (the network is down), due at `until`.
    package func postpone(_ job: Job, until: Double) throws(StorageError) {
        try database.execute(
            "UPDATE jobs SET state = 'pending', next_try_at = ? WHERE id = ?",
            arguments: [.real(until), .integer(job.id)])
    }

    /// A transient failure: try again after the back-off, or give up after the last attempt (the outcome says
    /// why). `unit` is the back-off's random number (0…1). Returns true when the job will be tried again.
    @discardableResult
    package func retry(
        _ job: Job, status: Int?, error: String, now: Double, unit: Double, base: Double = Backoff.baseSeconds,
        notBefore: Double = 0
    ) throws(StorageError) -> Bool {
        let attempts = job.attempts + 1
        guard attempts < job.maxAttempts else {
            let reason = "gave up after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(error)"
            try store(
                Outcome(
                    jobID: job.id, owner: job.owner, status: status, headers: [], body: Data(), error: reason,
                    tag: job.request.tag, truncated: false))
            return false
        }
        let due = max(notBefore, now + Backoff.delay(afterAttempts: attempts, unit: unit, base: base))
        try database.execute(
            """
            UPDATE jobs SET state = 'pending', attempts = ?, next_try_at = ?, last_status = ?, last_error = ?
            WHERE id = ?
            """,
            arguments: [
                .integer(Int64(attempts)), .real(due),
                status.map { .integer(Int64($0)) } ?? .null, .text(error), .integer(job.id),
            ])
        return true
    }

    /// Makes every pending job due now (the host came back online), keeping attempt counts.
    package func wake(now: Double) throws(StorageError) {
        try database.execute("UPDATE jobs SET next_try_at = ? WHERE state = 'pending'", arguments: [.real(now)])
    }

    /// How many jobs wait or are in flight.
    package func pendingCount() throws(StorageError) -> Int {
        var count = 0
        try database.execute("SELECT COUNT(*) FROM jobs") { _, values in
            if case .integer(let value) = values.first { count = Int(value) }
            return false
        }
        return count
    }

    static func job(_ values: [SQLValue]) -> Job? {
        guard values.count == 6, case .integer(let id) = values[0], case .text(let owner) = values[1],
            case .text(let encoded) = values[2], case .integer(let attempts) = values[3],
            case .integer(let maximum) = values[4], case .text(let key) = values[5],
            let request = try? JSONDecoder().decode(OutboxRequest.self, from: Data(encoded.utf8))
        else { return nil }
        return Job(
            id: id, owner: owner, request: request, attempts: Int(attempts), maxAttempts: Int(maximum),
            idempotencyKey: key)
    }
}

extension OutboxStore {
    /// Every waiting job, oldest first, for `assist outbox`.
    package func jobs() throws(StorageError) -> [(job: Job, state: String, nextTry: Double, lastError: String?)] {
        var result: [(job: Job, state: String, nextTry: Double, lastError: String?)] = []
        try database.execute(
            """
            SELECT id, owner, request, attempts, max_attempts, idempotency_key, state, next_try_at, last_error
            FROM jobs ORDER BY id
            """
        ) { _, values in
            guard values.count == 9, let job = Self.job(Array(values.prefix(6))), case .text(let state) = values[6]
            else { return true }
            var next = 0.0
            if case .real(let value) = values[7] { next = value }
            if case .integer(let value) = values[7] { next = Double(value) }
            var error: String?
            if case .text(let text) = values[8] { error = text }
            result.append((job, state, next, error))
            return true
        }
        return result
    }

    /// Removes `owner`'s job `id` unless it is being sent. Returns false when there is no such waiting job.
    @discardableResult
    package func cancel(_ id: Int64, owner: String) throws(StorageError) -> Bool {
        try delete("DELETE FROM jobs WHERE id = ? AND owner = ? AND state = 'pending'", id, owner: owner)
    }

    /// Runs `sql`, a DELETE of `owner`'s row `id` (bound first, then `owner`), and scrubs after the owner when
    /// it removed one. Returns false when there was none.
    func delete(_ sql: String, _ id: Int64, owner: String) throws(StorageError) -> Bool {
        let removed = try database.execute(sql, arguments: [.integer(id), .text(owner)]) > 0
        if removed { scrub(after: owner) }
        return removed
    }

    /// Leaves no copy of what `owner` had here once it has nothing left here: with `secure_delete` the
    /// database file's pages are zeroed, but the write-ahead log keeps the older pages (a request's
    /// `Authorization` header, a thing's name in an answer) until it is checkpointed and cut to nothing. Only
    /// when the owner's last job and outcome are gone, so a plugin sending many jobs pays once, not per job.
    /// Best effort: another process reading the outbox (`assist outbox`) only delays it to the next time.
    func scrub(after owner: String) {
        var left: Int64 = 1
        _ = try? database.execute(
            """
            SELECT EXISTS (SELECT 1 FROM jobs WHERE owner = ?1) OR EXISTS (SELECT 1 FROM outcomes WHERE owner = ?1)
            """, arguments: [.text(owner)]
        ) { _, values in
            if case .integer(let count) = values.first { left = count }
            return false
        }
        guard left == 0 else { return }
        _ = try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)") { _, _ in false }
    }
}

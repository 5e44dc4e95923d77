import Foundation
import PluginKit

/// The survey's SQLite database (spec §4), through the host's storage service: accounts and tokens (secrets),
/// drafts, submissions and their recordings. The file is 0600 under the plugin's 0700 data folder.
public final class SurveyStore {
    private let database: PluginDatabaseHandle

    public struct Account: Equatable, Sendable {
        public var definitionID: String
        public var username: String?
        public var password: String?
        public var uploadedInitial: Bool
        /// The initial part's answers (JSON), kept until uploaded once.
        public var initialAnswers: String?
        public var lastCompleted: Double?
        public var lastReminded: Double?
    }

    public struct Token: Equatable, Sendable {
        public var accessToken: String
        public var refreshToken: String
        public var expiresAt: Double
        public var forcePasswordGrant: Bool
    }

    public struct Draft: Equatable, Sendable {
        public var definitionVersion: Int
        public var state: FlowState
        public var updatedAt: Double
    }

    /// Where a submission is in the upload (spec §3.16).
    public enum State: String, Sendable, CaseIterable {
        case queued, creatingUser = "creating_user", registered, token, ready, uploading, done
        case failedRetryable = "failed_retryable", failed, kept
    }

    public struct Submission: Equatable, Sendable {
        public var id: Int64
        public var definitionID: String
        public var definitionVersion: Int
        public var completedAt: Double
        /// Per part id: field → value.
        public var answers: [String: [String: String]]
        public var state: State
        /// Tries in the current round (three per round).
        public var attempts: Int
        public var lastError: String?
        public var nextRoundAt: Double?
        /// The outbox job in flight, if any.
        public var job: Int64?
    }

    public struct Recording: Equatable, Sendable {
        public var task: String
        /// A path relative to the plugin's media folder.
        public var path: String
        public var durationMs: Int
        public var sampleRate: Int
        public var channels: Int
        public var format: String
    }

    public init(host: PluginHostHandle) throws(PluginStatus) {
        database = try PluginDatabaseHandle(
            host: host, name: "survey",
            migrations: [
                """
                CREATE TABLE account (definition_id TEXT PRIMARY KEY, username TEXT, password TEXT,
                    uploaded_initial INTEGER NOT NULL DEFAULT 0, initial_answers TEXT, last_completed REAL,
                    last_reminded REAL);
                CREATE TABLE token (definition_id TEXT PRIMARY KEY, access_token TEXT NOT NULL,
                    refresh_token TEXT NOT NULL, expires_at REAL NOT NULL, force_password_grant INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE draft (definition_id TEXT PRIMARY KEY, definition_version INTEGER NOT NULL,
                    answers TEXT NOT NULL, current_item TEXT NOT NULL, updated_at REAL NOT NULL);
                CREATE TABLE submission (id INTEGER PRIMARY KEY AUTOINCREMENT, definition_id TEXT NOT NULL,
                    definition_version INTEGER NOT NULL, completed_at REAL NOT NULL, answers TEXT NOT NULL,
                    state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, next_round_at REAL,
                    job INTEGER);
                CREATE TABLE recording (submission_id INTEGER, definition_id TEXT NOT NULL, task TEXT NOT NULL,
                    path TEXT NOT NULL, duration_ms INTEGER NOT NULL, sample_rate INTEGER NOT NULL,
                    channels INTEGER NOT NULL, format TEXT NOT NULL);
                """
            ])
    }

    // MARK: Account and token

    public func account(_ definitionID: String) throws(PluginStatus) -> Account {
        var found = Account(definitionID: definitionID, uploadedInitial: false)
        try database.execute(
            "SELECT username, password, uploaded_initial, initial_answers, last_completed, last_reminded FROM account WHERE definition_id = ?",
            [.text(definitionID)]
        ) { row in
            found.username = row[0].nilIfEmpty
            found.password = row[1].nilIfEmpty
            found.uploadedInitial = row[2] == "1"
            found.initialAnswers = row[3].nilIfEmpty
            found.lastCompleted = Double(row[4])
            found.lastReminded = Double(row[5])
        }
        return found
    }

    public func save(_ account: Account) throws(PluginStatus) {
        try database.execute(
            """
            INSERT INTO account (definition_id, username, password, uploaded_initial, initial_answers, last_completed, last_reminded)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(definition_id) DO UPDATE SET username = excluded.username,
            password = excluded.password, uploaded_initial = excluded.uploaded_initial,
            initial_answers = excluded.initial_answers, last_completed = excluded.last_completed,
            last_reminded = excluded.last_reminded
            """,
            [
                .text(account.definitionID), .text(account.username ?? ""), .text(account.password ?? ""),
                .integer(account.uploadedInitial ? 1 : 0), .text(account.initialAnswers ?? ""),
                account.lastCompleted.map { .real($0) } ?? .text(""),
                account.lastReminded.map { .real($0) } ?? .text(""),
            ])
    }

    public func token(_ definitionID: String) throws(PluginStatus) -> Token? {
        var found: Token?
        try database.execute(
            "SELECT access_token, refresh_token, expires_at, force_password_grant FROM token WHERE definition_id = ?",
            [.text(definitionID)]
        ) { row in
            found = Token(
                accessToken: row[0], refreshToken: row[1], expiresAt: Double(row[2]) ?? 0,
                forcePasswordGrant: row[3] == "1")
        }
        return found
    }

    public func save(_ token: Token, for definitionID: String) throws(PluginStatus) {
        try database.execute(
            "INSERT OR REPLACE INTO token VALUES (?, ?, ?, ?, ?)",
            [
                .text(definitionID), .text(token.accessToken), .text(token.refreshToken), .real(token.expiresAt),
                .integer(token.forcePasswordGrant ? 1 : 0),
            ])
    }

    /// Marks the token unusable so the next try makes a password grant.
    public func forcePasswordGrant(_ definitionID: String) throws(PluginStatus) {
        try database.execute(
            "UPDATE token SET force_password_grant = 1 WHERE definition_id = ?", [.text(definitionID)])
    }

    // MARK: Drafts

    public func draft(_ definitionID: String) throws(PluginStatus) -> Draft? {
        var found: Draft?
        try database.execute(
            "SELECT definition_version, answers, updated_at FROM draft WHERE definition_id = ?",
            [.text(definitionID)]
        ) { row in
            guard let state = try? JSONDecoder().decode(FlowState.self, from: Data(row[1].utf8)) else { return }
            found = Draft(definitionVersion: Int(row[0]) ?? 0, state: state, updatedAt: Double(row[2]) ?? 0)
        }
        return found
    }

    public func saveDraft(_ state: FlowState, definition: SurveyDefinition, at time: Double) throws(PluginStatus) {
        let json = (try? JSONEncoder().encode(state)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        try database.execute(
            "INSERT OR REPLACE INTO draft VALUES (?, ?, ?, ?, ?)",
            [.text(definition.id), .integer(Int64(definition.version)), .text(json), .text(state.current), .real(time)])
    }

    /// Removes the draft and its takes' rows; the caller deletes the files.
    public func deleteDraft(_ definitionID: String) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            try database.execute("DELETE FROM draft WHERE definition_id = ?", [.text(definitionID)])
            try database.execute(
                "DELETE FROM recording WHERE submission_id IS NULL AND definition_id = ?", [.text(definitionID)])
        }
    }

    // MARK: Recordings

    /// The draft's accepted take for `task`, if any.
    public func draftRecordings(_ definitionID: String) throws(PluginStatus) -> [Recording] {
        try recordings(where: "submission_id IS NULL AND definition_id = ?", [.text(definitionID)])
    }

    public func recordings(of submission: Int64) throws(PluginStatus) -> [Recording] {
        try recordings(where: "submission_id = ?", [.integer(submission)])
    }

    private func recordings(where condition: String, _ values: [PluginDatabaseHandle.Value]) throws(PluginStatus)
        -> [Recording]
    {
        var found: [Recording] = []
        try database.execute(
            "SELECT task, path, duration_ms, sample_rate, channels, format FROM recording WHERE \(condition) ORDER BY rowid",
            values
        ) { row in
            found.append(
                Recording(
                    task: row[0], path: row[1], durationMs: Int(row[2]) ?? 0, sampleRate: Int(row[3]) ?? 0,
                    channels: Int(row[4]) ?? 1, format: row[5]))
        }
        return found
    }

    /// Records an accepted draft take, replacing the earlier one for the same task (returned, for deletion).
    public func acceptTake(_ recording: Recording, definitionID: String) throws(PluginStatus) -> Recording? {
        try database.transaction { () throws(PluginStatus) -> Recording? in
            let earlier = try draftRecordings(definitionID).first { $0.task == recording.task }
            try database.execute(
                "DELETE FROM recording WHERE submission_id IS NULL AND definition_id = ? AND task = ?",
                [.text(definitionID), .text(recording.task)])
            try database.execute(
                "INSERT INTO recording VALUES (NULL, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(definitionID), .text(recording.task), .text(recording.path),
                    .integer(Int64(recording.durationMs)), .integer(Int64(recording.sampleRate)),
                    .integer(Int64(recording.channels)), .text(recording.format),
                ])
            return earlier?.path == recording.path ? nil : earlier
        }
    }

    // MARK: Submissions

    /// Turns the draft into a submission in one transaction: the answers, the takes (now at `paths`, task →
    /// new relative path), `last_completed`, and the initial answers on the account. Returns its id.
    public func submit(
        definition: SurveyDefinition, answers: [String: [String: String]], completedAt: Double,
        initialPart: String?, movedTakes: [String: String], state: State
    ) throws(PluginStatus) -> Int64 {
        try database.transaction { () throws(PluginStatus) -> Int64 in
            var account = try account(definition.id)
            account.lastCompleted = completedAt
            if let initialPart, let initial = answers[initialPart] {
                account.initialAnswers = Self.json(initial)
            }
            try save(account)
            try database.execute(
                "INSERT INTO submission (definition_id, definition_version, completed_at, answers, state) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(definition.id), .integer(Int64(definition.version)), .real(completedAt),
                    .text(Self.json(answers)), .text(state.rawValue),
                ])
            var id: Int64 = 0
            try database.execute("SELECT last_insert_rowid()") { id = Int64($0[0]) ?? 0 }
            for (task, path) in movedTakes {
                try database.execute(
                    "UPDATE recording SET submission_id = ?, path = ?, format = ? WHERE submission_id IS NULL AND definition_id = ? AND task = ?",
                    [
                        .integer(id), .text(path), .text((path as NSString).pathExtension), .text(definition.id),
                        .text(task),
                    ])
            }
            try database.execute("DELETE FROM draft WHERE definition_id = ?", [.text(definition.id)])
            return id
        }
    }

    public func submissions(_ definitionID: String? = nil) throws(PluginStatus) -> [Submission] {
        var found: [Submission] = []
        let filter = definitionID == nil ? "" : "WHERE definition_id = ?"
        try database.execute(
            "SELECT id, definition_id, definition_version, completed_at, answers, state, attempts, last_error, next_round_at, job FROM submission \(filter) ORDER BY id",
            definitionID.map { [.text($0)] } ?? []
        ) { row in
            let answers =
                (try? JSONDecoder().decode([String: [String: String]].self, from: Data(row[4].utf8))) ?? [:]
            found.append(
                Submission(
                    id: Int64(row[0]) ?? 0, definitionID: row[1], definitionVersion: Int(row[2]) ?? 0,
                    completedAt: Double(row[3]) ?? 0, answers: answers, state: State(rawValue: row[5]) ?? .queued,
                    attempts: Int(row[6]) ?? 0, lastError: row[7].nilIfEmpty, nextRoundAt: Double(row[8]),
                    job: Int64(row[9])))
        }
        return found
    }

    public func update(_ submission: Submission) throws(PluginStatus) {
        try database.execute(
            "UPDATE submission SET state = ?, attempts = ?, last_error = ?, next_round_at = ?, job = ? WHERE id = ?",
            [
                .text(submission.state.rawValue), .integer(Int64(submission.attempts)),
                .text(submission.lastError ?? ""), submission.nextRoundAt.map { .real($0) } ?? .text(""),
                submission.job.map { .integer($0) } ?? .text(""), .integer(submission.id),
            ])
    }

    /// After HTTP 200: the submission and its rows go; the initial answers too, once sent.
    public func delivered(_ submission: Submission, sentInitial: Bool) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            try database.execute("DELETE FROM recording WHERE submission_id = ?", [.integer(submission.id)])
            try database.execute("DELETE FROM submission WHERE id = ?", [.integer(submission.id)])
            if sentInitial {
                var account = try account(submission.definitionID)
                account.uploadedInitial = true
                account.initialAnswers = nil
                try save(account)
            }
        }
    }

    /// Deletes a submission kept locally (export done, or the user discards it).
    public func discard(_ id: Int64) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            try database.execute("DELETE FROM recording WHERE submission_id = ?", [.integer(id)])
            try database.execute("DELETE FROM submission WHERE id = ?", [.integer(id)])
        }
    }

    /// "Forget me": every row of `definitionID`.
    public func forget(_ definitionID: String) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            for table in ["account", "token", "draft", "submission", "recording"] {
                try database.execute("DELETE FROM \(table) WHERE definition_id = ?", [.text(definitionID)])
            }
        }
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

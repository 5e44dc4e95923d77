import Foundation
import Storage

extension OutboxStore {
    /// What the server finally said, or why the outbox gave up.
    package struct Outcome: Equatable, Sendable {
        package var jobID: Int64
        package var owner: String
        /// The HTTP status; nil when the outbox gave up without one.
        package var status: Int?
        package var headers: [OutboxRequest.Header]
        package var body: Data
        /// Why the outbox gave up, for failed jobs.
        package var error: String?
        /// The plugin's reference from the request.
        package var tag: String?
        /// The answer's body was longer than kept.
        package var truncated: Bool
    }

    /// Outcomes not yet delivered to `owner`, oldest first.
    package func outcomes(owner: String) throws(StorageError) -> [Outcome] {
        var result: [Outcome] = []
        try database.execute(
            """
            SELECT job_id, owner, status, headers, body, error, tag, truncated FROM outcomes WHERE owner = ?
            ORDER BY job_id
            """,
            arguments: [.text(owner)]
        ) { _, values in
            if let outcome = Self.outcome(values) { result.append(outcome) }
            return true
        }
        return result
    }

    /// The stored outcome of job `jobID`, if it has one.
    package func outcome(jobID: Int64) throws(StorageError) -> Outcome? {
        var found: Outcome?
        try database.execute(
            "SELECT job_id, owner, status, headers, body, error, tag, truncated FROM outcomes WHERE job_id = ?",
            arguments: [.integer(jobID)]
        ) { _, values in
            found = Self.outcome(values)
            return false
        }
        return found
    }

    /// The owner has the outcome: forget it. Returns false when there was none.
    @discardableResult
    package func acknowledge(_ jobID: Int64, owner: String) throws(StorageError) -> Bool {
        try delete("DELETE FROM outcomes WHERE job_id = ? AND owner = ?", jobID, owner: owner)
    }

    /// Stores `outcome` and removes its job, in one transaction.
    func store(_ outcome: Outcome) throws(StorageError) {
        try database.transaction { () throws(StorageError) in try insert(outcome) }
        scrub(after: outcome.owner)
    }

    /// Stores `outcome` and removes its job, inside the caller's transaction.
    func insert(_ outcome: Outcome) throws(StorageError) {
        let headers = String(decoding: (try? JSONEncoder().encode(outcome.headers)) ?? Data("[]".utf8), as: UTF8.self)
        do {
            try database.execute(
                """
                INSERT OR REPLACE INTO outcomes (job_id, owner, status, headers, body, error, tag, truncated)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                arguments: [
                    .integer(outcome.jobID), .text(outcome.owner), outcome.status.map { .integer(Int64($0)) } ?? .null,
                    .text(headers), .blob(outcome.body), outcome.error.map { .text($0) } ?? .null,
                    outcome.tag.map { .text($0) } ?? .null, .integer(outcome.truncated ? 1 : 0),
                ])
            try database.execute("DELETE FROM jobs WHERE id = ?", arguments: [.integer(outcome.jobID)])
        }
    }

    /// Jobs whose stored request cannot be decoded (a damaged row), for `assist outbox`; the next send turns
    /// each into a failed outcome.
    package func unreadableJobs() throws(StorageError) -> [(id: Int64, owner: String)] {
        var found: [(id: Int64, owner: String)] = []
        try database.execute(
            "SELECT id, owner, request, attempts, max_attempts, idempotency_key FROM jobs ORDER BY id"
        ) { _, values in
            if Self.job(values) == nil, case .integer(let id) = values.first {
                var owner = "unknown"
                if case .text(let text) = values[1] { owner = text }
                found.append((id, owner))
            }
            return true
        }
        return found
    }

    private static func outcome(_ values: [SQLValue]) -> Outcome? {
        guard values.count == 8, case .integer(let id) = values[0], case .text(let owner) = values[1],
            case .text(let headerText) = values[3]
        else { return nil }
        var status: Int?
        if case .integer(let value) = values[2] { status = Int(value) }
        var body = Data()
        if case .blob(let data) = values[4] { body = data }
        var error: String?
        if case .text(let text) = values[5] { error = text }
        var tag: String?
        if case .text(let text) = values[6] { tag = text }
        let truncated = values[7] == .integer(1)
        let headers = (try? JSONDecoder().decode([OutboxRequest.Header].self, from: Data(headerText.utf8))) ?? []
        return Outcome(
            jobID: id, owner: owner, status: status, headers: headers, body: body, error: error, tag: tag,
            truncated: truncated)
    }
}

import Foundation
import Storage

/// Which process is sending a job: each store that takes jobs holds an exclusive `flock` on a file of its own,
/// `<outbox folder>/outbox-senders/<token>`, and marks every job it takes with the token. The kernel drops
/// the lock when the process dies however it dies, so a job in flight whose token's file is missing or can be
/// locked was left by a sender that is gone and may be sent again; one whose file is still locked is being
/// sent right now, by this process or another (`assist outbox send` beside a running shell), and is left
/// alone. (`flock` locks belong to an open file, so a second look from this very process also sees it held.)
final class SenderClaim: Sendable {
    let token: String
    private let file: String
    private let descriptor: Int32

    /// Makes and locks a new claim in `folder` (created 0700).
    init(folder: URL) throws(StorageError) {
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("Creating \(folder.path)", cause: error.localizedDescription)
        }
        token = UUID().uuidString
        file = folder.appendingPathComponent(token).path
        descriptor = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .io("Creating \(file)", cause: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let cause = String(cString: strerror(errno))
            close(descriptor)
            unlink(file)
            throw .io("Locking \(file)", cause: cause)
        }
    }

    deinit {
        unlink(file)
        close(descriptor)
    }

    /// Whether the sender that made `token`'s claim in `folder` is gone. A gone sender's file is removed.
    static func isGone(_ token: String, in folder: URL) -> Bool {
        // A token is a UUID this code made; anything else (a damaged row) names no file here.
        guard UUID(uuidString: token) != nil else { return true }
        let file = folder.appendingPathComponent(token).path
        let descriptor = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return errno == ENOENT }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
        unlink(file)
        return true
    }

    /// Removes the files of every sender that is gone (a process that died leaves its file behind).
    static func sweep(_ folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where UUID(uuidString: name) != nil { _ = isGone(name, in: folder) }
    }
}

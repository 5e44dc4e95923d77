import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech
import Storage

/// assist.outbox/1: the plugin's uploads.
package protocol OutboxProviding: Sendable {
    /// Stores `request` for sending; its job id. Throws `PermissionDenied` (no network, or a server the manifest
    /// does not declare), an `OutboxError` or a `StorageError`. Any thread.
    func enqueue(_ request: OutboxRequest, maxAttempts: Int) throws -> Int64
    /// Sends `request` once, now, storing nothing of it. Main loop.
    func sendNow(_ request: OutboxRequest) throws -> Int64
    /// Sets (or with nil removes) the handler of the plugin's outcomes; it runs on the main loop and returns
    /// true when it handled one. Main loop.
    func setHandler(_ handler: OutboxHub.Handler?)
    /// The plugin's handler goes, as it stops. Main loop.
    func forgetHandler()
    /// Forgets one of the plugin's outcomes; false when there is no such outcome.
    func acknowledge(_ job: Int64) -> Bool
    /// Withdraws one of the plugin's waiting jobs; false when it is not waiting.
    func cancel(_ job: Int64) -> Bool
    /// The plugin's jobs waiting or being sent plus its outcomes not yet handled; nil when the outbox cannot
    /// be read.
    func pending() -> Int?
    /// True when `host` resolves and a route to it exists (no request is sent).
    func isOnline(_ host: String) -> Bool
}

struct LocalOutbox: OutboxProviding {
    let hub: OutboxHub
    let owner: String
    let permissions: PermissionGate

    func enqueue(_ request: OutboxRequest, maxAttempts: Int) throws -> Int64 {
        try permissions.requireServer(of: request.url)
        return try hub.enqueue(owner: owner, request: request, maxAttempts: maxAttempts)
    }
    func sendNow(_ request: OutboxRequest) throws -> Int64 {
        try permissions.requireServer(of: request.url)
        return try hub.sendNow(owner: owner, request: request)
    }
    func setHandler(_ handler: OutboxHub.Handler?) { hub.setHandler(owner: owner, handler) }
    func forgetHandler() { hub.forget(owner: owner) }
    func acknowledge(_ job: Int64) -> Bool { (try? hub.store().acknowledge(job, owner: owner)) == true }
    func cancel(_ job: Int64) -> Bool { (try? hub.store().cancel(job, owner: owner)) == true }

    func pending() -> Int? {
        guard let store = try? hub.store(), let jobs = try? store.jobs() else { return nil }
        // Jobs waiting or being sent, and outcomes not yet handled by the plugin: a plugin that starts new work
        // only at 0 never races a finished job whose outcome is still on its way to it.
        let outcomes = (try? store.outcomes(owner: owner))?.count ?? 0
        return jobs.filter { $0.job.owner == owner }.count + outcomes
    }

    /// False without asking anyone for a server the plugin may not reach: a name lookup is a message too.
    func isOnline(_ host: String) -> Bool {
        guard permissions.granted.contains(.network), permissions.manifest.mayReach(host) else { return false }
        return Connectivity.isReachable(host: host)
    }
}

import AssistCore
import Foundation
import Logging
import Runtime
import Storage

/// The host's outbox as plugins see it: one queue in `<data>/outbox.sqlite`, sent by one worker thread, and
/// outcomes handed to their plugin on the main loop (stored until the plugin has them, also across restarts).
/// The database opens and the worker starts only when something uses the outbox.
// because: `opened`, `worker` and `failure` are guarded by `lock`; `handlers` is used only on the main loop
package final class OutboxHub: @unchecked Sendable {
    /// A plugin's outcome callback: returns true when handled.
    package typealias Handler = (OutboxStore.Outcome) -> Bool

    private let paths: AssistPaths
    private let settings: SettingsStore
    private let loop: MainLoop
    private let logger: Logger
    private let lock = NSLock()
    private var opened: OutboxStore?
    private var worker: OutboxWorker?
    private var handlers: [String: Handler] = [:]
    /// Told about outcomes the user must act on (the server refused credentials, a job was given up).
    package var onTrouble: (@Sendable (_ owner: String, _ outcome: OutboxStore.Outcome) -> Void)?
    /// Told about every outcome as an event.
    package var events: EventBus?

    package init(paths: AssistPaths, settings: SettingsStore, loop: MainLoop, logger: Logger) {
        self.paths = paths
        self.settings = settings
        self.loop = loop
        self.logger = logger
    }

    /// Said when the queue's database was damaged and set aside: one sentence naming both files.
    package var onDamaged: (@Sendable (String) -> Void)?

    /// The queue's database, opened once. One SQLite cannot read at all (not a database, or its pages damaged)
    /// is moved aside as `outbox.sqlite.damaged-<time>` with its -wal and -shm, a new one started, and that
    /// said (`onDamaged`) and logged: one bad file must not stop every upload for good.
    package func store() throws -> OutboxStore {
        var notice: String?
        let store = try lock.withLock { () throws -> OutboxStore in
            if let opened { return opened }
            try AssistPaths.ensurePrivateDirectory(paths.data)
            let url = paths.data.appendingPathComponent("outbox.sqlite")
            let store: OutboxStore
            do {
                store = try OutboxStore(url: url)
            } catch let error as StorageError where Self.isDamaged(error) || Self.isForeign(error) {
                let aside = try Self.setAside(url)
                notice =
                    Self.isForeign(error)
                    ? "The upload queue \(url.path) is another program's database (\(error.cause ?? error.message)). It was moved to \(aside.path) and a new queue started; if it was Assist's, keep that file for the study team."
                    : "The upload queue \(url.path) was damaged and could not be read (\(error.cause ?? error.message)). It was moved to \(aside.path) and a new queue started: what waited in it will not be sent; keep that file for the study team."
                logger.error("\(notice ?? "")")
                store = try OutboxStore(url: url)
            }
            opened = store
            return store
        }
        if let notice { onDamaged?(notice) }
        return store
    }

    /// SQLite's words for a file it cannot read as a database at all.
    static func isDamaged(_ error: StorageError) -> Bool {
        let cause = (error.cause ?? error.message).lowercased()
        return cause.contains("file is not a database") || cause.contains("database disk image is malformed")
    }

    /// A database that is not the queue: another program's tables, or the queue's without their columns.
    static func isForeign(_ error: StorageError) -> Bool {
        (error.cause ?? "").hasPrefix(OutboxStore.foreignCause)
    }

    /// Moves `url` (and its -wal and -shm) to `<name>.damaged-<UTC time>`; the new name.
    static func setAside(_ url: URL) throws -> URL {
        do { return try DamagedFile.setAside(url, companions: ["-wal", "-shm"]) } catch {
            throw StorageError.io("Moving the damaged \(url.path) aside", cause: error.localizedDescription)
        }
    }

    /// Starts sending (once); jobs left from earlier sessions go first.
    package func start() throws {
        let store = try store()
        let worker: OutboxWorker = lock.withLock {
            if let worker = self.worker { return worker }
            let made = OutboxWorker(
                store: store, configuration: configuration(), logger: logger,
                onOutcome: { [weak self] outcome in self?.arrived(outcome) })
            self.worker = made
            return made
        }
        try worker.start()
    }

    /// Starts the worker when jobs wait from an earlier session.
    package func startIfJobsWait() {
        guard FileManager.default.fileExists(atPath: paths.data.appendingPathComponent("outbox.sqlite").path),
            let waiting = try? store().pendingCount(), waiting > 0
        else { return }
        do { try start() } catch { logger.error("the outbox cannot start: \(error)") }
    }

    /// Adds a job for `owner` and wakes the worker.
    package func enqueue(owner: String, request: OutboxRequest, maxAttempts: Int) throws -> Int64 {
        try HTTPSender.validate(request)
        let id = try store().enqueue(owner: owner, request: request, maxAttempts: maxAttempts)
        try start()
        lock.withLock { worker }?.wake()
        return id
    }

    private var ephemeralID: Int64 = 0

    /// Sends `request` once on a thread of its own, never storing it; the outcome (job id negative) goes to
    /// `owner`'s handler on the main loop and is not kept. Main loop.
    package func sendNow(owner: String, request: OutboxRequest) throws -> Int64 {
        try HTTPSender.validate(request)
        ephemeralID -= 1
        let id = ephemeralID
        let limits = configuration().limits
        let thread = Thread { [weak self] in
            var outcome = OutboxStore.Outcome(
                jobID: id, owner: owner, status: nil, headers: [], body: Data(), error: nil, tag: request.tag,
                truncated: false)
            do {
                let answer = try HTTPSender(limits: limits).send(request)
                outcome.status = answer.status
                outcome.headers = answer.headers
                outcome.body = answer.body
                outcome.truncated = answer.truncated
            } catch let error as OutboxError {
                outcome.error = error.message
            } catch {
                outcome.error = "\(error)"
            }
            let finished = outcome
            self?.loop.post { [weak self] in _ = self?.handlers[owner]?(finished) }
        }
        thread.name = "outbox-now"
        thread.start()
        return id
    }

    /// Waits until nothing is due or being sent; true when idle within `timeout` seconds.
    package func waitUntilIdle(timeout: Double) -> Bool {
        guard let worker = lock.withLock({ worker }) else { return true }
        return worker.waitUntilIdle(timeout: timeout)
    }

    /// Stops the worker after its current exchange.
    package func stop() { lock.withLock { worker }?.stop() }

    /// Stops the worker and waits up to `timeout` seconds for the exchanges under way to end, so that an
    /// answer the server already gave is stored rather than lost (and the request sent twice). For a host
    /// that is about to exit. When none is left, this process's claim on the jobs it sends is given up at
    /// once (one left behind is cleared by the next sender to start).
    @discardableResult
    package func stopAndFinishExchanges(timeout: Double) -> Bool {
        guard let worker = lock.withLock({ worker }) else { return true }
        worker.stop()
        let finished = worker.waitForExchanges(timeout: timeout)
        if finished { lock.withLock { opened }?.releaseClaim() }
        return finished
    }

    /// Sets `owner`'s callback and offers it every outcome waiting for it. Main loop.
    package func setHandler(owner: String, _ handler: Handler?) {
        handlers[owner] = handler
        guard handler != nil, let waiting = try? store().outcomes(owner: owner), !waiting.isEmpty else { return }
        loop.post { [self] in waiting.forEach(deliver) }
    }

    /// A job ended (worker thread).
    private func arrived(_ outcome: OutboxStore.Outcome) {
        var fields = ["job": "\(outcome.jobID)", "owner": Self.quoted(outcome.owner)]
        fields["status"] = outcome.status.map(String.init) ?? "null"
        fields["error"] = outcome.error.map(Self.quoted) ?? "null"
        let json =
            "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        events?.publish(outcome.error == nil ? "assist.outbox.sent" : "assist.outbox.failed", json: json)
        let trouble = outcome.error != nil || outcome.status == 401 || outcome.status == 403
        loop.post { [self] in
            // A plugin that listens tells its user itself (the survey retries a refused token on its own).
            if trouble, handlers[outcome.owner] == nil { onTrouble?(outcome.owner, outcome) }
            deliver(outcome)
        }
    }

    /// Hands `outcome` to its plugin, if it listens, and forgets it when handled. Main loop.
    private func deliver(_ outcome: OutboxStore.Outcome) {
        guard let handler = handlers[outcome.owner] else { return }
        // Offered once per session: a kept outcome stays stored, so it is offered again after a restart.
        guard (try? store().outcome(jobID: outcome.jobID)) != nil else { return }
        if handler(outcome) { _ = try? store().acknowledge(outcome.jobID, owner: outcome.owner) }
    }

    package func forget(owner: String) { handlers[owner] = nil }

    /// Asked before each job is sent: nil when `owner` may still send to `url` (its permission and its
    /// manifest's servers, checked again), else why the job waits (OutboxWorker.Configuration.holding). Unset,
    /// only the files are checked. Set before the outbox starts.
    nonisolated(unsafe) package var permits: (@Sendable (_ owner: String, _ url: String) -> String?)?

    private func configuration() -> OutboxWorker.Configuration {
        var configuration = OutboxWorker.Configuration()
        let paths = self.paths
        let permits = self.permits
        configuration.vetting = { owner, request in
            let roots = [
                paths.data.appendingPathComponent("plugins").appendingPathComponent(owner),
                paths.cache.appendingPathComponent("plugins").appendingPathComponent(owner),
            ]
            return PinnedFile.problem(in: request, roots: roots)
        }
        if let permits { configuration.holding = { owner, request in permits(owner, request.url) } }
        if let base = settings.value("outbox.retry-base-seconds")?.number, base > 0 {
            configuration.retryBaseSeconds = base
        }
        if let stall = settings.value("outbox.stall-seconds")?.integer, stall > 0 {
            configuration.limits.stallSeconds = Int(stall)
        }
        if let connect = settings.value("outbox.connect-seconds")?.number, connect > 0 {
            configuration.limits.connectSeconds = connect
        }
        return configuration
    }

    private static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

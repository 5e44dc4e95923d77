import Foundation
import Logging

/// Sends the outbox's jobs on a few threads of its own (2 by default): the oldest due job first, each
/// plugin's jobs one at a time and in order, so one plugin's long upload never holds up another's. Transport
/// errors, 5xx and 429 are tried again after a jittered back-off (a `Retry-After` is honoured) until the job's
/// attempt limit; any other answer is final. While the network is down jobs wait without spending attempts.
/// Every final outcome is stored before `onOutcome` hears of it.
// because: the mutable state is guarded by `condition`; each sender is used only on its own thread
package final class OutboxWorker: @unchecked Sendable {
    package struct Configuration: Sendable {
        /// The back-off's first ceiling in seconds (30 s in production; tests shorten it).
        package var retryBaseSeconds: Double
        package var limits: HTTPSender.Limits
        /// Whether `host` can be reached now; while false, jobs for it wait.
        package var isOnline: @Sendable (_ host: String) -> Bool
        /// How often to look at the network again while it is down.
        package var offlinePollSeconds: Double
        /// How many exchanges may run at once, each for a different plugin.
        package var senders: Int
        /// Checks a job just before it is sent: nil to send it, else why it is never sent (a file that is not
        /// its owner's, or changed since it was queued; an owner no longer given that server).
        package var vetting: (@Sendable (_ owner: String, _ request: OutboxRequest) -> String?)?
        /// Checks a job after `vetting`: nil to send it, else why it waits (its owner's network permission or
        /// that server is not given now). A held job spends no attempt and is looked at again every
        /// `heldPollSeconds`, so giving the permission back sends it and nothing queued is lost.
        package var holding: (@Sendable (_ owner: String, _ request: OutboxRequest) -> String?)?
        package var heldPollSeconds: Double = 60

        package init(
            retryBaseSeconds: Double = Backoff.baseSeconds, limits: HTTPSender.Limits = HTTPSender.Limits(),
            isOnline: @escaping @Sendable (String) -> Bool = Connectivity.isReachable(host:),
            offlinePollSeconds: Double = 5, senders: Int = 2
        ) {
            self.retryBaseSeconds = retryBaseSeconds
            self.limits = limits
            self.isOnline = isOnline
            self.offlinePollSeconds = offlinePollSeconds
            self.senders = max(1, senders)
        }
    }

    private let store: OutboxStore
    private let configuration: Configuration
    private let logger: Logger
    private let onOutcome: @Sendable (OutboxStore.Outcome) -> Void
    private let condition = NSCondition()
    /// Counts calls to `wake`; a sender that has not looked since the latest one does not sleep.
    private var generation: UInt64 = 0
    /// The latest generation some sender has acted on.
    private var handled: UInt64 = 0
    private var stopping = false
    /// Senders looking for or sending a job.
    private var busy = 0
    private var started = false
    /// The held jobs already logged as a warning (later looks are debug lines).
    private var heldLogged = Set<Int64>()
    /// When jobs left in flight by a sender that has gone were last looked for (`OutboxStore.recover`): at the
    /// start, then at least every `recoverySeconds`, so an `assist outbox send` killed mid-upload does not hold
    /// up that plugin's uploads in a host that keeps running.
    private var recovered = Date()
    static let recoverySeconds = 60.0

    package init(
        store: OutboxStore, configuration: Configuration = Configuration(), logger: Logger,
        onOutcome: @escaping @Sendable (OutboxStore.Outcome) -> Void
    ) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.onOutcome = onOutcome
    }

    /// Starts the sender threads (once; later calls do nothing). Jobs a sender that has gone left in flight go
    /// back to pending first, and only then: a job in flight now, here or in another process, is never put back
    /// while it is being sent.
    package func start() throws(OutboxError) {
        let first = condition.withLock {
            defer { started = true }
            return !started
        }
        guard first else { return }
        var senders: [HTTPSender] = []
        do {
            try store.recover()
            for _ in 0..<configuration.senders { senders.append(try HTTPSender(limits: configuration.limits)) }
        } catch {
            condition.withLock { started = false }
            throw error as? OutboxError
                ?? OutboxError(code: .storage, message: "The outbox cannot start: \(error).", cause: "\(error)")
        }
        condition.withLock {
            for (index, sender) in senders.enumerated() {
                let handOver = SenderHandOver(sender: sender)
                let thread = Thread { [self] in run(handOver.sender) }
                thread.name = "assist-outbox-\(index + 1)"
                thread.start()
            }
        }
    }

    /// Looks for due jobs now: a job was added, or the network came back.
    package func wake() {
        condition.withLock {
            generation &+= 1
            condition.broadcast()
        }
    }

    /// Stops after the current exchanges; a job cut short stays in flight and is sent again at the next start.
    package func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    /// After `stop`: waits until the exchanges under way have ended (their outcomes stored), or `timeout`
    /// seconds pass. True when none is left. A request cut off by an exit is sent again at the next start,
    /// which a server without idempotency (ORBIT's `POST api/thing/`) turns into a second record.
    package func waitForExchanges(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition.withLock({ busy == 0 }) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition.withLock { busy == 0 }
    }

    /// Waits until no job is due or being sent (later retries may still wait), or `timeout` seconds pass.
    /// Returns true when idle.
    package func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let due = (try? store.nextDueTime()).flatMap { $0 }
            let idle = condition.withLock { busy == 0 && handled == generation }
            if idle, due.map({ $0 > Date().timeIntervalSince1970 }) ?? true { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// One sender: takes the oldest due job any other sender is not already sending for its plugin, sends
    /// it, and sleeps until the next is due or `wake` is called.
    private func run(_ sender: HTTPSender) {
        while true {
            let (stop, seen) = condition.withLock {
                busy += 1
                handled = max(handled, generation)
                return (stopping, generation)
            }
            var sent = false
            if !stop {
                do {
                    let look = condition.withLock {
                        guard Date().timeIntervalSince(recovered) >= Self.recoverySeconds else { return false }
                        recovered = Date()
                        return true
                    }
                    if look, try store.recover() > 0 { logger.info("outbox: uploads a stopped sender left go again") }
                    let taken = try store.takeNext(now: Date().timeIntervalSince1970) { outcome in
                        logger.error(
                            "outbox: job \(outcome.jobID) of \(outcome.owner): \(OutboxStore.unreadableReason)")
                        onOutcome(outcome)
                    }
                    if let job = taken {
                        try handle(job, sender: sender)
                        sent = true
                    }
                } catch {
                    logger.error("outbox: \(error)")
                }
            }
            let due = sent || stop ? nil : (try? store.nextDueTime()).flatMap { $0 }
            let finished = condition.withLock {
                busy -= 1
                if stopping { return true }
                guard !sent, generation == seen else { return false }
                let wait = due.map { max(0.001, $0 - Date().timeIntervalSince1970) } ?? Self.recoverySeconds
                _ = condition.wait(until: Date().addingTimeInterval(min(wait, Self.recoverySeconds)))
                return false
            }
            if finished { return }
        }
    }

    private func handle(_ job: OutboxStore.Job, sender: HTTPSender) throws {
        let request = job.request
        if let problem = configuration.vetting?(job.owner, request) {
            logger.error("outbox: refused: \(request.loggable) of \(job.owner) is not sent: \(problem)")
            try store.fail(job, error: "Not sent: \(problem).")
            deliver(job)
            return
        }
        if let reason = configuration.holding?(job.owner, request) {
            let first = condition.withLock { heldLogged.insert(job.id).inserted }
            let line: Logger.Message = "outbox: \(request.loggable) of \(job.owner) waits: \(reason)"
            if first { logger.warning(line) } else { logger.debug(line) }
            try store.postpone(job, until: Date().timeIntervalSince1970 + configuration.heldPollSeconds)
            return
        }
        let host = URLComponents(string: request.url)?.host ?? ""
        guard configuration.isOnline(host) else {
            logger.debug("outbox: offline; \(request.loggable) waits")
            try store.postpone(job, until: Date().timeIntervalSince1970 + configuration.offlinePollSeconds)
            return
        }
        do {
            let answer = try sender.send(request, idempotencyKey: job.idempotencyKey)
            if Backoff.isTransient(status: answer.status) {
                let again = try store.retry(
                    job, status: answer.status, error: "the server answered \(answer.status)",
                    now: Date().timeIntervalSince1970, unit: Double.random(in: 0...1),
                    base: configuration.retryBaseSeconds, notBefore: Self.retryAfter(answer))
                logger.warning(
                    "outbox: \(request.loggable) answered \(answer.status); \(again ? "will retry" : "gave up")")
                if !again { deliver(job) }
            } else {
                logger.info("outbox: \(request.loggable) answered \(answer.status)")
                try store.finish(job, answer: answer)
                deliver(job)
            }
        } catch let error as OutboxError where error.isTransient {
            let again = try store.retry(
                job, status: nil, error: error.message, now: Date().timeIntervalSince1970,
                unit: Double.random(in: 0...1), base: configuration.retryBaseSeconds)
            logger.warning("outbox: \(request.loggable): \(error.message) \(again ? "Will retry." : "Gave up.")")
            if !again { deliver(job) }
        } catch let error as OutboxError {
            logger.error("outbox: \(request.loggable): \(error.message)")
            try store.fail(job, error: error.message)
            deliver(job)
        }
    }

    private func deliver(_ job: OutboxStore.Job) {
        guard let outcome = try? store.outcome(jobID: job.id) else { return }
        onOutcome(outcome)
    }

    /// A `Retry-After` in seconds, as an absolute time; 0 without one.
    static func retryAfter(_ answer: HTTPAnswer) -> Double {
        guard let text = answer.header("Retry-After"), let seconds = Double(text), seconds >= 0 else { return 0 }
        return Date().timeIntervalSince1970 + min(seconds, Backoff.capSeconds)
    }
}

/// Moves a sender to its thread, which is its only user from then on.
private struct SenderHandOver: @unchecked Sendable {  // because: the starting thread never touches it again
    let sender: HTTPSender
}

/// Whether the network is up, from the kernel's routing tables: loopback is always reachable, anything else
/// needs a default route on some interface other than `lo`.
package enum Connectivity {
    package static func isReachable(host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasPrefix("127.") || name == "::1" { return true }
        return hasDefaultRoute()
    }

    /// True when `/proc/net/route` or `/proc/net/ipv6_route` has a default route off loopback.
    package static func hasDefaultRoute(
        ipv4: String = "/proc/net/route", ipv6: String = "/proc/net/ipv6_route"
    ) -> Bool {
        if let table = try? String(contentsOfFile: ipv4, encoding: .utf8) {
            for line in table.split(separator: "\n").dropFirst() {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if fields.count > 2, fields[0] != "lo", fields[1] == "00000000" { return true }
            }
        }
        if let table = try? String(contentsOfFile: ipv6, encoding: .utf8) {
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count == 10, fields[0] == String(repeating: "0", count: 32), fields[1] == "00",
                    fields[9] != "lo"
                {
                    return true
                }
            }
        }
        return false
    }
}

import AssistCore
import Foundation
import Kiosk
import Logging
import Outbox
import PluginHost
import Runtime

/// Sends what departed people left waiting in a per-person kiosk, then deletes their sittings (`Sittings`). On
/// a worker thread, one departed sitting after the other, each with `assist` itself in that sitting's folder
/// and without speech: first every allowed feature's `send_waiting` command (their own steps: ORBIT's things
/// before their clips, a survey's account before its answers), then `assist outbox send --now` for the rest.
/// A sitting is deleted whole once each of those commands exited 0 (nothing of the feature's waits) and its
/// outbox holds no job; otherwise it is tried again later.
package final class SittingDrain: @unchecked Sendable {  // because: `running` and `timer` are guarded by `lock`
    private let sittings: Sittings
    private let options: HostOptions
    private let config: KioskConfig
    private let logger: Logger
    /// Each installed feature with a `send_waiting` command: its arguments and library, taken on the main loop.
    private let senders: [String: (arguments: [String], library: URL)]
    private let lock = NSLock()
    private var running = false
    private var stopped = false
    private var timer: UInt64?
    private weak var loop: MainLoop?
    /// How long one feature's or the outbox's sending may take before it is left for the next round.
    package static let stepSeconds = 150

    package init(
        sittings: Sittings, options: HostOptions, config: KioskConfig, logger: Logger,
        installed: [PluginRecord]
    ) {
        self.sittings = sittings
        self.options = options
        self.config = config
        self.logger = logger
        var senders: [String: (arguments: [String], library: URL)] = [:]
        for record in installed {
            if let arguments = record.manifest?.sendWaiting, !arguments.isEmpty, senders[record.id] == nil {
                senders[record.id] = (arguments, record.libraryURL)
            }
        }
        self.senders = senders
    }

    /// A round now, then one every `seconds` while the kiosk runs (uploads that could not go wait for the
    /// network).
    package func start(every seconds: UInt32, on loop: MainLoop) {
        self.loop = loop
        round()
        let id = loop.addTimer(milliseconds: seconds * 1000, repeating: true) { [weak self] in self?.round() }
        lock.withLock { timer = id }
    }

    /// No new round; a child already started finishes by itself (it is in its own folder).
    package func stop() {
        let id = lock.withLock { () -> UInt64? in
            stopped = true
            return timer
        }
        if let id { loop?.cancelTimer(id) }
    }

    private func round() {
        let names = sittings.departed
        guard !names.isEmpty else { return }
        let start = lock.withLock { () -> Bool in
            guard !running, !stopped else { return false }
            running = true
            return true
        }
        guard start else { return }
        Thread.detachNewThread { [self] in
            for name in names where !lock.withLock({ stopped }) { drain(name) }
            lock.withLock { running = false }
        }
    }

    /// One departed sitting: its features' own sending, the outbox, then deleted when nothing waits.
    func drain(_ name: String) {
        let root = sittings.path(of: name)
        // A sending started before the kiosk restarted itself may still run: a second one would take its
        // uploads in flight back and send them again.
        if Self.stillSending(in: root) {
            logger.notice("kiosk: sitting \(name): its sending from before a restart still runs")
            return
        }
        let plugins = root.appendingPathComponent("plugins")
        let used = (try? FileManager.default.contentsOfDirectory(atPath: plugins.path)) ?? []
        // A feature that could not say everything of its own was sent keeps the folder for the next round.
        var kept: [String] = []
        for id in used.sorted() {
            guard let (arguments, library) = senders[id] else { continue }
            // Only a library the admin allowed, as it is now.
            if let refusal = config.refusal(id: id, library: library) {
                logger.warning("kiosk: sitting \(name): \(id) is not run to send what waits: \(refusal)")
                kept.append(id)
                continue
            }
            let status = run(["run", id] + arguments, in: root)
            logger.notice("kiosk: sitting \(name): \(id) \(arguments.joined(separator: " ")) ended with \(status)")
            if status != 0 { kept.append(id) }
        }
        let outbox = root.appendingPathComponent("outbox.sqlite")
        if FileManager.default.fileExists(atPath: outbox.path) {
            let status = run(["outbox", "send", "--now", "--timeout", String(Self.stepSeconds)], in: root)
            logger.notice("kiosk: sitting \(name): the outbox's sending ended with \(status)")
        }
        let waiting = Self.waitingJobs(outbox)
        guard waiting == 0, kept.isEmpty else {
            let count = waiting.map(String.init) ?? "an unreadable count of"
            let features = kept.isEmpty ? "" : "; not everything of \(kept.joined(separator: ", ")) was sent"
            logger.notice("kiosk: sitting \(name): \(count) uploads wait\(features)")
            return
        }
        do {
            try sittings.remove(name)
            logger.notice("kiosk: sitting \(name): everything was sent; its folder is deleted")
        } catch {
            logger.error("kiosk: sitting \(name) cannot be deleted: \(error.localizedDescription)")
        }
    }

    /// The file naming the `assist` process that sends from a sitting, while it runs.
    static func pidFile(_ root: URL) -> URL { root.appendingPathComponent("sending.pid") }

    /// True while the process named in the sitting's `sending.pid` still runs with that sitting (one of this
    /// process's own children, from before an exec, is reaped here once it has ended).
    static func stillSending(in root: URL) -> Bool {
        guard let text = try? String(contentsOf: pidFile(root), encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else { return false }
        var status: Int32 = 0
        _ = waitpid(pid, &status, WNOHANG)
        guard kill(pid, 0) == 0,
            let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
            command.range(of: Data(root.path.utf8)) != nil
        else { return false }
        return true
    }

    /// How many jobs wait in the sitting's outbox: 0 without one, nil when it cannot be read (kept, then).
    static func waitingJobs(_ url: URL) -> Int? {
        guard FileManager.default.fileExists(atPath: url.path) else { return 0 }
        return try? OutboxStore(url: url).pendingCount()
    }

    /// `assist ARGUMENTS` in the sitting `root`, silent, with the kiosk's plugin and share folders and config;
    /// its exit status (-1 when it could not start; ended after twice `stepSeconds`). Its errors go to the
    /// sitting's `sending.log`.
    private func run(_ arguments: [String], in root: URL) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var global = ["--data-dir", root.path, "--no-speech"]
        for folder in options.pluginDir { global += ["--plugin-dir", folder] }
        if let share = options.shareDir { global += ["--share-dir", share] }
        if let config = options.config { global += ["--config", config] }
        process.arguments = arguments + global
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_DOCUMENTS_DIR"] = root.appendingPathComponent("documents").path
        for name in ServiceNotifier.variables + [KioskRun.configHomeKey, KioskRun.documentsKey] {
            environment[name] = nil
        }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        // Its lines stay with the sitting (kept for the admin while something waits), not on the next person's
        // screen.
        let log = root.appendingPathComponent("sending.log")
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        let handle = try? FileHandle(forWritingTo: log)
        _ = try? handle?.seekToEnd()
        process.standardError = handle ?? FileHandle.nullDevice
        defer { try? handle?.close() }
        do { try process.run() } catch {
            logger.error("kiosk: assist \(arguments.first ?? "") cannot start: \(error.localizedDescription)")
            return -1
        }
        try? PrivateFile.write(Data("\(process.processIdentifier)\n".utf8), to: Self.pidFile(root))
        defer { try? FileManager.default.removeItem(at: Self.pidFile(root)) }
        let deadline = Date().addingTimeInterval(Double(Self.stepSeconds * 2))
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                break
            }
            Thread.sleep(forTimeInterval: 0.2)
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

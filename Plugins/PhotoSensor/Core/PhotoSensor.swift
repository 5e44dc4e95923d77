import Foundation
import PluginAPI
import PluginKit

/// The photo sensor (AWARE photos port, spec photo-sensor.md), the first background plugin: it watches the
/// configured folders while the host runs and records one `ios_photos` row per new photo, video or (with
/// `includeAudio`) sound, never the media. Silent by default. Verbs (`assist run photo-sensor VERB`):
/// `watch --once`, `status [--json]`, `label TEXT`, `start`, `stop`. Every method runs on [main] unless it
/// says otherwise.
public final class PhotoSensor: PluginFeature {
    let host: PluginHostHandle
    /// What it says, in the session's language (`share/phrases.<lang>.json`).
    let phrases: PhraseTable
    var configuration: SensorConfiguration
    var store: SensorStore?
    var indexer: MediaIndexer?
    var watcher: FolderWatcher?
    /// Indexing runs here, never on [main] and never in the watcher's thread.
    let worker = WorkerThread(name: "photo-sensor-index")
    /// Recognition's own worker and recognizer (nil when `performRecognition` is off), and why it cannot run.
    let recognition = WorkerThread(name: "photo-sensor-recognize")
    var recognizer: Recognizer?
    var recognitionProblem: Recognizer.Problem?
    /// Tries so far of files not ready yet (worker only), and the wait between tries (spec §3.6: 2 s).
    var retries: [String: Int] = [:]
    var retryDelay = 2.0
    var lastProblem: String?
    /// A sync run is going; its first failure, and how the last run ended.
    var syncing = false
    var runFailure: String?
    /// Photo rows the server took in this run.
    var runSent = 0
    var lastSync: (ok: Bool, error: String?)?
    var onSyncEnded: (() -> Void)?
    /// Failed automatic runs in a row, for the back-off; whether the next automatic run is scheduled.
    var failures = 0
    var automaticSyncScheduled = false

    public init(host: PluginHostHandle) {
        self.host = host
        let phrases = PhraseTable(directory: host.shareDirectory, language: host.language)
        self.phrases = phrases
        self.configuration = SensorConfiguration(phrases: phrases) { host.setting($0) }
    }

    deinit {
        worker.stop()
        recognition.stop()
    }

    public func start(arguments: [String]) throws(PluginError) {
        if arguments == ["--help"] || arguments == ["-h"] {
            host.print(phrases.text("help-usage"))
            return host.finish()
        }
        try open()
        switch arguments.first {
        case nil:
            // Started with the host: only when an admin or the user set it up; otherwise it leaves quietly.
            guard host.setting("enabled", default: true), !configuration.watchDirectories.isEmpty else {
                host.log(.info, "not set up (no watchDirectories in [photo-sensor]); not running")
                host.finish()
                return
            }
            for problem in configuration.problems { host.log(.warning, "[photo-sensor] \(problem)") }
            try startWatching(announce: true)
            registerCommands()
            listenToTheBus()
        case "start":
            try? store?.setValue("running", for: "state")
            host.publish(SensorEvents.start, json: "{\(Self.source)}")
            say(phrases.text("started-here"))
            host.finish()
        case "watch" where arguments.contains("--once"):
            try watchOnce(sync: !arguments.contains("--no-sync"))
        case "sync":
            say(phrases.text("syncing"))
            host.publish(SensorEvents.sync, json: #"{\#(Self.source),"force":\#(arguments.contains("--force"))}"#)
            syncThenFinish()
        case "status":
            // JSON is for scripts: printed whole, never spoken.
            if arguments.contains("--json") { host.print(status(json: true)) } else { say(status(json: false)) }
            host.finish()
        case "export":
            try export(to: arguments.dropFirst().first)
            host.finish()
        case "label":
            let text = arguments.dropFirst().joined(separator: " ")
            try setLabel(text)
            host.finish()
        case "pause":
            try pause(arguments: Array(arguments.dropFirst()))
            host.finish()
        case "resume":
            resumePause()
            host.finish()
        case "stop":
            try? store?.setValue("stopped", for: "state")
            host.publish(SensorEvents.stop, json: "{\(Self.source)}")
            say(phrases.text("stopped"))
            host.finish()
        case let other?:
            throw PluginError(phrases.text("unknown-command", ["command": other]))
        }
    }

    public func stop() {
        watcher?.stop()
        watcher = nil
    }

    private func open() throws(PluginError) {
        guard store == nil else { return }
        do {
            let store = try SensorStore(host: host)
            self.store = store
            let indexer = try MediaIndexer(
                store: store, includeAudio: configuration.includeAudio, label: try store.value("label") ?? "")
            indexer.recognition = configuration.performRecognition
            self.indexer = indexer
            recognizer = makeRecognizer()
        } catch {
            throw PluginError(fullDiskSentence() ?? phrases.text("database-unopened", ["reason": error.message]))
        }
    }

    func say(_ text: String) { host.say(text) }

    /// What to say when a write failed because the disk holding the data folder is full (under 256 KB free):
    /// nothing is lost, the pictures wait for the next catch-up.
    func fullDiskSentence() -> String? {
        guard let data = host.dataDirectory else { return nil }
        var info = statvfs()
        guard statvfs(data, &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_frsize) < 256 << 10 else { return nil }
        return phrases.text("disk-full")
    }

    // MARK: Watching

    /// Watches the folders; the first start ever indexes what is there as a baseline without rows.
    func startWatching(announce: Bool) throws(PluginError) {
        guard let store, let indexer else { return }
        if (try? store.value("state")) == "stopped", announce { return }
        guard !configuration.watchDirectories.isEmpty else {
            throw PluginError(phrases.text("no-folders"))
        }
        try? store.setValue("running", for: "state")
        let folders = configuration.watchDirectories
        let recursive = configuration.recursive
        let target = WeakSensor(self)
        let watcher = FolderWatcher(
            folders: folders, recursive: recursive, debounceSeconds: configuration.debounceSeconds,
            retrySeconds: configuration.folderRetrySeconds
        ) { changes in
            target.sensor?.worker.run { target.sensor?.index(changes) }
        }
        do { try watcher.start() } catch {
            throw PluginError(phrases.text("no-inotify"))
        }
        self.watcher = watcher
        if watcher.unwatched.values.contains(FolderWatcher.limitReason) {
            host.log(
                .warning,
                "some subfolders are not watched: \(FolderWatcher.limitReason); raise it with sysctl fs.inotify.max_user_watches=N. A catch-up every 5 minutes covers them meanwhile."
            )
        }
        let baseline = (try? store.value("baseline")) == nil || pausedUntil() != nil
        let window = pauseWindow()
        worker.run { [weak self] in
            guard let self else { return }
            indexer.pausedWindow = window
            do {
                let outcomes = try indexer.catchUp(folders, recursive: recursive, baseline: baseline)
                try store.setValue("done", for: "baseline")
                publish(outcomes)
                recognizeOwed()  // what a restart left owed
            } catch {
                host.log(.error, "catch-up failed: \(error)")
            }
        }
        host.publish(SensorEvents.start, json: "{\(Self.source)}")
        scheduleAutomaticSync()
        if announce && configuration.transparency {
            let names = folders.map { ($0 as NSString).lastPathComponent }.joined(separator: phrases.text("and"))
            say(phrases.text("on-watching", ["names": names]))
        }
    }

    /// Settled changes from the watcher, on the worker: rows written, events posted, files not ready yet
    /// tried again.
    private func index(_ changes: [FolderChange]) {
        guard let indexer else { return }
        indexer.pausedWindow = pauseWindow()
        do {
            let outcomes = try indexer.apply(
                changes, folders: configuration.watchDirectories, recursive: configuration.recursive,
                baseline: pausedUntil() != nil)
            publish(outcomes)
            retryLater(outcomes)
        } catch {
            host.log(.error, "a change could not be recorded: \(error.message)")
        }
    }

    /// A file busy or unreadable is tried again 2 s later, 3 times at most; the third try records what it can.
    /// On the worker.
    private func retryLater(_ outcomes: [MediaIndexer.Outcome]) {
        for case .busy(let path) in outcomes {
            let attempt = (retries[path] ?? 0) + 1
            guard attempt <= 3 else {
                retries[path] = nil
                host.log(.warning, "\(path) kept changing; it is looked at again at the next catch-up")
                continue
            }
            retries[path] = attempt
            let target = WeakSensor(self)
            let wait = UInt32(retryDelay * 1000)
            host.onMain {
                target.sensor?.host.addTimer(milliseconds: wait, repeating: false) {
                    target.sensor?.worker.run { target.sensor?.retry(path, attempt: attempt) }
                }
            }
        }
    }

    private func retry(_ path: String, attempt: Int) {
        guard let indexer else { return }
        do {
            let outcome = try indexer.process(path, lastTry: attempt >= 3)
            if case .busy = outcome {} else { retries[path] = nil }
            publish([outcome])
            retryLater([outcome])
        } catch {
            retries[path] = nil
            host.log(.error, "\(path) could not be recorded: \(error.message)")
        }
    }

    /// One `ACTION_AWARE_PHOTO_TAKEN` per row, then one general event for the batch.
    private func publish(_ outcomes: [MediaIndexer.Outcome]) {
        var any = false
        for case .recorded(let row) in outcomes {
            any = true
            host.publish(SensorEvents.photoTaken, json: Self.json(row))
            // With recognition on, a picture is announced with its labels once they are known.
            if recognizer == nil || row.mediaType != 1 { announceNewItem(kind: row.mediaType) }
        }
        if any {
            host.publish(SensorEvents.changed, json: "{}")
            if recognizer != nil { recognizeOwed() }
        }
    }

    /// `watch --once`: catches up (a baseline on the first run), records what is new, and finishes.
    /// Then recognises what is owed (with `performRecognition`), syncs when a server is set (unless `sync` is
    /// false), and finishes.
    private func watchOnce(sync: Bool) throws(PluginError) {
        guard let indexer, let store else { return }
        guard !configuration.watchDirectories.isEmpty else {
            throw PluginError(phrases.text("no-folders"))
        }
        let firstRun = (try? store.value("baseline")) == nil
        let paused = pausedUntil()
        indexer.pausedWindow = pauseWindow()
        do {
            let outcomes = try indexer.catchUp(
                configuration.watchDirectories, recursive: configuration.recursive, baseline: firstRun || paused != nil)
            try store.setValue("done", for: "baseline")
            publish(outcomes)
            let recorded = outcomes.filter { if case .recorded = $0 { true } else { false } }.count
            host.print(
                !firstRun && paused != nil
                    ? phrases.text("paused-nothing-new", ["time": SensorPause.clock(paused ?? 0)])
                    : firstRun
                        ? phrases.text("first-run", count: outcomes.count)
                        : phrases.text("recorded-new", count: recorded))
            // What it could not look at is said too: a folder missing, unreadable or no folder at all, and a
            // setting it could not take as written.
            for problem in configuration.problems { say(phrases.text("setting-problem", ["problem": problem])) }
            for folder in configuration.watchDirectories {
                if let problem = folderProblem(folder) {
                    say(phrases.text("folder-unavailable", ["folder": folder, "problem": problem]))
                }
            }
        } catch {
            throw PluginError(fullDiskSentence() ?? phrases.text("catch-up-failed", ["reason": error.message]))
        }
        recognizeOwed { [weak self] in
            guard let self else { return }
            guard sync, configuration.canSync else { return host.finish() }
            syncThenFinish()
        }
    }

    /// A command-line run's sync: "Sync done." or why it failed (exit status 1), then the end of the run.
    private func syncThenFinish() {
        onSyncEnded = { [weak self] in
            guard let self else { return }
            if let last = lastSync, !last.ok {
                say(phrases.text("sync-failed", ["reason": last.error ?? phrases.text("unknown-reason")]))
                host.finish(.io)
            } else {
                say(phrases.text("sync-done"))
                host.finish()
            }
        }
        startSync()
    }

    // MARK: Export

    /// `export DIR`: both tables as CSV files in `DIR` (made if missing), written whole or not at all, 0600.
    private func export(to folder: String?) throws(PluginError) {
        guard let folder, !folder.isEmpty, let store else {
            throw PluginError(phrases.text("export-where"))
        }
        let directory = URL(fileURLWithPath: (folder as NSString).expandingTildeInPath)
        var counts: [Int] = []
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for (table, _) in SensorStore.syncedTables {
                let (text, rows) = try store.csv(table)
                let target = directory.appendingPathComponent("\(table).csv")
                guard PrivateFile.writeWhole(Data(text.utf8), to: target) else { throw CocoaError(.fileWriteUnknown) }
                counts.append(rows)
            }
        } catch let error as PluginStatus {
            throw PluginError(phrases.text("export-unreadable", ["reason": error.message]))
        } catch {
            throw PluginError(phrases.text("export-unwritable", ["path": directory.path]))
        }
        say(
            phrases.text(
                "exported",
                [
                    "photos": phrases.text("photo-rows", count: counts[0]),
                    "recognitions": phrases.text("recognition-rows", count: counts[1]), "path": directory.path,
                ]))
    }

    // MARK: Label and status

    func setLabel(_ text: String, quietly: Bool = false) throws(PluginError) {
        do {
            try store?.setValue(text, for: "label")
        } catch {
            throw PluginError(error.message)
        }
        worker.run { [indexer] in indexer?.label = text }  // the indexer lives on the worker
        host.publish(SensorEvents.setLabel, json: #"{\#(Self.source),"label":\#(SensorStore.quoted(text))}"#)
        if !quietly { say(text.isEmpty ? phrases.text("label-cleared") : phrases.text("label-set", ["label": text])) }
    }

    /// Why `path` cannot be watched ("it is missing", "it cannot be read", …), or nil when it can: a folder,
    /// named by its full path, that this user may list and enter.
    func folderProblem(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return phrases.text("folder-not-full-path") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return phrases.text("folder-missing")
        }
        guard isDirectory.boolValue else { return phrases.text("folder-is-file") }
        guard access(path, R_OK | X_OK) == 0 else {
            return phrases.text("folder-unreadable", ["reason": String(cString: strerror(errno))])
        }
        return nil
    }

    /// "Photo sensor running, watching 2 folders. 134 items recorded." and what is wrong, if anything.
    func status(json: Bool) -> String {
        let count = (try? store?.photoCount()) ?? 0
        let stored = ((try? store?.value("recognition_problem")) ?? nil).flatMap { $0.isEmpty ? nil : $0 }
        let recognitionProblem = self.recognitionProblem.map(said) ?? stored.map(said)
        let state = (try? store?.value("state")) ?? nil
        let running = state != "stopped"
        let problems = configuration.watchDirectories.compactMap { folder in
            folderProblem(folder).map { (folder, $0) }
        }
        let missing = problems.map(\.0)
        let now = Date().timeIntervalSince1970
        let paused = pausedUntil(now: now)
        let lastSync = LastSync(stored: (try? store?.value("last_sync")) ?? nil)
        if json {
            var object: [String: Any] = [
                "running": running, "folders": configuration.watchDirectories, "recorded": count,
                "missing_folders": missing, "label": indexer?.label ?? "",
                "folder_problems": Dictionary(problems) { first, _ in first },
                "unwatched_subfolders": (watcher?.unwatched.values.filter { $0 == FolderWatcher.limitReason }.count)
                    ?? 0,
                "recognition": !configuration.performRecognition
                    ? "off" : recognitionProblem == nil ? "on" : "unavailable",
                "recognized": (try? store?.recognitionCount()) ?? 0,
                "waiting_to_sync": (try? store?.pendingCount()) ?? 0,
                "setting_problems": configuration.problems,
            ]
            object["paused_until"] = paused.map { Int($0) } ?? NSNull()
            if let lastSync {
                var sync: [String: Any] = ["at": Int(lastSync.at), "ok": lastSync.ok, "sent": lastSync.sent]
                sync["error"] = lastSync.error ?? NSNull()
                object["last_sync"] = sync
            } else {
                object["last_sync"] = NSNull()
            }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        // Only folders that are there are counted as watched; each missing one is named.
        let folders = configuration.watchDirectories.count - missing.count
        var parts = [
            configuration.watchDirectories.isEmpty
                ? phrases.text("status-no-folders")
                : !running
                    ? phrases.text("stopped")
                    : folders == 0
                        ? phrases.text("status-none-there") : phrases.text("status-watching", count: folders),
            phrases.text("status-recorded", count: count, ["waiting": String((try? store?.pendingCount()) ?? 0)]),
        ]
        if running, let paused {
            parts.insert(phrases.text("status-paused", ["time": SensorPause.clock(paused)]), at: 1)
        }
        if configuration.canSync {
            parts.append(lastSync?.sentence(now: now, phrases: phrases) ?? phrases.text("not-synced"))
        }
        for (folder, problem) in problems {
            parts.append(phrases.text("folder-unavailable", ["folder": folder, "problem": problem]))
        }
        parts += configuration.problems.map { phrases.text("setting-problem", ["problem": $0]) }
        if watcher?.unwatched.values.contains(FolderWatcher.limitReason) == true {
            parts.append(phrases.text("subfolders-unwatched"))
        }
        if configuration.performRecognition, let problem = recognitionProblem {
            parts.append(phrases.text("recognition-unavailable", ["reason": problem]))
        }
        return parts.joined(separator: " ")
    }

    /// A recognition problem in the person's language; one kept before problems were kept as JSON, as it is.
    func said(_ problem: Recognizer.Problem) -> String {
        phrases.has(problem.phrase) ? phrases.text(problem.phrase, problem.values) : problem.message
    }

    private func said(_ stored: String) -> String {
        guard let problem = try? JSONDecoder().decode(Recognizer.Problem.self, from: Data(stored.utf8)) else {
            return stored
        }
        return said(problem)
    }

    // MARK: JSON

    /// A row as AWARE sends it: every column, `isFavorite` 0.
    static func json(_ row: SensorStore.PhotoRow) -> String {
        let fields: [(String, String)] = [
            ("id", "\(row.id)"), ("timestamp", "\(row.timestamp)"), ("deviceId", SensorStore.quoted(row.deviceId)),
            ("label", SensorStore.quoted(row.label)), ("localIdentifier", SensorStore.quoted(row.localIdentifier)),
            ("mediaType", "\(row.mediaType)"), ("mediaWidth", "\(row.mediaWidth)"),
            ("mediaHeight", "\(row.mediaHeight)"), ("creationTimestamp", "\(row.creationTimestamp)"),
            ("duration", "\(row.duration)"), ("isFavorite", "0"), ("os", "\"Linux\""),
            ("timezone", "\(row.timezone)"), ("jsonVersion", "1"),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}

/// Lets the watcher's thread reach the sensor without keeping it alive.
final class WeakSensor: @unchecked Sendable {  // because: the sensor is only used through its worker
    weak var sensor: PhotoSensor?
    init(_ sensor: PhotoSensor) { self.sensor = sensor }
}

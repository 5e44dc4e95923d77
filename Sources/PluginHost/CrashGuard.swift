import AssistCore
import CFaultMark
import Digest
import Foundation

/// What a plugin that crashes the host (in process) leaves for the next start (issue 17): each running
/// `assist` keeps `<data>/sessions/<pid>.json` naming the feature that has the focus, and removes it when it
/// ends cleanly. A fault (SIGSEGV, SIGABRT, a Swift trap …) also writes `<pid>.fault` from its signal handler
/// (CFaultMark). A mark whose process is gone and left a fault means that session crashed: the next start
/// records a crash of the plugin it names (`<data>/crashes.jsonl`), says so, and may offer safe mode; a plugin
/// that crashed Assist twice within a day is disabled (`<data>/disabled-plugins.json`) until `assist plugins
/// reset ID` or until its library changes (an update): each entry keeps the library's path, size, time and
/// SHA-256, and stops matching when the file is another. A mark without a fault is a session that only never ended cleanly (kill -9, a power cut, a
/// closed terminal before the host could tidy up): it is removed and blamed on nobody. Files 0600 in folders
/// 0700, written whole. `<data>` is `AssistPaths.records`: the data folder, but in a per-person kiosk the
/// device's folder, since a sitting's is one person's and goes with them.
package final class CrashGuard: @unchecked Sendable {  // because: `focused` is written on the main loop only
    /// Crashes of one plugin, within `window` seconds, that disable it.
    package static let crashesToDisable = 2
    package static let window: TimeInterval = 24 * 3600

    /// An unexpected end found at start.
    package struct Crash: Equatable, Sendable {
        /// The plugin that had the focus, or nil when none had.
        package var plugin: String?
        /// True when this crash disabled it.
        package var disabled: Bool
    }

    private let data: URL
    private let sessionFile: URL
    private var focused: String?

    package init(data: URL) {
        self.data = data
        sessionFile = data.appendingPathComponent("sessions/\(getpid()).json")
    }

    private var disabledFile: URL { data.appendingPathComponent("disabled-plugins.json") }
    private var crashesFile: URL { data.appendingPathComponent("crashes.jsonl") }

    /// Sessions of processes that are gone and left a fault, each recorded as a crash; the marks of every gone
    /// session are removed. Call once at start, before `begin`.
    package func collectCrashes(now: Date = Date()) -> [Crash] {
        let folder = data.appendingPathComponent("sessions")
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        var crashes: [Crash] = []
        // Marks before faults: a fault file goes only once its mark has been read.
        let marksFirst = files.filter { $0.pathExtension == "json" } + files.filter { $0.pathExtension == "fault" }
        for file in marksFirst {
            guard let pid = Int32(file.deletingPathExtension().lastPathComponent), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            defer { try? FileManager.default.removeItem(at: file) }
            let fault = folder.appendingPathComponent("\(pid).fault")
            guard file.pathExtension == "json", FileManager.default.fileExists(atPath: fault.path) else { continue }
            let object = (try? Data(contentsOf: file)).flatMap { try? JSONSerialization.jsonObject(with: $0) }
            let plugin = (object as? [String: Any])?["plugin"] as? String
            crashes.append(Crash(plugin: plugin, disabled: plugin.map { record($0, at: now) } ?? false))
        }
        return crashes
    }

    /// Crashes of a plugin's helper process within `helperWindow` seconds that disable it: a feature that stops
    /// unexpectedly while it runs is started again once (`restartDelay` later), and a second crash turns it
    /// off (plugin-abi spec, "Crashes and blacklist").
    package static let helperCrashesToDisable = 2
    package static let helperWindow: TimeInterval = 10 * 60
    /// How long after a crash a running feature is started again.
    package static let restartDelay: TimeInterval = 2

    /// Records that `plugin`'s helper process ended unexpectedly (`how`: "crashed in start (SIGSEGV)"), with
    /// its `library` for the turned-off entry; returns how many crashes it had within the window (this one
    /// included) and the reason it is now turned off, or nil.
    package func recordHelperCrash(_ plugin: String, how: String, library: URL?, at time: Date = Date()) -> (
        recent: Int, disabled: String?
    ) {
        append(plugin, how: how, at: time)
        let recent = crashes(of: plugin).filter { time.timeIntervalSince1970 - $0 < Self.helperWindow }
        guard recent.count >= Self.helperCrashesToDisable else { return (recent.count, nil) }
        let reason =
            "it stopped unexpectedly \(recent.count) times within \(Int(Self.helperWindow / 60)) minutes, last \(how); run assist plugins reset \(plugin) or update it to enable it again"
        disable(plugin, reason: reason, library: library)
        return (recent.count, reason)
    }

    private func append(_ plugin: String, how: String, at time: Date) {
        let line = try? JSONSerialization.data(
            withJSONObject: ["plugin": plugin, "at": time.timeIntervalSince1970, "how": how], options: [.sortedKeys])
        if let line {
            try? AssistPaths.ensurePrivateDirectory(data)
            if !FileManager.default.fileExists(atPath: crashesFile.path) {
                _ = FileManager.default.createFile(
                    atPath: crashesFile.path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            if let handle = try? FileHandle(forWritingTo: crashesFile) {
                _ = try? handle.seekToEnd()
                try? handle.write(contentsOf: line + Data("\n".utf8))
                try? handle.close()
            }
        }
    }

    /// Appends the crash; true when it is the one that disables the plugin.
    private func record(_ plugin: String, at time: Date) -> Bool {
        append(plugin, how: "the host ended unexpectedly", at: time)
        let recent = crashes(of: plugin).filter { time.timeIntervalSince1970 - $0 < Self.window }
        guard recent.count >= Self.crashesToDisable else { return false }
        // The library is not known here (a mark names the plugin only): the first look at the entry takes it.
        disable(
            plugin,
            reason:
                "it stopped Assist unexpectedly \(recent.count) times within a day; run assist plugins reset \(plugin) or update it to enable it again",
            library: nil)
        return true
    }

    /// When `plugin` crashed the host (seconds since 1970), oldest first.
    package func crashes(of plugin: String) -> [TimeInterval] {
        guard let text = try? String(contentsOf: crashesFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["plugin"] as? String == plugin
            else { return nil }
            return object["at"] as? TimeInterval
        }
    }

    /// Disabled plugins and why.
    package func disabledPlugins() -> [String: String] {
        entries().compactMapValues(\.reason)
    }

    /// Why `plugin` is turned off, or nil: an entry made for another file than `library` (the plugin was
    /// updated or rebuilt) no longer matches, and goes with the plugin's crashes. An entry that names no file
    /// yet (a crash of Assist itself names only the plugin) takes this one's.
    package func disabledReason(_ plugin: String, library: URL) -> String? {
        var all = entries()
        guard let entry = all[plugin] else { return nil }
        let current = LibraryFingerprint(of: library)
        guard let kept = entry.library else {
            all[plugin] = Entry(reason: entry.reason, library: current)
            write(all)
            return entry.reason
        }
        guard let current, current != kept else { return entry.reason }
        reset(plugin)
        return nil
    }

    /// Enables `plugin` again and forgets its crashes; false when it was not disabled.
    @discardableResult
    package func reset(_ plugin: String) -> Bool {
        var disabled = entries()
        let was = disabled.removeValue(forKey: plugin) != nil
        write(disabled)
        if let text = try? String(contentsOf: crashesFile, encoding: .utf8) {
            let kept = text.split(separator: "\n").filter { line in
                ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["plugin"] as? String
                    != plugin
            }
            try? writeWhole(Data((kept.map { $0 + "\n" }.joined()).utf8), to: crashesFile)
        }
        return was
    }

    /// This process runs: its mark names no feature yet, and (with `markingFaults`) a fault from now on leaves
    /// `<pid>.fault`. The fault's mark is the process's signal handlers, so only a session that owns the process
    /// sets it: not one a test runs in its own process beside others, whose faults are the test process's.
    package func begin(markingFaults: Bool = true) {
        focus(nil)
        guard markingFaults else { return }
        _ = assist_fault_mark_install(data.appendingPathComponent("sessions/\(getpid()).fault").path)
    }

    /// The feature `plugin` has the focus (nil: none). Main loop.
    package func focus(_ plugin: String?) {
        focused = plugin
        var object: [String: Any] = ["pid": Int(getpid()), "since": Date().timeIntervalSince1970]
        if let plugin { object["plugin"] = plugin }
        guard let bytes = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        try? AssistPaths.ensurePrivateDirectory(sessionFile.deletingLastPathComponent())
        try? writeWhole(bytes, to: sessionFile)
    }

    /// A clean end: the mark goes.
    package func end() { try? FileManager.default.removeItem(at: sessionFile) }

    /// One turned-off plugin: why, and the library file it was turned off for.
    private struct Entry: Codable {
        var reason: String?
        var library: LibraryFingerprint?
    }

    /// The turned-off plugins; an entry of an older Assist (the reason alone) names no file.
    private func entries() -> [String: Entry] {
        guard let data = try? Data(contentsOf: disabledFile),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object.compactMapValues { value in
            if let reason = value as? String { return Entry(reason: reason, library: nil) }
            guard let fields = value as? [String: Any], let bytes = try? JSONSerialization.data(withJSONObject: fields)
            else { return nil }
            return try? JSONDecoder().decode(Entry.self, from: bytes)
        }
    }

    private func disable(_ plugin: String, reason: String, library: URL?) {
        var all = entries()
        all[plugin] = Entry(reason: reason, library: library.flatMap(LibraryFingerprint.init(of:)))
        write(all)
    }

    private func write(_ disabled: [String: Entry]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let bytes = try? encoder.encode(disabled) else { return }
        try? AssistPaths.ensurePrivateDirectory(data)
        try? writeWhole(bytes, to: disabledFile)
    }

    /// Written beside and renamed over, mode 0600: never half a file.
    private func writeWhole(_ bytes: Data, to url: URL) throws {
        let partial = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        guard
            FileManager.default.createFile(
                atPath: partial.path, contents: bytes, attributes: [.posixPermissions: 0o600]),
            rename(partial.path, url.path) == 0
        else { throw CocoaError(.fileWriteUnknown) }
    }
}

/// Which file a plugin's library is: its path, size, modification time and SHA-256 (plugin-abi spec: an entry
/// "stops matching when the file changes").
struct LibraryFingerprint: Codable, Equatable {
    var path: String
    var size: Int64
    var modified: Double
    var sha256: String

    init?(of url: URL) {
        var info = stat()
        guard stat(url.path, &info) == 0, let digest = SHA256Digest.hex(ofFileAt: url) else { return nil }
        path = url.path
        size = Int64(info.st_size)
        modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        sha256 = digest
    }
}

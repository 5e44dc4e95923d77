import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The systemd user timer that reminds participants (spec §3.20, §6): a calendar timer, daily at the
/// admin's time with `Persistent=true` (a missed check runs at the next boot), or every 10 minutes in test
/// mode. It runs `assist survey remind`, which speaks only when a reminder is due.
public struct ReminderUnits: Equatable, Sendable {
    public var definitionID: String
    /// The `assist` executable the service runs.
    public var executable: String
    /// "HH:MM", local time.
    public var time: String
    public var testMode: Bool
    /// Extra `assist` options to pass on (a data folder in tests).
    public var options: [String] = []

    public init(definitionID: String, executable: String, time: String, testMode: Bool, options: [String] = []) {
        self.definitionID = definitionID
        self.executable = executable
        self.time = time
        self.testMode = testMode
        self.options = options
    }

    public var name: String { "assist-survey-\(definitionID)" }

    /// "09:00" and the like, else nil.
    public static func validTime(_ text: String) -> String? {
        let parts = text.split(separator: ":").map { Int($0) }
        guard parts.count == 2, let hour = parts[0], let minute = parts[1], (0..<24).contains(hour),
            (0..<60).contains(minute)
        else { return nil }
        return String(format: "%02d:%02d", hour, minute)
    }

    public var service: String {
        let command = ([executable] + options + ["survey", "remind", "--definition", definitionID])
            .map(Self.quotedForExec).joined(separator: " ")
        return """
            [Unit]
            Description=Assist survey reminder (\(definitionID))

            [Service]
            Type=oneshot
            ExecStart=\(command)

            """
    }

    public var timer: String {
        let schedule = testMode ? "OnCalendar=*:0/10" : "OnCalendar=*-*-* \(time):00"
        return """
            [Unit]
            Description=Daily check for an Assist survey reminder (\(definitionID))

            [Timer]
            \(schedule)
            Persistent=true

            [Install]
            WantedBy=timers.target

            """
    }

    /// An argument quoted for systemd's ExecStart when it holds spaces or quotes.
    static func quotedForExec(_ argument: String) -> String {
        guard argument.contains(where: { " \"'\\$%".contains($0) }) else { return argument }
        let escaped = argument.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "%", with: "%%").replacingOccurrences(of: "$", with: "$$")
        return "\"\(escaped)\""
    }
}

/// Writes, enables, disables and removes the reminder units. Both directions are idempotent.
public struct ReminderInstaller: Sendable {
    /// `$XDG_CONFIG_HOME/systemd/user`, else `$HOME/.config/systemd/user` (the account's home only when `HOME`
    /// is not set): where the environment says, so that a test or a script never writes into the real user's
    /// folder.
    public var folder: URL
    /// Runs `systemctl --user ARGS`; returns whether it succeeded.
    public var systemctl: @Sendable ([String]) -> Bool

    public init(folder: URL? = nil, systemctl: (@Sendable ([String]) -> Bool)? = nil) {
        let environment = ProcessInfo.processInfo.environment
        let config =
            environment["XDG_CONFIG_HOME"].flatMap(\.nilIfEmpty).map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"].flatMap(\.nilIfEmpty) ?? NSHomeDirectory())
            .appendingPathComponent(".config")
        self.folder = folder ?? config.appendingPathComponent("systemd/user")
        self.systemctl = systemctl ?? Self.runSystemctl
    }

    public enum Outcome: Equatable, Sendable {
        case done
        /// The files are in place but the user's systemd could not load or enable them.
        case systemdUnavailable
        case cannotWrite(String)
    }

    public func install(_ units: ReminderUnits) -> Outcome {
        // The loader refuses such ids; a unit file is never written from one all the same.
        guard SurveyDefinition.isValidID(units.definitionID) else { return .cannotWrite(folder.path) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try write(units.service, to: folder.appendingPathComponent("\(units.name).service"))
            try write(units.timer, to: folder.appendingPathComponent("\(units.name).timer"))
        } catch {
            return .cannotWrite(folder.path)
        }
        guard systemctl(["daemon-reload"]), systemctl(["enable", "--now", "\(units.name).timer"]) else {
            return .systemdUnavailable
        }
        return .done
    }

    public func remove(_ units: ReminderUnits) -> Outcome {
        let files = ["service", "timer"].map { folder.appendingPathComponent("\(units.name).\($0)") }
        let present = files.contains { FileManager.default.fileExists(atPath: $0.path) }
        let disabled = !present || systemctl(["disable", "--now", "\(units.name).timer"])
        for file in files { try? FileManager.default.removeItem(at: file) }
        let reloaded = !present || systemctl(["daemon-reload"])
        return disabled && reloaded ? .done : .systemdUnavailable
    }

    public func isInstalled(_ units: ReminderUnits) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(units.name).timer").path)
    }

    /// Leaves a file that already says the same alone (no needless reload), else replaces it whole.
    private func write(_ text: String, to url: URL) throws {
        if (try? String(contentsOf: url, encoding: .utf8)) == text { return }
        let temporary = url.appendingPathExtension("tmp")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    static let runSystemctl: @Sendable ([String]) -> Bool = { arguments in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["systemctl", "--user"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus == 0
        } catch {
            return false
        }
    }
}

import Foundation

/// A setting's value.
package enum SettingValue: Equatable, Sendable, CustomStringConvertible {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case list([String])

    package var description: String {
        switch self {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .list(let items): return items.joined(separator: ",")
        }
    }
}

extension SettingValue {
    /// The value as an integer: an integer, or text that is one.
    package var integer: Int64? {
        switch self {
        case .int(let number): return number
        case .string(let text): return Int64(text)
        default: return nil
        }
    }

    /// The value as a number: a float, an integer, or text that is one.
    package var number: Double? {
        switch self {
        case .double(let number): return number
        case .int(let number): return Double(number)
        case .string(let text): return Double(text)
        default: return nil
        }
    }

    /// The value as a flag: a boolean, or on/off, true/false, yes/no.
    package var flag: Bool? {
        switch self {
        case .bool(let flag): return flag
        case .string("on"), .string("true"), .string("yes"): return true
        case .string("off"), .string("false"), .string("no"): return false
        default: return nil
        }
    }
}

/// Why a setting could not be read or written.
package enum SettingsError: Error, Equatable, Sendable {
    case notFound(String)
    case wrongType(String)
    case locked(String)
    case permission(String)
}

/// Settings in layers: built-in defaults, then the system file (`/etc/assist/config.toml`) and its drop-ins
/// (`/etc/assist/conf.d/*.toml`, in name order), the user file (`~/.config/assist/config.toml`), `--config`,
/// then values set at run time (kept in `settings.toml` and, for credentials, `secrets.toml`; see
/// `SettingsFiles`). The admin layers' `[admin] locked = ["find-object.auto-pause"]` locks keys: later layers
/// and plugins cannot change them. `[kiosk]` keys are read from admin layers only and never set at run time,
/// so nobody at the kiosk can widen it.
package final class SettingsStore: @unchecked Sendable {  // because: `values` and `locked` are guarded by `lock`
    private let lock = NSLock()
    private var values: [String: SettingValue] = [:]
    private var locked = Set<String>()
    /// Values set at run time (or restored from earlier runs), kept in `files`.
    private var runtime: [String: SettingValue] = [:]
    private var files: SettingsFiles?
    /// `plugins.*` keys an admin layer or `--config` set: later layers and run time cannot change them.
    private var pinned = Set<String>()
    /// Keys read from the secrets file: written back there only, whatever their names.
    private var secretKeys = Set<String>()

    /// Creates an empty store.
    package init() {}

    /// What loading the config files found: files that cannot be used at all, and values the host cannot
    /// use (the default stays for those).
    package struct LoadReport: Equatable, Sendable {
        package var errors: [String] = []
        package var warnings: [String] = []
        /// Each file read, with its entries, for the checks that wait until the features are known.
        package var files: [LoadedFile] = []
    }

    /// A config file as read: its path and its entries with their lines.
    package struct LoadedFile: Equatable, Sendable {
        package var path: String
        package var entries: [ConfigFile.Entry]
    }

    /// The system folder: `/etc/assist`, or `ASSIST_SYSCONFDIR` (tests, and packages built for another prefix).
    package static func systemFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        URL(fileURLWithPath: environment["ASSIST_SYSCONFDIR"] ?? "/etc/assist")
    }

    /// The admin files in the order they apply: `config.toml`, then `conf.d/*.toml` by name.
    package static func adminFiles(in folder: URL) -> [String] {
        let dropIns = folder.appendingPathComponent("conf.d")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dropIns.path)) ?? []
        return [folder.appendingPathComponent("config.toml").path]
            + names.filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted().map {
                dropIns.appendingPathComponent($0).path
            }
    }

    /// Loads the standard files plus an optional explicit one (an admin layer when `explicitIsAdmin`: the
    /// kiosk's `--config`, which only its unit file names); one line per file that failed to parse, and one
    /// per host setting of the wrong kind (`SettingsSchema`).
    package func loadStandardFiles(
        explicit: String?, explicitIsAdmin: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> LoadReport {
        var report = LoadReport()
        let home = environment["HOME"] ?? NSHomeDirectory()
        let userConfig = (environment["XDG_CONFIG_HOME"] ?? "\(home)/.config") + "/assist/config.toml"
        let files: [(String, Bool)] =
            Self.adminFiles(in: Self.systemFolder(environment: environment)).map { ($0, true) }
            + [(userConfig, false)] + (explicit.map { [($0, explicitIsAdmin)] } ?? [])
        for (path, isAdmin) in files {
            guard FileManager.default.fileExists(atPath: path) || path == explicit else { continue }
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
                var isFolder: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
                let why =
                    !exists
                    ? "does not exist; check the path"
                    : isFolder.boolValue
                        ? "is a folder; give the path of a TOML file, like config.toml"
                        : "cannot be read; check its permissions"
                report.errors.append("\(path) \(why)")
                continue
            }
            guard let text = String(validating: data, as: UTF8.self), !data.contains(0) else {
                report.errors.append(
                    "\(path) is not a text file (it holds bytes that are not UTF-8 text); it must be TOML, "
                        + "like speech.rate = 200")
                continue
            }
            do {
                let entries = try ConfigFile.entries(text)
                report.warnings += SettingsSchema.problems(in: entries, file: path)
                report.files.append(LoadedFile(path: path, entries: entries))
                var values: [String: SettingValue] = [:]
                for entry in entries { values[entry.key] = entry.value }
                apply(values, admin: isAdmin, pins: isAdmin || path == explicit)
            } catch {
                report.errors.append(error.at(path))
            }
        }
        return report
    }

    /// Applies parsed `key → value` pairs; an admin layer's `admin.locked` list locks keys. A `plugins.*` key
    /// of the wrong kind is not applied (its default stays); one an admin layer or `--config` gave (`pins`)
    /// is pinned: no later layer but another pinning one, and nothing set at run time, changes it.
    package func apply(_ entries: [String: SettingValue], admin: Bool, pins: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        for (key, value) in entries {
            if key == "admin.locked", admin, case .list(let keys) = value {
                locked.formUnion(keys)
                continue
            }
            if !admin && (locked.contains(key) || Self.isAdminOnly(key)) { continue }
            if !Self.fitsPluginRule(key, value) { continue }
            if !pins && pinned.contains(key) { continue }
            if pins && Self.isPluginRule(key) { pinned.insert(key) }
            values[key] = value
        }
    }

    /// The keys that decide how strangers' plugins run (`plugins.*`): what an admin or `--config` sets for them
    /// the user's own layers cannot weaken.
    package static func isPluginRule(_ key: String) -> Bool { key.hasPrefix("plugins.") }

    /// False for a `plugins.*` value of another kind than the host reads (`plugins.in-process = "x"`, text
    /// where a list is read): such a value is refused, never applied.
    static func fitsPluginRule(_ key: String, _ value: SettingValue) -> Bool {
        guard isPluginRule(key), let kind = SettingsSchema.host[key] else { return true }
        return kind.problem(with: value) == nil
    }

    /// Sets a default that any file may override.
    package func setDefault(_ key: String, _ value: SettingValue) {
        lock.lock()
        defer { lock.unlock() }
        if values[key] == nil { values[key] = value }
    }

    /// The value of `key`, or nil.
    package func value(_ key: String) -> SettingValue? {
        lock.lock()
        defer { lock.unlock() }
        return values[key]
    }

    /// True when the admin locked `key` (every `kiosk.` key is).
    package func isLocked(_ key: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return locked.contains(key) || Self.isAdminOnly(key) || pinned.contains(key)
    }

    /// The keys the admin layers alone may give: the kiosk's.
    package static func isAdminOnly(_ key: String) -> Bool { key.hasPrefix("kiosk.") || key.hasPrefix("admin.") }

    /// The keys the admin locked, sorted.
    package var lockedKeys: [String] { lock.withLock { locked.sorted() } }

    /// Sets `key` at run time unless it is locked; kept in the settings (or secrets) file when attached.
    package func set(_ key: String, _ value: SettingValue) throws(SettingsError) {
        lock.lock()
        defer { lock.unlock() }
        guard !locked.contains(key), !Self.isAdminOnly(key), !pinned.contains(key) else { throw .locked(key) }
        guard Self.fitsPluginRule(key, value) else { throw .wrongType(key) }
        values[key] = value
        runtime[key] = value
        guard let files else { return }
        let secretKeys = self.secretKeys
        let isSecret = { (key: String) in SettingsFiles.isSecret(key) || secretKeys.contains(key) }
        let secret = { (entry: (key: String, value: SettingValue)) in isSecret(entry.key) }
        do {
            if isSecret(key) {
                try SettingsFiles.write(runtime.filter(secret), to: files.secrets)
            } else {
                try SettingsFiles.write(runtime.filter { !secret($0) }, to: files.settings)
            }
        } catch {
            throw .permission(key)
        }
    }

    /// Values from earlier runs: applied unless locked or pinned, and kept for the next write (`secret`: read
    /// from the secrets file, and written back only there).
    package func restore(_ entries: [String: SettingValue], secret: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        for (key, value) in entries where !locked.contains(key) && !Self.isAdminOnly(key) {
            if secret { secretKeys.insert(key) }
            guard !pinned.contains(key), Self.fitsPluginRule(key, value) else { continue }
            values[key] = value
            runtime[key] = value
        }
    }

    package func attach(_ files: SettingsFiles) {
        lock.withLock { self.files = files }
    }

    /// Every key and value, sorted by key.
    package func snapshot() -> [(String, SettingValue)] {
        lock.lock()
        defer { lock.unlock() }
        return values.sorted { $0.key < $1.key }
    }

    /// The absolute key for `key` as plugin `namespaces.first` wrote it: a key without a dot is its own.
    package static func qualify(_ key: String, namespaces: [String]) -> String {
        key.contains(".") ? key : "\(namespaces.first ?? "plugin").\(key)"
    }
}

import Foundation

/// Where values set at run time are kept: `settings.toml` for preferences and `secrets.toml` for server
/// credentials, both in `$XDG_CONFIG_HOME/assist` and readable by the user only (0600). Both are rewritten
/// whole and atomically (a temporary file renamed over the old one), so a crash never leaves half a file.
package struct SettingsFiles: Sendable {
    package var settings: URL
    package var secrets: URL

    package init(settings: URL, secrets: URL) {
        self.settings = settings
        self.secrets = secrets
    }

    /// The standard place: `$XDG_CONFIG_HOME/assist` or `~/.config/assist`.
    package static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> SettingsFiles {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let folder = URL(fileURLWithPath: environment["XDG_CONFIG_HOME"] ?? "\(home)/.config").appendingPathComponent(
            "assist")
        return SettingsFiles(
            settings: folder.appendingPathComponent("settings.toml"),
            secrets: folder.appendingPathComponent("secrets.toml"))
    }

    /// True for keys that hold credentials: their last part names a secret, password, token, credential or
    /// API key. They go to the secrets file and are never logged.
    package static func isSecret(_ key: String) -> Bool {
        let last = key.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return ["secret", "password", "token", "credential", "api-key", "apikey"].contains { last.contains($0) }
    }

    /// Values in the settings file (edited by hand) the host cannot use, each with its line and what is used
    /// instead, as a config file's are said.
    package func valueProblems() -> [String] {
        guard let text = try? String(contentsOf: settings, encoding: .utf8),
            let entries = try? ConfigFile.entries(text)
        else { return [] }
        return SettingsSchema.problems(in: entries, file: settings.path)
    }

    /// Writes `values` as TOML to `url` (mode 0600), atomically.
    package static func write(_ values: [String: SettingValue], to url: URL) throws {
        var tables: [String: [(String, SettingValue)]] = [:]
        for (key, value) in values {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            tables[parts.count == 2 ? parts[0] : "", default: []].append((parts.count == 2 ? parts[1] : key, value))
        }
        var text = "# Written by Assist: values set while it runs. Edit config.toml instead; this file is replaced.\n"
        for table in tables.keys.sorted() {
            text += table.isEmpty ? "\n" : "\n[\(table)]\n"
            for (key, value) in (tables[table] ?? []).sorted(by: { $0.0 < $1.0 }) {
                text += "\"\(escape(key))\" = \(literal(value))\n"
            }
        }
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try PrivateFile.write(Data(text.utf8), to: url)
    }

    package static func literal(_ value: SettingValue) -> String {
        switch value {
        case .string(let text): return "\"\(escape(text))\""
        case .int(let number): return String(number)
        case .double(let number): return number.isFinite ? String(number) : "0.0"
        case .bool(let flag): return flag ? "true" : "false"
        case .list(let items): return "[" + items.map { "\"\(escape($0))\"" }.joined(separator: ", ") + "]"
        }
    }

    package static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: "\\t")
    }
}

extension SettingsStore {
    /// Loads values set in earlier runs and keeps later `set` calls in `files`. Returns one line per file that
    /// could not be read. A secrets file others can read is made private (0600) again.
    package func keep(in files: SettingsFiles) -> [String] {
        var problems: [String] = []
        for url in [files.settings, files.secrets] where FileManager.default.fileExists(atPath: url.path) {
            if url == files.secrets {
                try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            }
            do {
                let entries = try ConfigFile.parse(try String(contentsOf: url, encoding: .utf8))
                restore(entries, secret: url == files.secrets)
            } catch let error as ConfigFile.ParseError {
                problems.append("\(url.path) line \(error.line): \(error.message)")
            } catch {
                problems.append("\(url.path) could not be read")
            }
        }
        attach(files)
        return problems
    }
}

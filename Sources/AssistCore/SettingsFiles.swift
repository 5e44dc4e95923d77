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

    /// Writes `values` as TOML to `url` (mode 0600), atomically. TOMLKit writes it, so a value with quotes, `#`,
    /// new lines or control characters reads back as it was.
    package static func write(_ values: [String: SettingValue], to url: URL) throws {
        let text =
            "# Written by Assist: values set while it runs. Edit config.toml instead; this file is replaced.\n\n"
            + ConfigFile.document(values) + "\n"
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try PrivateFile.write(Data(text.utf8), to: url)
    }
}

extension SettingsStore {
    /// Loads values set in earlier runs and keeps later `set` calls in `files`. Returns one sentence per file
    /// that could not be read: such a file is kept aside whole (`settings.toml.damaged-<UTC time>`, never deleted)
    /// and the next value set starts a new one, so it is said once, not at every start. A secrets file others
    /// can read is made private (0600) again.
    package func keep(in files: SettingsFiles, now: Date = Date()) -> [String] {
        var problems: [String] = []
        for url in [files.settings, files.secrets] where FileManager.default.fileExists(atPath: url.path) {
            if url == files.secrets {
                try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            }
            let why: String
            do {
                let data = try Data(contentsOf: url)
                guard let text = String(validating: data, as: UTF8.self), !data.contains(0) else {
                    throw ConfigFile.ParseError(line: 0, message: "it holds bytes that are not text")
                }
                restore(try ConfigFile.parse(text), secret: url == files.secrets)
                continue
            } catch let error as ConfigFile.ParseError {
                why = error.located
            } catch {
                why = "it cannot be read (\(error.localizedDescription))"
            }
            let aside = try? DamagedFile.setAside(url, now: now)
            let what = url == files.secrets ? "saved server credentials" : "saved settings"
            problems.append(
                aside.map {
                    "Your \(what) could not be read (\(url.path), \(why)); the file is kept as \($0.path), and until you set them again the defaults are used"
                } ?? "Your \(what) could not be read (\(url.path), \(why)); the defaults are used")
        }
        attach(files)
        return problems
    }
}

import AssistCore
import Foundation

/// The admin's rules for plugins on this machine, outside the kiosk (issue 34, docs/security.md):
/// `/etc/assist/plugins.d/*.toml` (or `$ASSIST_SYSCONFDIR/plugins.d`), read in name order.
///
///     allow = ["org.example.*"]            # plugin ids; a trailing * matches a prefix
///     deny = ["com.example.tracker"]
///     allow-publishers = ["Example School"] # trusted publishers (trusted-keys.d)
///     deny-publishers = ["Example Ltd"]
///     user-may-grant = ["camera", "microphone"]
///
/// Lists from several files add up; `user-may-grant` keeps only what every file that sets it allows. A deny
/// wins over an allow. Allow lists, when there are any, name the only plugins that are not Assist's own that
/// may run; Assist's own features are stopped only by `deny`. `user-may-grant` limits what plugins that are
/// not Assist's own are given, whatever the user chose. A file that cannot be read, or that others than its
/// owner may write, stops every plugin that is not Assist's own (a broken policy fails closed), with the
/// reason.
package struct AdminPluginPolicy: Sendable, Equatable {
    package var allow: [String] = []
    package var deny: [String] = []
    package var allowPublishers: [String] = []
    package var denyPublishers: [String] = []
    /// nil: users may grant anything a plugin declares.
    package var grantable: Set<PluginPermission>?
    /// Why the policy could not be read (it then stops every plugin that is not Assist's own).
    package var problem: String?
    /// The files read, in order.
    package var files: [String] = []

    package init() {}

    /// The keys a policy file may hold.
    package static let keys: Set<String> = ["allow", "deny", "allow-publishers", "deny-publishers", "user-may-grant"]

    /// The policy folder: `<system folder>/plugins.d`.
    package static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        SettingsStore.systemFolder(environment: environment).appendingPathComponent("plugins.d")
    }

    /// Reads every `*.toml` in `folder` (none: no rules).
    package static func load(folder: URL = folder()) -> AdminPluginPolicy {
        var policy = AdminPluginPolicy()
        // A folder others may write lets them add a rules file of their own (or replace one): refused whole.
        var folderStatus = stat()
        if stat(folder.path, &folderStatus) == 0, folderStatus.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            policy.files.append(folder.path)
            policy.problem =
                "the plugin policy folder \(folder.path) may be changed by others than its owner "
                + "(chmod go-w \(folder.path))"
            return policy
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".toml") && !$0.hasPrefix(".") }.sorted()
        for name in names {
            let path = folder.appendingPathComponent(name).path
            policy.files.append(path)
            if let problem = policy.read(path) {
                policy.problem = policy.problem ?? "the plugin policy \(path) \(problem)"
            }
        }
        return policy
    }

    /// Adds one file's rules; the problem, if it cannot be used.
    private mutating func read(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return "cannot be read" }
        if status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            return "may be changed by others than its owner (chmod go-w \(path))"
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "cannot be read" }
        let entries: [ConfigFile.Entry]
        do { entries = try ConfigFile.entries(text) } catch {
            return "cannot be read (\(error.located))"
        }
        for entry in entries {
            guard Self.keys.contains(entry.key) else {
                return "has \(entry.key) at line \(entry.line), which is not a plugin rule: use "
                    + Self.keys.sorted().joined(separator: ", ")
            }
            guard case .list(let items) = entry.value else {
                return "has \(entry.key) at line \(entry.line) that is not a list: write \(entry.key) = [\"…\"]"
            }
            switch entry.key {
            case "allow": allow += items
            case "deny": deny += items
            case "allow-publishers": allowPublishers += items
            case "deny-publishers": denyPublishers += items
            default:
                var permissions = Set<PluginPermission>()
                for item in items {
                    guard let permission = PluginPermission(rawValue: item) else {
                        return "lists \"\(item)\" in user-may-grant at line \(entry.line): only camera, microphone "
                            + "and network"
                    }
                    permissions.insert(permission)
                }
                grantable = grantable.map { $0.intersection(permissions) } ?? permissions
            }
        }
        return nil
    }

    /// True when `pattern` names `id`: the same id, or a prefix ending in `*`.
    static func matches(_ pattern: String, _ id: String) -> Bool {
        // Ids are lower case (the manifest's rule); a rule written in capitals still names them.
        let pattern = pattern.lowercased()
        let id = id.lowercased()
        return pattern.hasSuffix("*") ? id.hasPrefix(pattern.dropLast()) : pattern == id
    }

    /// Why the admin does not let the plugin `id` run (nil: it may). `publisher` gives its trusted publisher
    /// (asked only when a rule names publishers).
    /// `author` is what the manifest says of itself: `deny-publishers` refuses it too, signed or not (stripping
    /// a signature must not get a denied publisher's package in).
    package func refusal(id: String, publisher: () -> String?, author: String? = nil, firstParty: Bool) -> String? {
        if deny.contains(where: { Self.matches($0, id) }) {
            return "your administrator does not allow it on this computer (\(location))"
        }
        guard !firstParty else { return nil }
        if let problem { return "\(problem); until it is mended, only Assist's own features run" }
        let named = denyPublishers.isEmpty && allowPublishers.isEmpty ? nil : publisher()
        let denied = Set(denyPublishers.map { $0.lowercased() })
        for name in [named, author].compactMap({ $0 }) where denied.contains(name.lowercased()) {
            return "your administrator does not allow plugins from \(name) (\(location))"
        }
        guard !allow.isEmpty || !allowPublishers.isEmpty else { return nil }
        if allow.contains(where: { Self.matches($0, id) }) { return nil }
        if let publisher = named, allowPublishers.contains(where: { $0.lowercased() == publisher.lowercased() }) {
            return nil
        }
        return "your administrator allows only the plugins they chose, and not this one (\(location))"
    }

    /// True when users may give plugins that are not Assist's own `permission`.
    package func mayGrant(_ permission: PluginPermission) -> Bool {
        problem == nil && (grantable?.contains(permission) ?? true)
    }

    /// Where the rules are, as sentences name them: the one file, or the folder's `*.toml`.
    package var location: String {
        files.count == 1
            ? files[0]
            : (files.first.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? Self.folder().path)
                + "/*.toml"
    }
}

import AssistCore
import Foundation
import PluginHost
import PluginPackage

/// What a plugin is given and whether it is turned on, as `assist plugins info`, `plugins permissions`,
/// `plugins disable|enable` and the shell say it (docs/security.md). Choices live in
/// `<data>/plugin-permissions.json`.
package struct PluginAccess {
    package let store: PermissionStore
    package let paths: AssistPaths
    /// The admin's rules (`/etc/assist/plugins.d`): what users may grant plugins that are not Assist's own.
    package let policy: AdminPluginPolicy

    package init(paths: AssistPaths, policy: AdminPluginPolicy = .load()) {
        store = PermissionStore(data: paths.data)
        self.paths = paths
        self.policy = policy
    }

    /// True for Assist's own features, which the admin's `user-may-grant` does not limit.
    package func isFirstParty(_ record: PluginRecord) -> Bool {
        PluginSearchPath.isFirstParty(manifest: record.manifestURL, id: record.id, paths: paths)
    }

    /// True when the admin keeps `permission` from `record` whatever the user chooses.
    package func withheld(_ permission: PluginPermission, from record: PluginRecord) -> Bool {
        !isFirstParty(record) && !policy.mayGrant(permission)
    }

    /// One line per permission: "Camera: allowed", "Microphone: asked for, turned off", "Network: not asked
    /// for", "Camera: asked for, withheld by your administrator"; the network names its servers.
    package func lines(_ record: PluginRecord, _ manifest: PluginManifest) -> [String] {
        let chosen = store.choices(manifest.id)
        return PluginPermission.allCases.map { permission in
            let name = permission.rawValue.prefix(1).uppercased() + permission.rawValue.dropFirst()
            guard manifest.declaredPermissions.contains(permission) else { return "\(name): not asked for" }
            if withheld(permission, from: record) {
                return "\(name): asked for, withheld by your administrator (\(policy.location))"
            }
            var state = chosen[permission] ?? true ? "allowed" : "asked for, turned off"
            if permission == .network, let hosts = manifest.networkHosts {
                state += hosts == ["*"] ? " (any server you set up)" : " (\(hosts.joined(separator: ", ")))"
            }
            return "\(name): \(state)"
        }
    }

    /// Turns permissions on or off for `manifest`'s plugin; only what it declares can be turned on. The error
    /// is one sentence.
    package func change(
        _ record: PluginRecord, _ manifest: PluginManifest, _ wanted: [PluginPermission: Bool]
    ) throws(CLIFailure) {
        for (permission, on) in wanted where on && !manifest.declaredPermissions.contains(permission) {
            throw CLIFailure(
                message:
                    "\(manifest.name) does not ask for \(permission.spoken) in its manifest, so it cannot be given it.",
                exitCode: 65)
        }
        for (permission, on) in wanted.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where on && withheld(permission, from: record) {
            throw CLIFailure(
                message:
                    "Your administrator does not let plugins have \(permission.spoken) (\(policy.location)), so \(manifest.name) cannot be given it.",
                exitCode: 77)
        }
        do {
            try store.update(manifest.id) { choices in
                for (permission, on) in wanted { choices[permission] = on }
            }
        } catch {
            throw CLIFailure(message: "The permissions cannot be saved in \(store.file.path): \(error).", exitCode: 73)
        }
    }

    /// Turns the plugin off (or on again) for this user.
    package func setDisabled(_ id: String, _ disabled: Bool) throws(CLIFailure) {
        do {
            try store.update(id) { $0.disabled = disabled ? true : nil }
        } catch {
            throw CLIFailure(message: "The choice cannot be saved in \(store.file.path): \(error).", exitCode: 73)
        }
    }

    /// The sandbox this kernel can give a helper: "Landlock (ABI 7), seccomp", or what is missing.
    package static func kernelSandbox() -> String {
        let (layers, missing) = SandboxLayers.kernel()
        return missing.isEmpty ? layers.description : "\(layers.description); missing: \(missing)"
    }
}

/// Who vouches for an installed plugin, as `plugins list` says it: its package's SIGNATURE (kept beside its
/// manifest by the install) checked against its SHA256SUMS and the trusted keys.
package enum PluginProvenance {
    /// "signed by Example Ltd (trusted)", "signed by an unknown publisher (key 1a2b…)", "unsigned", or
    /// "Assist's own"; the publisher's name alone in `publisher` when trusted. `trusted` is read when a
    /// signature is first checked, once for all the plugins described with it (no default: a caller that made
    /// one per plugin would read the folders once per plugin again).
    package static func describe(
        _ record: PluginRecord, paths: AssistPaths, trusted: TrustedKeysOnce
    ) -> (text: String, publisher: String?) {
        if PluginSearchPath.isFirstParty(manifest: record.manifestURL, id: record.id, paths: paths) {
            return ("Assist's own", "Assist")
        }
        let folder = record.manifestURL.deletingLastPathComponent()
        guard let bytes = try? Data(contentsOf: folder.appendingPathComponent(PackageSignature.fileName)) else {
            return ("unsigned", nil)
        }
        guard let signature = try? PackageSignature.parse(bytes),
            let sums = try? Data(contentsOf: folder.appendingPathComponent(PluginArchive.checksumsName)),
            signature.verifies(checksums: sums)
        else { return ("its signature does not match its files", nil) }
        if let publisher = trusted.keys.publisher(of: signature.publicKey) {
            return ("signed by \(publisher) (trusted)", publisher)
        }
        return ("signed by an unknown publisher (key \(signature.keyID))", nil)
    }
}

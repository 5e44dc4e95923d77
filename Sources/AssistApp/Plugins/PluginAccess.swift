import AssistCore
import Foundation
import PluginHost

/// What a plugin is given and whether it is turned on, as `assist plugins info`, `plugins permissions`,
/// `plugins disable|enable` and the shell say it (docs/security.md). Choices live in
/// `<data>/plugin-permissions.json`.
package struct PluginAccess {
    package let store: PermissionStore

    package init(paths: AssistPaths) {
        store = PermissionStore(data: paths.data)
    }

    /// One line per permission: "Camera: allowed", "Microphone: asked for, turned off", "Network: not asked
    /// for"; the network names its servers.
    package func lines(_ manifest: PluginManifest) -> [String] {
        let chosen = store.choices(manifest.id)
        return PluginPermission.allCases.map { permission in
            let name = permission.rawValue.prefix(1).uppercased() + permission.rawValue.dropFirst()
            guard manifest.declaredPermissions.contains(permission) else { return "\(name): not asked for" }
            var state = chosen[permission] ?? true ? "allowed" : "asked for, turned off"
            if permission == .network, let hosts = manifest.networkHosts {
                state += hosts == ["*"] ? " (any server you set up)" : " (\(hosts.joined(separator: ", ")))"
            }
            return "\(name): \(state)"
        }
    }

    /// Turns permissions on or off for `manifest`'s plugin; only what it declares can be turned on. The error
    /// is one sentence.
    package func change(_ manifest: PluginManifest, _ wanted: [PluginPermission: Bool]) throws(CLIFailure) {
        for (permission, on) in wanted where on && !manifest.declaredPermissions.contains(permission) {
            throw CLIFailure(
                message:
                    "\(manifest.name) does not ask for \(permission.spoken) in its manifest, so it cannot be given it.",
                exitCode: 65)
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

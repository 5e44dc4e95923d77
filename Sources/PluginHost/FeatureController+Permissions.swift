import AssistCore
import Foundation
import Interaction
import Logging
import PluginABI
import PluginAPI

/// What a feature may reach: the question Assist's own features ask at first use (docs/security.md, "Assist's
/// own features, at first use"), and the sandbox a plugin's helper is started in.
extension FeatureController {
    /// What `record` declares that nobody was asked about yet: a stranger's plugin was asked at install, and a
    /// background feature (photo-sensor) starts with the shell, set up by whoever gave it folders and a server.
    /// Nothing for a start its manifest says uses none of them (`first_use.not_for`: `teach --video F`), nor
    /// while a setting it cannot work without is unset (`first_use.needs_settings`: collect-videos not set up
    /// says so first, and asks once it is), nor for the network while the settings it sends by are unset
    /// (`first_use.network_needs_settings`).
    func unasked(_ record: PluginRecord, arguments: [String] = []) -> [PluginPermission] {
        guard asksFirstUse, record.state == .available || record.state == .loaded, let manifest = record.manifest,
            !manifest.isBackground,
            PluginSearchPath.isFirstParty(manifest: record.manifestURL, id: record.id, paths: services.paths)
        else { return [] }
        if let without = manifest.firstUse?.notFor, arguments.contains(where: without.contains) { return [] }
        let settings = services.settings
        let isUnset = { (key: String) in
            (settings.value(key)?.description.trimmingCharacters(in: .whitespaces) ?? "").isEmpty
        }
        if (manifest.firstUse?.needsSettings ?? []).contains(where: isUnset) { return [] }
        // Barcode sends nothing until an admin sets its lookup address: the network waits for it.
        let sends = manifest.firstUse?.networkNeedsSettings.map { !$0.allSatisfy(isUnset) } ?? true
        let chosen = PermissionStore(data: services.paths.data).choices(record.id)
        return PluginPermission.allCases.filter {
            manifest.declaredPermissions.contains($0) && chosen[$0] == nil && ($0 != .network || sends)
        }
    }

    /// Asks whether `record` may use `permission`, keeps the answer and starts it (asking the next one first);
    /// Escape starts nothing and is told as a cancelled start.
    func askFirstUse(_ permission: PluginPermission, _ record: PluginRecord, arguments: [String]) {
        let name = record.name
        let what = phrases.text("permission.\(permission.rawValue)")
        let servers = record.manifest?.networkHosts ?? []
        let prompt =
            permission == .network
            ? phrases.text(
                "permission.first-use-network",
                [
                    "name": name,
                    "servers": servers == ["*"]
                        ? phrases.text("permission.any-server") : servers.joined(separator: ", "),
                ])
            : phrases.text("permission.first-use", ["name": name, "permission": what])
        services.interaction.dialogs.open(
            .confirm(prompt: prompt, defaultYes: true, timeoutMs: 0), owner: CommandRouter.hostOwner
        ) { [weak self] answer in
            guard let self else { return }
            guard answer.status == .answered else { return tellEnded(record, ASSIST_E_CANCELLED) }
            let store = PermissionStore(data: services.paths.data)
            do {
                try store.update(record.id) { $0[permission] = answer.yes }
            } catch {
                announcer.say(
                    phrases.text("permission.not-saved", ["path": store.file.path]), priority: .important)
                return tellEnded(record, ASSIST_E_IO)
            }
            services.logger.info(
                "\(record.id): \(permission.rawValue) \(answer.yes ? "allowed" : "refused") at first use")
            if !answer.yes {
                announcer.say(
                    phrases.text("permission.first-use-no", ["name": name, "permission": what, "id": record.id]))
            }
            // Loaded already (by a check before this start): its services take the answer now.
            record.context?.services.permissions.setGranted(permission, answer.yes)
            // Once the dialogs are done with this answer, so that a feature asking at once (the survey's
            // privacy text) opens its question after it, not inside its completion.
            services.loop.post { [weak self] in
                guard let self else { return }
                // A start that failed has told the feature's end already; a refusal before it has not.
                let told = endsTold[record.id, default: 0]
                if !activate(record, arguments: arguments), endsTold[record.id, default: 0] == told {
                    tellEnded(record, ASSIST_E_CANCELLED)
                }
            }
        }
    }

    /// Shows `record` the offers it is granted (`PluginOffers`) in its data folder, and takes away any it is no
    /// longer granted; the folders its helper may read for them.
    func showOffers(_ record: PluginRecord, context: PluginContext) -> [URL] {
        guard let manifest = record.manifest else { return [] }
        let paths = services.paths
        let plugin = { (record: PluginRecord, manifest: PluginManifest) in
            OfferingPlugin(
                manifest: manifest, folders: .of(manifest.id, paths: paths, share: paths.share),
                firstParty: PluginSearchPath.isFirstParty(manifest: record.manifestURL, id: record.id, paths: paths))
        }
        // Only a plugin that reads offers needs the others' manifests (most read none: nothing to work out).
        let everyone = { self.records.compactMap { other in other.manifest.map { plugin(other, $0) } } }
        let grants =
            (manifest.reads ?? []).isEmpty ? [] : PluginOffers.grants(for: plugin(record, manifest), among: everyone())
        do {
            try PluginOffers.show(grants, in: context.services.session.folders.data)
        } catch {
            services.logger.warning("\(record.id): the offers it reads could not be shown: \(error)")
            return []
        }
        return grants.flatMap(\.targets)
    }

    /// The sandbox `record`'s helper is started in (docs/security.md), once the offers it is granted are shown
    /// (`showOffers`): it reads its own folder, the share folders and those offers, and reads and writes its
    /// data and cache folders, made here first (0700) so the rules can name them.
    func sandboxPolicy(_ record: PluginRecord, context: PluginContext) -> SandboxPolicy {
        let offered = showOffers(record, context: context)
        let settings = services.settings
        let folders = context.services.session.folders
        for folder in [folders.data, folders.cache] { try? AssistPaths.ensurePrivateDirectory(folder) }
        var reads = [record.manifestURL.deletingLastPathComponent(), folders.share, services.paths.share] + offered
        if let models = ProcessInfo.processInfo.environment["ASSIST_MODELS_DIR"] {
            reads.append(URL(fileURLWithPath: models))
        }
        return SandboxPolicy(
            enabled: settings.value("plugins.sandbox")?.flag ?? true,
            required: settings.value("plugins.require-sandbox")?.flag ?? false, reads: reads,
            writes: [folders.data, folders.cache],
            memoryMB: Int(settings.value("plugins.helper-memory-mb")?.integer ?? 4096),
            openFiles: Int(settings.value("plugins.helper-open-files")?.integer ?? 256))
    }

    /// Says once a session, and logs, that `record` runs with part of its sandbox missing.
    func warnUnsandboxed(_ record: PluginRecord, missing: String) {
        services.logger.warning("\(record.id) runs without its full sandbox: \(missing)")
        guard warnedUnsandboxed.insert(record.id).inserted else { return }
        announcer.say(
            phrases.text("plugin.unsandboxed", ["name": record.name, "reason": missing]), priority: .important,
            remember: false)
    }
}

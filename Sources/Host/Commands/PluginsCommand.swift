import ArgumentParser
import AssistApp
import AssistCore
import Digest
import Foundation
import PluginHost

/// `assist plugins …`: list, describe and check plugins without running features.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List, describe, check, pack, install and remove plugins.",
        subcommands: [
            PluginsListCommand.self, PluginsInfoCommand.self, PluginsCheckCommand.self, PluginsResetCommand.self,
            PluginsPermissionsCommand.self, PluginsDisableCommand.self, PluginsEnableCommand.self,
            PluginsPackCommand.self, PluginsKeygenCommand.self, PluginsInstallCommand.self, PluginsUpdateCommand.self,
            PluginsRemoveCommand.self,
        ],
        defaultSubcommand: PluginsListCommand.self
    )
}

/// `assist plugins list [--json]`: every plugin found, its state and why, where it came from and its library's
/// SHA-256 (what a kiosk's allowlist names). Reads manifests and hashes libraries; opens none.
struct PluginsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List plugins and their states.")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print JSON instead of lines.")
    var json = false

    func run() throws {
        let session = try HostSession(options: global.host, interactive: false)
        let records = session.features.records
        if json {
            let rows = records.map { PluginSummary($0, paths: session.paths) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(rows), as: UTF8.self))
            return
        }
        if records.isEmpty {
            print("No plugins found. Install some, or pass --plugin-dir.")
            return
        }
        // The hash last: a screen reader can stop before it.
        for record in records {
            let version = record.manifest.map { " \($0.version)" } ?? ""
            let reason = record.reason.map { ": \($0)" } ?? ""
            let origin = PluginSearchPath.origin(of: record.manifestURL, id: record.id, paths: session.paths)
            let hash = SHA256Digest.hex(ofFileAt: record.libraryURL).map { ", SHA-256 \($0)" } ?? ""
            let signed = PluginProvenance.describe(record, paths: session.paths).text
            print(
                "\(record.id)\(version), \(record.name), \(record.state.rawValue)\(reason); \(origin), \(signed)\(hash)"
            )
        }
    }
}

/// `assist plugins info ID`: everything the manifest says, in plain lines.
struct PluginsInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Describe one plugin.")

    @OptionGroup var plugin: OnePlugin<GlobalOptions>

    func run() throws {
        let (session, record) = try plugin.open()
        var lines = ["\(record.name) (\(record.id))", "State: \(record.state.rawValue)"]
        if let reason = record.reason { lines.append("Reason: \(reason)") }
        if let manifest = record.manifest {
            lines.append("Version: \(manifest.version), ABI \(manifest.abi), mode \(manifest.mode ?? "foreground")")
            if let description = manifest.description { lines.append("Description: \(description)") }
            lines.append("Required services: \(list(manifest.requiredServices))")
            lines.append("Optional services: \(list(manifest.services?.optional ?? []))")
            lines.append("Devices: \(list(manifest.devices ?? []))")
            lines += PluginAccess(paths: session.paths).lines(record, manifest)
            lines.append("Languages: \(list(manifest.languages ?? []))")
            let keywords = (manifest.keywords ?? []).map { "\"\($0.phrase)\"" + ($0.lang.map { " (\($0))" } ?? "") }
            lines.append("Keywords: \(list(keywords))")
            if let license = manifest.license { lines.append("License: \(license)") }
        }
        lines.append(
            "Runs: "
                + (record.isolated
                    ? "in a helper process of its own; a crash there closes only this feature"
                    : "in Assist's own process"))
        if record.isolated {
            let on = session.settings.value("plugins.sandbox")?.flag ?? true
            lines.append(
                on
                    ? "Sandbox: its own folders only, no network or programs of its own; this computer gives \(PluginAccess.kernelSandbox())"
                    : "Sandbox: turned off (plugins.sandbox = false)")
        }
        let crashes = CrashGuard(data: session.paths.data).crashes(of: record.id).count
        if crashes > 0 { lines.append("Crashes recorded: \(crashes); assist plugins reset \(record.id) forgets them") }
        lines.append("Library: \(record.libraryURL.path)")
        lines.append("Manifest: \(record.manifestURL.path)")
        lines.forEach { print($0) }
    }

    private func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ", ") }
}

/// `assist plugins reset ID`: turns a plugin that crashed Assist on again and forgets its crashes.
struct PluginsResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset", abstract: "Turn on again a plugin that was turned off because it crashed Assist.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The plugin's id.")
    var id: String

    func run() throws {
        let paths = AssistPaths.resolve(dataDir: global.dataDir, shareDir: global.shareDir)
        if CrashGuard(data: paths.data).reset(id) {
            print("\(id) is turned on again.")
        } else {
            print("\(id) was not turned off; its crash history is cleared.")
        }
    }
}

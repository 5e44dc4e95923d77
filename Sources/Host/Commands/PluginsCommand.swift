import ArgumentParser
import AssistApp
import AssistCore
import Foundation
import PluginHost
import PluginPackage

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
        let trusted = TrustedKeysOnce(folders: PluginInstaller.trustedKeyFolders)
        let rows = session.features.records.map { PluginSummary($0, paths: session.paths, trusted: trusted) }
        if json {
            print(try PluginSummary.json(rows))
        } else if rows.isEmpty {
            print("No plugins found. Install some, or pass --plugin-dir.")
        } else {
            rows.forEach { print($0.line) }
        }
    }
}

/// `assist plugins info ID`: everything the manifest says, in plain lines.
struct PluginsInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Describe one plugin.")

    @OptionGroup var plugin: OnePlugin<GlobalOptions>

    func run() throws {
        let (session, record) = try plugin.open()
        session.describe(record).forEach { print($0) }
    }
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
        let guardian = CrashGuard(data: paths.records)
        if guardian.reset(id) {
            print("\(id) is turned on again.")
            return
        }
        // Not turned off: a plugin found here (by its id or short name), or a mistyped name, said as such.
        let session = try HostSession(options: global.host, interactive: false)
        let record = try PluginLookup.find(id, in: session)
        if record.id != id, guardian.reset(record.id) {
            print("\(record.id) is turned on again.")
        } else {
            print("\(record.id) was not turned off; its crash history is cleared.")
        }
    }
}

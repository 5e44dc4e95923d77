import ArgumentParser
import AssistApp
import AssistCore
import Foundation
import PluginHost

/// On or off, as the permission options take it.
enum Switch: String, ExpressibleByArgument, CaseIterable {
    case on, off
    var isOn: Bool { self == .on }
}

/// `assist plugins permissions ID [--camera on|off] [--microphone on|off] [--network on|off]`: what a plugin
/// is given, changed when asked; only what its manifest declares can be turned on (docs/security.md).
struct PluginsPermissionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permissions", abstract: "Show or change what a plugin may use: camera, microphone, network.")

    @OptionGroup var plugin: OnePlugin<QuietGlobalOptions>

    @Option(help: "Give or take the camera.")
    var camera: Switch?

    @Option(help: "Give or take the microphone.")
    var microphone: Switch?

    @Option(help: "Give or take the network (the servers its manifest names).")
    var network: Switch?

    func run() throws {
        let (session, record) = try plugin.open()
        guard let manifest = record.manifest else {
            throw CLIFailure(message: "\(record.id) has no readable manifest: \(record.reason ?? "").", exitCode: 65)
        }
        let access = PluginAccess(paths: session.paths)
        var wanted: [PluginPermission: Bool] = [:]
        wanted[.camera] = camera?.isOn
        wanted[.microphone] = microphone?.isOn
        wanted[.network] = network?.isOn
        if !wanted.isEmpty { try access.change(record, manifest, wanted) }
        print("\(record.name) (\(record.id))")
        access.lines(record, manifest).forEach { print($0) }
        if !wanted.isEmpty, record.isRunning || record.state == .loaded {
            print("The change applies from its next start.")
        }
    }
}

/// `assist plugins disable ID` and `assist plugins enable ID`: turns a plugin off for this user, or on again.
struct PluginsDisableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disable", abstract: "Turn a plugin off: it is not loaded until enabled again.")

    @OptionGroup var plugin: OnePlugin<GlobalOptions>

    func run() throws {
        let (session, record) = try plugin.open()
        try PluginAccess(paths: session.paths).setDisabled(record.id, true)
        print("\(record.name) is turned off; assist plugins enable \(record.id) turns it on again.")
    }
}

struct PluginsEnableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enable", abstract: "Turn on again a plugin turned off with assist plugins disable.")

    @OptionGroup var plugin: OnePlugin<GlobalOptions>

    func run() throws {
        let (session, record) = try plugin.open()
        let access = PluginAccess(paths: session.paths)
        let wasOff = access.store.choices(record.id).disabled == true
        try access.setDisabled(record.id, false)
        if wasOff {
            print("\(record.name) is turned on again.")
        } else {
            print(
                "\(record.name) was not turned off with assist plugins disable; \(record.state.rawValue): \(record.reason ?? "nothing to do")."
            )
        }
    }
}

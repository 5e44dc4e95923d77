import ArgumentParser
import AssistApp
import AssistCore
import Foundation
import Interaction
import PluginHost
import PluginPackage

/// `assist plugins pack DIR`: one `<id>-<version>.assist-plugin` file from a plugin folder.
struct PluginsPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Make a plugin package (.assist-plugin) from a plugin folder.",
        discussion:
            "The package holds manifest.json, SHA256SUMS, with --sign a SIGNATURE of them, the library the manifest names and the folder's share/ folder. See docs/plugin-packages.md and docs/security.md."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The plugin folder, with manifest.json.")
    var folder: String

    @Option(help: "The library, when it is not in the folder (a build folder's .so).")
    var library: String?

    @Option(help: "The folder the package is written to (default: the current folder).")
    var output: String?

    @Option(help: "Sign the package with this key file (made by assist plugins keygen).")
    var sign: String?

    func run() throws {
        try PluginPacking.pack(options: global.host, folder: folder, library: library, output: output, sign: sign)
    }
}

/// What install, update and remove share: where they work, the question, and one spoken and printed line.
struct PackageCommandOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions

    @Flag(help: "Work in the system plugin folder, for every user (root only).")
    var system = false

    @Flag(name: [.customShort("y"), .long], help: "Answer yes to the question (for scripts).")
    var yes = false

    /// Runs `work` with an installer for the chosen folder (PluginInstaller.run).
    func run(_ work: (PluginInstaller) throws(InstallRefusal) -> String) throws {
        try PluginInstaller.run(options: global.host, system: system, yes: yes, work)
    }
}

/// The package install and update read, and how long its library may take to load in the check.
struct PackageFileArguments: ParsableArguments {
    @Argument(help: "The package file.")
    var package: String

    @Option(help: "Seconds the plugin's library may take to load in the check.")
    var timeout: Double = 10

    @Flag(help: "Install an older version over a newer one (refused without it).")
    var allowDowngrade = false

    var url: URL { URL(fileURLWithPath: package) }
}

/// `assist plugins install FILE`: checks a package, asks, and installs it for this user (or `--system`).
struct PluginsInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install a plugin package (.assist-plugin) after checking it.",
        discussion:
            "Nothing is written until the package, its manifest and its library pass the checks and you answer yes. An installed plugin of the same id is updated (its data is kept); an older version over a newer one is refused unless --allow-downgrade, and then asks first."
    )

    @OptionGroup var options: PackageCommandOptions

    @OptionGroup var file: PackageFileArguments

    func run() throws {
        let started = Date()
        try options.run { (installer: PluginInstaller) throws(InstallRefusal) -> String in
            let line = try installer.install(
                file.url, intent: .install, timeout: file.timeout, allowDowngrade: file.allowDowngrade)
            print(String(format: "Installed in %.2f s.", Date().timeIntervalSince(started)))
            return line
        }
    }
}

/// `assist plugins update FILE`: as install, for a plugin that is installed already.
struct PluginsUpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update", abstract: "Update an installed plugin from a newer package; its data is kept.")

    @OptionGroup var options: PackageCommandOptions

    @OptionGroup var file: PackageFileArguments

    func run() throws {
        try options.run { (installer: PluginInstaller) throws(InstallRefusal) -> String in
            try installer.install(
                file.url, intent: .update, timeout: file.timeout, allowDowngrade: file.allowDowngrade)
        }
    }
}

/// `assist plugins remove ID`: removes an installed plugin and, unless `--keep-data`, what it saved.
struct PluginsRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove an installed plugin and what it saved.")

    @OptionGroup var options: PackageCommandOptions

    @Argument(help: "The plugin's id or short name.")
    var id: String

    @Flag(help: "Keep what the plugin saved (its database and files), for a later install.")
    var keepData = false

    func run() throws {
        try options.run { (installer: PluginInstaller) throws(InstallRefusal) -> String in
            try installer.remove(id, keepData: keepData)
        }
    }
}

/// `assist plugins keygen KEYFILE --publisher NAME`: a new signing key (KEYFILE, 0600) and its public key
/// (KEYFILE.pub), which a user or admin puts in trusted-keys.d to trust the packages it signs.
struct PluginsKeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen", abstract: "Make a key to sign plugin packages with, and its public key to trust.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Where the private key is written (the public key goes beside it, with .pub).")
    var keyFile: String

    @Option(help: "The publisher's name, as installs will say it (\"Example Ltd\").")
    var publisher: String

    func run() throws {
        try PluginPacking.keygen(at: URL(fileURLWithPath: keyFile), publisher: publisher)
    }
}

import ArgumentParser
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
            "The package holds manifest.json, SHA256SUMS, the library the manifest names and the folder's share/ folder. See docs/plugin-packages.md."
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The plugin folder, with manifest.json.")
    var folder: String

    @Option(help: "The library, when it is not in the folder (a build folder's .so).")
    var library: String?

    @Option(help: "The folder the package is written to (default: the current folder).")
    var output: String?

    func run() throws {
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        let manifestURL = root.appendingPathComponent(PluginArchive.manifestName)
        let manifest: PluginManifest
        do { manifest = try PluginManifest.load(from: manifestURL) } catch {
            throw CLIFailure(message: PluginInstaller.sentence(error.message))
        }
        let libraryURL = library.map { URL(fileURLWithPath: $0) } ?? root.appendingPathComponent(manifest.library)
        // Any architecture: a package may be made on one machine for another.
        guard FileManager.default.fileExists(atPath: libraryURL.path) else {
            throw CLIFailure(message: PluginInstaller.sentence(PluginRefusal.libraryMissing(libraryURL.path).message))
        }
        if case .failure(let problem) = ELFInspector.header(of: libraryURL.path) {
            throw CLIFailure(
                message: PluginInstaller.sentence(PluginRefusal.notELF(libraryURL.path, problem.text).message))
        }
        var files = [PluginArchive.manifestName: manifestURL, manifest.library: libraryURL]
        for (path, url) in try Self.shareFiles(in: root) { files[path] = url }
        let outputFolder = URL(fileURLWithPath: output ?? FileManager.default.currentDirectoryPath)
        let package = outputFolder.appendingPathComponent(
            "\(manifest.id)-\(manifest.version).\(PluginArchive.fileExtension)")
        do {
            try PluginArchive.pack(files: files, executable: manifest.library, to: package)
            // Read back as an install would read it.
            let contents = try PluginArchive.inspect(package)
            let size = (try? FileManager.default.attributesOfItem(atPath: package.path)[.size] as? Int) ?? 0
            print(
                "Packed \(manifest.name) \(manifest.version) into \(package.path): \(contents.files.count) files, \(max(1, size / 1024)) KB."
            )
        } catch {
            throw CLIFailure(message: error.description)
        }
    }

    /// The regular files under `<folder>/share`, by their path in the package. A link is refused: a package
    /// holds only files and folders.
    static func shareFiles(in folder: URL) throws -> [(String, URL)] {
        let share = folder.appendingPathComponent("share")
        guard FileManager.default.fileExists(atPath: share.path) else { return [] }
        var found: [(String, URL)] = []
        let keys: [URLResourceKey] = [.isSymbolicLinkKey, .isRegularFileKey, .isDirectoryKey]
        guard let walker = FileManager.default.enumerator(at: share, includingPropertiesForKeys: keys) else {
            return []
        }
        for case let url as URL in walker {
            let values = try url.resourceValues(forKeys: Set(keys))
            let path = "share/" + url.standardizedFileURL.path.dropFirst(share.standardizedFileURL.path.count + 1)
            if values.isSymbolicLink == true {
                throw CLIFailure(
                    message: "\(path) is a link; a package holds only files and folders, so copy the file there.")
            }
            if values.isRegularFile == true { found.append((path, url)) }
        }
        return found
    }
}

/// What install, update and remove share: where they work, the question, and one spoken and printed line.
struct PackageCommandOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions

    @Flag(help: "Work in the system plugin folder, for every user (root only).")
    var system = false

    @Flag(name: [.customShort("y"), .long], help: "Answer yes to the question (for scripts).")
    var yes = false

    /// Runs `work` with an installer for the chosen folder; its result is said, a refusal is said on standard
    /// error, and the exit code is non-zero.
    func run(_ work: (PluginInstaller) throws(InstallRefusal) -> String) throws {
        let session = try HostSession(options: global, interactive: false, speaks: !global.noSpeech)
        let errors = Announcer(
            output: StandardErrorOutput(), speaker: session.speech, language: session.announcer.language)
        let outcome: Result<String, InstallRefusal>
        if system && geteuid() != 0 {
            outcome = .failure(
                InstallRefusal(message: "The system plugin folder is for root; run the command again with sudo."))
        } else {
            let installer = PluginInstaller(
                session: session,
                folder: system ? PluginSearchPath.systemFolder() : PluginSearchPath.userFolder(),
                system: system, passThrough: global.passThrough,
                ask: { question in ask(question, session: session) })
            do throws(InstallRefusal) { outcome = .success(try work(installer)) } catch { outcome = .failure(error) }
        }
        switch outcome {
        case .success(let line):
            session.announcer.say(line)
            session.shutdown()
        case .failure(let refusal):
            errors.say(refusal.message, priority: .important)
            session.shutdown()
            throw ExitCode(refusal.exitCode)
        }
    }

    /// Says `question` and reads the answer from standard input: y or yes is yes; anything else, or no input
    /// at all, is no. `--yes` answers at once.
    private func ask(_ question: String, session: HostSession) -> Bool {
        session.announcer.say(question)
        if yes {
            session.announcer.print("Yes (--yes).")
            return true
        }
        guard let answer = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return false
        }
        return answer == "y" || answer == "yes"
    }
}

/// The package install and update read, and how long its library may take to load in the check.
struct PackageFileArguments: ParsableArguments {
    @Argument(help: "The package file.")
    var package: String

    @Option(help: "Seconds the plugin's library may take to load in the check.")
    var timeout: Double = 10

    var url: URL { URL(fileURLWithPath: package) }
}

/// `assist plugins install FILE`: checks a package, asks, and installs it for this user (or `--system`).
struct PluginsInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install a plugin package (.assist-plugin) after checking it.",
        discussion:
            "Nothing is written until the package, its manifest and its library pass the checks and you answer yes. An installed plugin of the same id is updated (its data is kept); going back to an older version asks first."
    )

    @OptionGroup var options: PackageCommandOptions

    @OptionGroup var file: PackageFileArguments

    func run() throws {
        let started = Date()
        try options.run { (installer: PluginInstaller) throws(InstallRefusal) -> String in
            let line = try installer.install(file.url, intent: .install, timeout: file.timeout)
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
            try installer.install(file.url, intent: .update, timeout: file.timeout)
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

/// Lines on standard error, for refusals.
struct StandardErrorOutput: LineOutput {
    func writeLine(_ line: String) {
        FileHandle.standardError.write(Data((PlainText.clean(line) + "\n").utf8))
    }
}

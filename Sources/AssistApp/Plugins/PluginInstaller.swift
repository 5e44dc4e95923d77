import AssistCore
import Foundation
import PluginHost
import PluginPackage

/// Why an install or a removal did not happen: one sentence, spoken and printed.
package struct InstallRefusal: Error {
    package var message: String
    package var exitCode: Int32 = 1

    package init(message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// Installs, updates and removes plugin packages in one plugin folder (the user's, or the system's).
///
/// The package is checked whole before anything is written: its entries (`PluginArchive.inspect`), then its
/// manifest by the loader's rules, its library's architecture and the plugins already installed. Only then is
/// the user asked, and the package unpacked into a dot-folder beside the plugins (which the loader skips),
/// checked again as the loader will see it, its library opened by the validator in a child process, and
/// renamed into place: an update is swapped with the old folder in one step, so the plugin is never missing
/// or half there, and a refusal at any point leaves the installed version as it was.
package struct PluginInstaller {
    package let session: HostSession
    /// The plugin folder installed into.
    package let folder: URL
    /// True for the system folder (every user).
    package let system: Bool
    /// The options a child `assist` (the validator) is given.
    package let passThrough: [String]
    /// Asks a yes-or-no question; true for yes.
    package let ask: (String) -> Bool

    package init(
        session: HostSession, folder: URL, system: Bool, passThrough: [String], ask: @escaping (String) -> Bool
    ) {
        self.session = session
        self.folder = folder
        self.system = system
        self.passThrough = passThrough
        self.ask = ask
    }

    package enum Intent {
        case install
        case update
    }

    private var whom: String { system ? "for every user" : "for you" }

    // MARK: Install

    /// Installs or updates from `package`; returns what to say when it is done.
    package func install(
        _ package: URL, intent: Intent, timeout: Double, allowDowngrade: Bool = false
    ) throws(InstallRefusal) -> String {
        let contents: PackageContents
        do { contents = try PluginArchive.inspect(package) } catch { throw InstallRefusal(message: error.description) }
        let manifest: PluginManifest
        do {
            manifest = try PluginManifest.decode(contents.manifest, path: "in \(package.lastPathComponent)")
        } catch {
            throw InstallRefusal(message: Self.sentence(error.message))
        }
        let title = "\(manifest.name) \(manifest.version)"
        try check(manifest, contents: contents, title: title)
        let (vouched, publisher) = try provenance(contents, title: title, author: manifest.author)
        let policy = AdminPluginPolicy.load()
        if let reason = policy.refusal(
            id: manifest.id, publisher: { publisher }, author: manifest.author, firstParty: false)
        {
            throw InstallRefusal(message: "\(title) cannot be installed: \(reason). Nothing was installed.")
        }
        let withheld = PluginPermission.allCases.filter {
            manifest.declaredPermissions.contains($0) && !policy.mayGrant($0)
        }
        let limits =
            withheld.isEmpty
            ? ""
            : "Your administrator does not let plugins have " + Self.joined(withheld.map(\.spoken))
                + ", so it will not get " + (withheld.count == 1 ? "it." : "them.")

        let target = folder.appendingPathComponent(manifest.id)
        let installed = try installedCopy(of: manifest, at: target)
        if intent == .update && installed == nil {
            throw InstallRefusal(
                message:
                    "\(manifest.name) is not installed \(whom), so there is nothing to update; install it with assist plugins install \(package.path)."
            )
        }
        if let old = installed?.manifest, let oldVersion = SemanticVersion(old.version),
            let newVersion = SemanticVersion(manifest.version), newVersion < oldVersion, !allowDowngrade
        {
            throw InstallRefusal(
                message:
                    "\(manifest.name) \(old.version) is installed, and \(manifest.version) is older: an older version may not read what the newer one saved, and an old version may have a flaw the new one fixed. To go back anyway, run assist plugins install --allow-downgrade \(package.path). Nothing was installed."
            )
        }
        // The author's name is the manifest's word: said as "by" only when a trusted publisher signed it,
        // else after the sentence that says nobody vouches for it.
        let question = question(
            manifest, installed: installed, signed: vouched, withheld: limits,
            author: publisher == nil ? nil : manifest.author)
        guard ask(question) else {
            throw InstallRefusal(message: "Nothing was installed.")
        }

        let lock = try lockFolder()
        defer { close(lock) }
        let staging = try makeStaging(for: manifest.id)
        defer { try? FileManager.default.removeItem(at: staging) }
        do {
            try PluginArchive.unpack(package, into: staging, expecting: contents, executable: manifest.library)
        } catch {
            throw InstallRefusal(message: error.description)
        }
        chmod(staging.path, 0o755)
        try validate(staging, title: title, timeout: timeout)
        try place(staging, at: target)
        if let installed, let old = installed.manifest {
            if old.version == manifest.version { return "\(title) is installed again \(whom); its data is kept." }
            return "\(manifest.name) is now version \(manifest.version) (it was \(old.version)); its data is kept."
        }
        let keyword = manifest.keywords?.first.map { "say or type “\($0.phrase)”, or run" } ?? "run"
        return "\(title) is installed \(whom). To start it, \(keyword): assist run \(manifest.shortName)."
    }

    /// What the loader would refuse, from the manifest and the library's first bytes: nothing is unpacked yet.
    private func check(_ manifest: PluginManifest, contents: PackageContents, title: String) throws(InstallRefusal) {
        if manifest.id.hasPrefix("assist.") {
            throw InstallRefusal(
                message: "\(title) is refused: ids that begin with “assist.” belong to Assist's own features.")
        }
        if let refusal = PluginDiscovery.checkVersions(manifest: manifest) {
            throw InstallRefusal(message: "\(title) cannot be installed: \(refusal.message).")
        }
        for service in manifest.requiredServices where !HostServices.serviceIDs.contains(service) {
            throw InstallRefusal(
                message: "\(title) cannot be installed: \(PluginRefusal.serviceMissing(service).message).")
        }
        guard let library = contents.files[manifest.library] else {
            throw InstallRefusal(
                message:
                    "The package has no \(manifest.library), the library its manifest names; make it with assist plugins pack."
            )
        }
        if let refusal = PluginDiscovery.checkHeader(ELFInspector.parse(library.head), path: manifest.library) {
            throw InstallRefusal(message: "\(title) cannot be installed: \(refusal.message).")
        }
    }

    /// The copy of this plugin already installed in this folder (an update), or nil for a new one; refuses
    /// when the id is taken anywhere else (it would be a duplicate the loader turns off).
    private func installedCopy(of manifest: PluginManifest, at target: URL) throws(InstallRefusal) -> PluginRecord? {
        let here = target.standardizedFileURL.path
        for record in session.features.records where record.id == manifest.id {
            let place = record.manifestURL.deletingLastPathComponent().standardizedFileURL.path
            if place == here { return record }
            let origin = PluginSearchPath.origin(of: record.manifestURL, id: record.id, paths: session.paths)
            throw InstallRefusal(
                message:
                    "A plugin with the id \(manifest.id) is already installed (\(origin)) at \(place); remove that one first."
            )
        }
        // A folder of that name the loader could not read (a broken earlier install) is replaced.
        return nil
    }

    /// The folders of trusted publishers' keys: the admin's, then the user's (docs/security.md).
    package static var trustedKeyFolders: [URL] {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? NSHomeDirectory()
        return [
            SettingsStore.systemFolder().appendingPathComponent("trusted-keys.d"),
            URL(fileURLWithPath: (environment["XDG_CONFIG_HOME"] ?? "\(home)/.config") + "/assist/trusted-keys.d"),
        ]
    }

    /// Who vouches for the package, as the question's sentence. Refused whatever the settings when its files do
    /// not match its signature; refused when the admin requires a trusted publisher
    /// (`plugins.require-signature`) and none signed it. A trusted-keys folder others may write is not used,
    /// and the refusal or question says so.
    private func provenance(
        _ contents: PackageContents, title: String, author: String?
    ) throws(InstallRefusal) -> (text: String, publisher: String?) {
        let claim = author.map { " It says it is made by \($0); nobody has vouched for that." } ?? ""
        let required = session.settings.value("plugins.require-signature")?.flag ?? false
        let trusted = TrustedKeys.load(folders: Self.trustedKeyFolders)
        let caveat = trusted.problems.map { " " + $0 }.joined()
        guard let bytes = contents.signature else {
            if required {
                throw InstallRefusal(
                    message:
                        "\(title) is not signed, and this computer installs only packages signed by a trusted publisher (plugins.require-signature).\(caveat)"
                )
            }
            return ("It is unsigned, so nobody vouches for who made it.\(claim)\(caveat)", nil)
        }
        let signature: PackageSignature
        do { signature = try PackageSignature.parse(bytes) } catch { throw InstallRefusal(message: error.description) }
        guard signature.verifies(checksums: contents.checksums) else {
            throw InstallRefusal(
                message:
                    "\(title) is refused: its files do not match its signature, so it was changed after it was signed. Nothing was installed."
            )
        }
        if let publisher = trusted.publisher(of: signature.publicKey) {
            return ("It is signed by \(publisher), a publisher you trust.", publisher)
        }
        if required {
            throw InstallRefusal(
                message:
                    "\(title) is signed by an unknown publisher (key \(signature.keyID)), and this computer installs only packages signed by a trusted publisher (plugins.require-signature).\(caveat)"
            )
        }
        return ("It is signed by an unknown publisher (key \(signature.keyID)).\(claim)\(caveat)", nil)
    }

    /// The question before anything is written: who vouches for it (`signed`, which names a self-declared
    /// author only after saying whether anyone vouches), the author as "by" when a trusted publisher signed it,
    /// which devices and settings namespaces it asks for and what of them the admin withholds (`withheld`), and
    /// what happens to the data of an installed version.
    package func question(
        _ manifest: PluginManifest, installed: PluginRecord?, signed: String = "", withheld: String = "",
        author: String? = nil
    ) -> String {
        let by = author.map { " by \($0)" } ?? ""
        let asks = [signed, Self.devicesSentence(manifest), Self.namespacesSentence(manifest), withheld]
            .filter { !$0.isEmpty }.joined(separator: " ")
        guard let old = installed?.manifest, let oldVersion = SemanticVersion(old.version),
            let newVersion = SemanticVersion(manifest.version)
        else {
            return "Install \(manifest.name) \(manifest.version)\(by) \(whom)? \(asks) Y or N."
        }
        if newVersion > oldVersion {
            return
                "Update \(manifest.name) from \(old.version) to \(manifest.version)\(by)? \(asks) Its data is kept. Y or N."
        }
        if newVersion == oldVersion {
            return
                "\(manifest.name) \(manifest.version) is already installed. Install it again? Its data is kept. Y or N."
        }
        return
            "\(manifest.name) \(old.version) is installed. Go back to the older \(manifest.version)? Its data is kept, but the older version may not read what the newer one saved. Y or N."
    }

    /// "It asks for the camera and the microphone." from what the manifest declares (`devices`, and `network`
    /// with its servers); a yes gives it exactly those (docs/security.md).
    package static func devicesSentence(_ manifest: PluginManifest) -> String {
        let asked = manifest.declaredPermissions
        var things = [PluginPermission.camera, .microphone].filter(asked.contains).map(\.spoken)
        if asked.contains(.network), let hosts = manifest.networkHosts {
            things.append(hosts == ["*"] ? "the network" : "the network (\(hosts.joined(separator: ", ")))")
        }
        guard !things.isEmpty else { return "It asks for no camera, microphone or network." }
        return "It asks for \(joined(things))."
    }

    /// "It keeps settings under “notes” and “todo”." when the manifest names its settings namespaces
    /// (`settings_namespaces`); empty when it keeps them under its short name, as every plugin may.
    package static func namespacesSentence(_ manifest: PluginManifest) -> String {
        guard let names = manifest.settingsNamespaces, names != [manifest.shortName] else { return "" }
        return "It keeps settings under \(joined(names.map { "“\($0)”" }))."
    }

    /// "a", "a and b", "a, b and c".
    package static func joined(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : "\(items.dropLast().joined(separator: ", ")) and \(last)"
    }

    // MARK: Steps

    /// One install or removal at a time in a folder (a lock file beside the plugins).
    private func lockFolder() throws(InstallRefusal) -> Int32 {
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        } catch {
            throw InstallRefusal(
                message: "The plugin folder \(folder.path) cannot be made: \(error.localizedDescription).")
        }
        let descriptor = open(folder.appendingPathComponent(".lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw InstallRefusal(message: "The plugin folder \(folder.path) cannot be written: \(Self.errnoText).")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw InstallRefusal(
                message: "Another plugin install or removal is under way here; try again when it ends.")
        }
        return descriptor
    }

    /// A new, empty dot-folder beside the plugins (the same file system, so the final rename is atomic).
    private func makeStaging(for id: String) throws(InstallRefusal) -> URL {
        var template = Array(folder.appendingPathComponent(".install-\(id)-XXXXXX").path.utf8CString)
        guard let made = mkdtemp(&template) else {
            throw InstallRefusal(message: "The plugin folder \(folder.path) cannot be written: \(Self.errnoText).")
        }
        return URL(fileURLWithPath: String(cString: made))
    }

    /// The unpacked copy as the loader will see it, then its library opened in a child process (a crash or a
    /// hang there is a refusal, not a crash here).
    private func validate(_ staging: URL, title: String, timeout: Double) throws(InstallRefusal) {
        let manifestURL = staging.appendingPathComponent(PluginArchive.manifestName)
        let record = PluginDiscovery.inspect(
            manifestURL: manifestURL, libraryDirectory: staging, availableServices: HostServices.serviceIDs)
        guard record.isUsable else {
            throw InstallRefusal(message: "\(title) cannot be installed: \(record.reason ?? "the loader refuses it").")
        }
        let outcome: ChildProbe.Outcome
        do {
            outcome = try ChildProbe.run(
                arguments: ["_probe", manifestURL.path, staging.path] + passThrough, timeoutSeconds: timeout)
        } catch {
            throw InstallRefusal(message: "The plugin's check could not be run: \(error.localizedDescription).")
        }
        switch outcome {
        case .passed:
            try run(manifestURL, in: staging, title: title, timeout: timeout)
        case .failed(let line):
            throw InstallRefusal(message: "\(title) was not installed: it fails its check: \(Self.plain(line)).")
        case .crashed(let line):
            throw InstallRefusal(
                message: "\(title) was not installed: it crashed when it was loaded, \(Self.plain(line)).")
        }
    }

    /// The plugin started for real in a helper process with no arguments and stopped, as `plugins check` begins
    /// (each call with the time limit): one that crashes or hangs there is refused, since it would do so the
    /// first time a person starts it.
    private func run(_ manifestURL: URL, in staging: URL, title: String, timeout: Double) throws(InstallRefusal) {
        let steps: [PluginValidator.Step]
        do {
            var validator = PluginValidator(manifest: manifestURL, libraryDirectory: staging, timeoutSeconds: timeout)
            validator.firstStartOnly = true
            steps = try validator.run().steps
        } catch {
            throw InstallRefusal(message: "The plugin's check could not be run: \(error.localizedDescription).")
        }
        if let failed = steps.first(where: { !$0.ok }) {
            throw InstallRefusal(
                message: "\(title) was not installed: it fails when it runs, at \(failed.step): "
                    + "\(Self.plain(failed.detail ?? "failed")). Its author can see this with assist plugins check.")
        }
    }

    /// Moves `staging` to `target`: swapped with an installed copy in one step (renameat2's exchange), which
    /// `staging` then holds and its removal takes away.
    private func place(_ staging: URL, at target: URL) throws(InstallRefusal) {
        if FileManager.default.fileExists(atPath: target.path) {
            if Self.exchange(staging.path, target.path) { return }
            // A file system without the exchange: the old copy steps aside first, and comes back on failure.
            let aside = folder.appendingPathComponent(".old-\(target.lastPathComponent)-\(getpid())")
            guard rename(target.path, aside.path) == 0 else {
                throw InstallRefusal(
                    message: "The installed copy in \(target.path) cannot be replaced: \(Self.errnoText).")
            }
            guard rename(staging.path, target.path) == 0 else {
                let text = Self.errnoText
                _ = rename(aside.path, target.path)
                throw InstallRefusal(message: "The plugin cannot be put in \(target.path): \(text).")
            }
            try? FileManager.default.removeItem(at: aside)
            return
        }
        guard rename(staging.path, target.path) == 0 else {
            throw InstallRefusal(message: "The plugin cannot be put in \(target.path): \(Self.errnoText).")
        }
    }

    private typealias RenameAt2 =
        @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) ->
        Int32

    /// Swaps two paths atomically (Linux 3.15+, glibc 2.28+); false when the call or the file system lacks it.
    package static func exchange(_ first: String, _ second: String) -> Bool {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let call = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 1 << 1
        return call(AT_FDCWD, first, AT_FDCWD, second, renameExchange) == 0
    }

    // MARK: Remove

    /// Removes the plugin `id` (or its short name) from this folder, with its data unless `keepData`.
    package func remove(_ id: String, keepData: Bool) throws(InstallRefusal) -> String {
        let matches = session.features.records.filter { $0.id == id || $0.manifest?.shortName == id }
        guard let record = matches.first(where: { $0.id == id }) ?? matches.first else {
            throw InstallRefusal(message: "No plugin called \(id) is installed; assist plugins list shows them.")
        }
        let place = record.manifestURL.deletingLastPathComponent()
        let origin = PluginSearchPath.origin(of: record.manifestURL, id: record.id, paths: session.paths)
        let inFolder = place.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path
        switch origin {
        case "first-party":
            throw InstallRefusal(
                message: "\(record.name) is part of Assist and cannot be removed; a kiosk's set-up can leave it out.")
        case "user" where !inFolder, "system" where !inFolder:
            let how =
                origin == "system"
                ? (geteuid() == 0 ? "run assist plugins remove \(record.id) --system" : "run it as root with --system")
                : "run assist plugins remove \(record.id) as that user"
            throw InstallRefusal(
                message:
                    "\(record.name) is installed \(origin == "system" ? "for every user" : "for one user") at \(place.path); to remove it, \(how)."
            )
        case "user", "system":
            break
        default:
            throw InstallRefusal(
                message:
                    "\(record.name) comes from \(place.path), a folder named by --plugin-dir or ASSIST_PLUGIN_PATH; remove it there."
            )
        }
        let title = record.manifest.map { "\(record.name) \($0.version)" } ?? record.name
        guard ask("Remove \(title)\(keepData ? "" : " and everything it saved")? Y or N.") else {
            throw InstallRefusal(message: "Nothing was removed.")
        }
        let lock = try lockFolder()
        defer { close(lock) }
        // Out of the loader's sight in one step, then deleted.
        let aside = folder.appendingPathComponent(".remove-\(place.lastPathComponent)-\(getpid())")
        guard rename(place.path, aside.path) == 0 else {
            throw InstallRefusal(message: "\(place.path) cannot be removed: \(Self.errnoText).")
        }
        try? FileManager.default.removeItem(at: aside)
        let data = session.paths.data.appendingPathComponent("plugins").appendingPathComponent(record.id)
        if keepData {
            return "\(title) is removed; what it saved is kept in \(data.path)."
        }
        try? FileManager.default.removeItem(at: data)
        try? FileManager.default.removeItem(
            at: session.paths.cache.appendingPathComponent("plugins").appendingPathComponent(record.id))
        return "\(title) is removed, with what it saved."
    }

    // MARK: Words

    private static var errnoText: String { String(cString: strerror(errno)) }

    /// A refusal's phrase as a sentence: a capital first, no final full stop (one is added where it is used).
    package static func sentence(_ text: String) -> String {
        var line = text.prefix(1).uppercased() + text.dropFirst()
        if !line.hasSuffix(".") { line += "." }
        return line
    }

    /// A child's line without its own full stop.
    private static func plain(_ line: String) -> String {
        var text = line.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

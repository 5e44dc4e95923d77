import AssistCore
import Foundation
import Interaction
import PluginHost
import PluginPackage

/// `assist plugins pack`: one `<id>-<version>.assist-plugin` file from a plugin folder (docs/plugin-packages.md).
package enum PluginPacking {
    package static func pack(
        options: HostOptions, folder: String, library: String?, output: String?, sign: String? = nil
    ) throws {
        let signer: SigningKey?
        do throws(KeyFileProblem) {
            signer = try sign.map { path throws(KeyFileProblem) in try SigningKey.load(URL(fileURLWithPath: path)) }
        } catch {
            throw CLIFailure(message: error.message, exitCode: 66)
        }
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
        // Where the package goes is said as such (it read "The plugin cannot be unpacked: … .partial").
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: outputFolder.path, isDirectory: &isFolder), isFolder.boolValue
        else {
            throw CLIFailure(
                message: "The package cannot be written: \(outputFolder.path) is not a folder. Give --output a folder "
                    + "that exists.", exitCode: 64)
        }
        guard FileManager.default.isWritableFile(atPath: outputFolder.path) else {
            throw CLIFailure(
                message: "The package cannot be written: the folder \(outputFolder.path) cannot be written to. Give "
                    + "--output a folder of yours.")
        }
        let package = outputFolder.appendingPathComponent(
            "\(manifest.id)-\(manifest.version).\(PluginArchive.fileExtension)")
        do {
            try PluginArchive.pack(files: files, executable: manifest.library, to: package, signer: signer)
            // Read back as an install would read it.
            let contents = try PluginArchive.inspect(package)
            let size = (try? FileManager.default.attributesOfItem(atPath: package.path)[.size] as? Int) ?? 0
            let signed = signer.map { " Signed with key \(PublicKey.id($0.publicKey))." } ?? ""
            print(
                "Packed \(manifest.name) \(manifest.version) into \(package.path): \(contents.files.count) files, \(max(1, size / 1024)) KB.\(signed)"
            )
        } catch {
            throw CLIFailure(message: error.description)
        }
    }

    /// Writes a new signing key to `url` (its 32-byte seed, 0600, never over an existing file) and its public
    /// key to `url.pub`, naming `publisher`.
    package static func keygen(at url: URL, publisher: String) throws {
        let name = publisher.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains("\n") else {
            throw CLIFailure(
                message: "Give the publisher's name with --publisher, as installs will say it.", exitCode: 64)
        }
        guard let key = SigningKey.generate() else {
            throw CLIFailure(message: "OpenSSL could not make a key; try again.")
        }
        let pub = URL(fileURLWithPath: url.path + ".pub")
        for file in [url, pub] where FileManager.default.fileExists(atPath: file.path) {
            throw CLIFailure(
                message: "\(file.path) exists already; keys are never overwritten. Choose another name.", exitCode: 73)
        }
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CLIFailure(
                message: "\(url.path) cannot be written: \(String(cString: strerror(errno))).", exitCode: 73)
        }
        let wrote = key.seed.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard wrote == key.seed.count, synced else {
            unlink(url.path)
            throw CLIFailure(message: "\(url.path) could not be saved.", exitCode: 73)
        }
        do {
            try PublicKey.line(key.publicKey, publisher: name).write(to: pub, atomically: true, encoding: .utf8)
        } catch {
            throw CLIFailure(message: "\(pub.path) cannot be written: \(error.localizedDescription).", exitCode: 73)
        }
        print(
            "Made the key \(PublicKey.id(key.publicKey)) for \(name): \(url.path) signs (keep it secret), \(pub.path) goes in trusted-keys.d to trust what it signs."
        )
    }

    /// The regular files under `<folder>/share`, by their path in the package. A link is refused: a package
    /// holds only files and folders.
    package static func shareFiles(in folder: URL) throws -> [(String, URL)] {
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

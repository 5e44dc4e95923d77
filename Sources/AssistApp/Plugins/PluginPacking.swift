import AssistCore
import Foundation
import Interaction
import PluginHost
import PluginPackage

/// `assist plugins pack`: one `<id>-<version>.assist-plugin` file from a plugin folder (docs/plugin-packages.md).
package enum PluginPacking {
    package static func pack(options: HostOptions, folder: String, library: String?, output: String?) throws {
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

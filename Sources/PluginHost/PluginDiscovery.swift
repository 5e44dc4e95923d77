import AssistCore
import Foundation

/// Finds plugins and checks everything that can be checked without running their code (LV2, GStreamer):
/// manifest fields, library presence, ELF class and architecture, ABI and host versions, required
/// services and duplicate ids.
package enum PluginDiscovery {
    /// Discovers every plugin on `searchPath`. The first plugin with an id wins; later ones are disabled.
    package static func discover(searchPath: PluginSearchPath, availableServices: Set<String>) -> [PluginRecord] {
        var records: [PluginRecord] = []
        var firstByID: [String: PluginRecord] = [:]
        for candidate in searchPath.candidates() {
            let record = inspect(
                manifestURL: candidate.manifest, libraryDirectory: candidate.libraryDirectory,
                availableServices: availableServices)
            if let first = firstByID[record.id] {
                if record.isUsable { record.refuse(.duplicate(record.id, firstPath: first.libraryURL.path)) }
            } else {
                firstByID[record.id] = record
            }
            records.append(record)
        }
        refuseBorrowedNamespaces(records)
        return records
    }

    /// A plugin whose `settings_namespaces` names another plugin's namespace (its id's last part, or one that
    /// an earlier plugin claims) is refused: it would read that feature's settings and secrets and change them.
    static func refuseBorrowedNamespaces(_ records: [PluginRecord]) {
        let usable = records.filter(\.isUsable)
        var owner: [String: PluginRecord] = [:]
        for record in usable { if let short = record.manifest?.shortName { owner[short] = owner[short] ?? record } }
        for record in usable {
            guard let manifest = record.manifest else { continue }
            for namespace in manifest.writableNamespaces {
                if let other = owner[namespace], other !== record, other.id != record.id {
                    record.refuse(
                        .manifestInvalid(
                            record.manifestURL.path,
                            "settings_namespaces names \"\(namespace)\", the settings of \(other.id); "
                                + "a plugin keeps to its own namespace"))
                    break
                }
                owner[namespace] = owner[namespace] ?? record
            }
        }
    }

    /// Checks one plugin without opening its library.
    package static func inspect(manifestURL: URL, libraryDirectory: URL, availableServices: Set<String>) -> PluginRecord
    {
        let manifest: PluginManifest
        do {
            manifest = try PluginManifest.load(from: manifestURL)
        } catch {
            let folderID = manifestURL.deletingLastPathComponent().lastPathComponent
            let record = PluginRecord(
                manifest: nil, manifestURL: manifestURL, libraryURL: libraryDirectory, id: folderID)
            record.refuse(error)
            return record
        }
        let library = libraryDirectory.appendingPathComponent(manifest.library)
        let record = PluginRecord(manifest: manifest, manifestURL: manifestURL, libraryURL: library, id: manifest.id)
        if let refusal = check(manifest: manifest, library: library, availableServices: availableServices) {
            record.refuse(refusal)
        }
        return record
    }

    /// The compatibility rules of the ABI spec, section 3, then the library file checks.
    static func check(manifest: PluginManifest, library: URL, availableServices: Set<String>) -> PluginRefusal? {
        if let refusal = checkVersions(manifest: manifest) { return refusal }
        for service in manifest.requiredServices where !availableServices.contains(service) {
            return .serviceMissing(service)
        }
        return checkLibrary(library)
    }

    /// The library file exists, is an ELF shared object, and matches the host's class and architecture.
    package static func checkLibrary(_ library: URL) -> PluginRefusal? {
        guard FileManager.default.fileExists(atPath: library.path) else { return .libraryMissing(library.path) }
        return checkHeader(ELFInspector.header(of: library.path), path: library.path)
    }

    /// An ELF shared object of the host's class and architecture (`header` read from a file or a package).
    package static func checkHeader(_ header: Result<ELFInspector.Header, ELFInspector.ELFProblem>, path: String)
        -> PluginRefusal?
    {
        switch header {
        case .failure(let problem):
            return .notELF(path, problem.text)
        case .success(let header):
            if let host = ELFInspector.host, header.machine != host.machine || header.is64Bit != host.is64Bit {
                let pluginArch = ELFInspector.machineName(header.machine) + (header.is64Bit ? "" : " (32-bit)")
                return .wrongArchitecture(path, plugin: pluginArch, host: ELFInspector.machineName(host.machine))
            }
        }
        return nil
    }

    /// Rules 1–4: ABI major equal, minor not newer, min_host not newer, last_tested_host not older than the floor.
    package static func checkVersions(manifest: PluginManifest) -> PluginRefusal? {
        guard let abi = SemanticVersion(manifest.abi) else { return .manifestInvalid(manifest.id, "bad abi") }
        let host = AssistVersion.abi
        if abi.major != host.major { return .abiMajor(plugin: manifest.abi, host: host) }
        if abi.minor > host.minor { return .abiTooNew(plugin: manifest.abi, host: host) }
        if let text = manifest.minHost, let minHost = SemanticVersion(text), minHost > AssistVersion.current {
            return .hostTooOld(needs: text, host: AssistVersion.current)
        }
        if let text = manifest.lastTestedHost, let tested = SemanticVersion(text), tested < AssistVersion.compatFloor {
            return .untested(lastTested: text, floor: AssistVersion.compatFloor)
        }
        return nil
    }
}

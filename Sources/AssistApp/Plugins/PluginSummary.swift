import AssistCore
import Digest
import Foundation
import PluginHost
import PluginPackage

/// One plugin as `plugins list --json` prints it.
package struct PluginSummary: Encodable {
    package var id: String
    package var name: String
    package var version: String?
    package var state: String
    package var reason: String?
    package var mode: String?
    package var library: String
    package var manifest: String
    /// first-party, system, user or path.
    package var origin: String
    /// The library's SHA-256, when it can be read.
    package var sha256: String?
    /// "process" (a helper process of its own) or "in-process" (docs/plugin-isolation.md).
    package var isolation: String
    /// Who vouches for it: "signed by Example Ltd (trusted)", "unsigned", … (docs/security.md).
    package var signature: String
    /// The trusted publisher's name, when a trusted key signed it ("Assist" for Assist's own).
    package var publisher: String?

    package init(_ record: PluginRecord, paths: AssistPaths, trusted: TrustedKeysOnce) {
        id = record.id
        name = record.name
        version = record.manifest?.version
        state = record.state.rawValue
        reason = record.reason
        mode = record.manifest?.mode ?? (record.manifest == nil ? nil : "foreground")
        library = record.libraryURL.path
        manifest = record.manifestURL.path
        origin = PluginSearchPath.origin(of: record.manifestURL, id: record.id, paths: paths)
        sha256 = SHA256Digest.hex(ofFileAt: record.libraryURL)
        isolation = record.isolated ? "process" : "in-process"
        (signature, publisher) = PluginProvenance.describe(record, paths: paths, trusted: trusted)
    }

    /// The line `plugins list` prints: the hash last, so a screen reader can stop before it.
    package var line: String {
        let versionText = version.map { " \($0)" } ?? ""
        let reasonText = reason.map { ": \($0)" } ?? ""
        let hash = sha256.map { ", SHA-256 \($0)" } ?? ""
        return "\(id)\(versionText), \(name), \(state)\(reasonText); \(origin), \(signature)\(hash)"
    }

    /// `plugins list --json`: the rows, pretty-printed.
    package static func json(_ rows: [PluginSummary]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }
}

extension HostSession {
    /// What `plugins info` prints of `record`: everything the manifest says, where it runs, its sandbox, its
    /// crashes and its files, in plain lines.
    package func describe(_ record: PluginRecord) -> [String] {
        func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ", ") }
        var lines = ["\(record.name) (\(record.id))", "State: \(record.state.rawValue)"]
        if let reason = record.reason { lines.append("Reason: \(reason)") }
        if let manifest = record.manifest {
            lines.append("Version: \(manifest.version), ABI \(manifest.abi), mode \(manifest.mode ?? "foreground")")
            if let description = manifest.description { lines.append("Description: \(description)") }
            lines.append("Required services: \(list(manifest.requiredServices))")
            lines.append("Optional services: \(list(manifest.services?.optional ?? []))")
            lines.append("Devices: \(list(manifest.devices ?? []))")
            lines += PluginAccess(paths: paths).lines(record, manifest)
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
            let on = settings.value("plugins.sandbox")?.flag ?? true
            lines.append(
                on
                    ? "Sandbox: its own folders only, no network or programs of its own; this computer gives \(PluginAccess.kernelSandbox())"
                    : "Sandbox: turned off (plugins.sandbox = false)")
        }
        let crashes = CrashGuard(data: paths.records).crashes(of: record.id).count
        if crashes > 0 { lines.append("Crashes recorded: \(crashes); assist plugins reset \(record.id) forgets them") }
        lines.append("Library: \(record.libraryURL.path)")
        lines.append("Manifest: \(record.manifestURL.path)")
        return lines
    }
}

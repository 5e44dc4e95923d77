import AssistCore
import Digest
import Foundation
import PluginHost

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

    package init(_ record: PluginRecord, paths: AssistPaths) {
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
        (signature, publisher) = PluginProvenance.describe(record, paths: paths)
    }
}

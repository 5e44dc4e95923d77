import AssistCore
import Foundation
import PluginABI
import PluginAPI

/// Opens a plugin library and checks its entry table. Libraries are never closed (ABI spec P11).
package enum PluginLoader {
    /// The one symbol a plugin exports.
    package static let entrySymbol = "assist_plugin_entry"

    /// Opens the library of `record`, validates the entry against the manifest and calls `init` with `host`.
    /// Returns the copied entry, or the refusal.
    package static func open(_ record: PluginRecord, host: UnsafePointer<assist_host>) -> Result<
        assist_entry, PluginRefusal
    > {
        guard let manifest = record.manifest else {
            return .failure(.manifestMissing(record.manifestURL.path))
        }
        // Re-check the file: it may have changed since discovery.
        if let refusal = PluginDiscovery.checkLibrary(record.libraryURL) { return .failure(refusal) }
        _ = dlerror()
        guard let handle = dlopen(record.libraryURL.path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            return .failure(.dlopenFailed(lastDLError()))
        }
        _ = dlerror()
        guard let symbol = dlsym(handle, entrySymbol) else {
            return .failure(.entryMissing(lastDLError()))
        }
        let function = unsafeBitCast(symbol, to: assist_entry_fn.self)
        guard let raw = function() else { return .failure(.entryInvalid("\(entrySymbol)() returned NULL")) }
        let entry: assist_entry
        switch copyEntry(raw) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let copied): entry = copied
        }
        if let refusal = validate(entry, manifest: manifest) { return .failure(refusal) }
        guard let initialise = entry.`init`, initialise(host) else {
            return .failure(.initFailed(manifest.id))
        }
        return .success(entry)
    }

    /// Starts a helper process for `record` (`executable _plugin-helper`), which opens the library there;
    /// validates the entry it read against the manifest and calls `init` through it. A helper that dies on the
    /// way gives a refusal in state `.crashed` (the death handler tells the rest).
    static func openIsolated(
        _ record: PluginRecord, host: UnsafePointer<assist_host>, executable: URL, sandbox: SandboxPolicy,
        timeoutMilliseconds: Int, watch: HelperWatch, onDeath: @escaping @Sendable (String, Bool) -> Void,
        onRefused: @escaping @Sendable (SandboxRefusals) -> Void
    ) -> Result<(assist_entry, PluginHelper), PluginRefusal> {
        guard let manifest = record.manifest else {
            return .failure(.manifestMissing(record.manifestURL.path))
        }
        if let refusal = PluginDiscovery.checkLibrary(record.libraryURL) { return .failure(refusal) }
        let helper: PluginHelper
        switch PluginHelper.spawn(
            executable: executable, library: record.libraryURL, host: host, sandbox: sandbox,
            timeoutMilliseconds: timeoutMilliseconds, onDeath: onDeath, onRefused: onRefused)
        {
        case .failure(let refusal): return .failure(refusal)
        case .success(let started): helper = started
        }
        watch.helper = helper
        let entry: assist_entry
        switch copyEntry(helper.entry) {
        case .failure(let refusal):
            helper.close()
            return .failure(refusal)
        case .success(let copied): entry = copied
        }
        if let refusal = validate(entry, manifest: manifest) {
            helper.close()
            return .failure(refusal)
        }
        guard let initialise = entry.`init`, initialise(host) else {
            guard helper.isAlive else {
                return .failure(PluginRefusal(state: .crashed, message: "its helper process ended in init"))
            }
            helper.close()
            return .failure(.initFailed(manifest.id))
        }
        return .success((entry, helper))
    }

    /// Reads the plugin's table by the ABI's one rule (`VersionedStruct.read`): a larger table from a newer
    /// 1.x header is read as far as this host knows it; only one smaller than ABI 1.0's is refused.
    static func copyEntry(_ raw: UnsafePointer<assist_entry>) -> Result<assist_entry, PluginRefusal> {
        guard let copy = assist_entry.read(raw) else {
            let declared = assist_entry.declaredSize(raw)
            return .failure(
                .entryInvalid("struct_size \(declared) is smaller than ABI 1.0's \(assist_entry.minimumSize)"))
        }
        return .success(copy)
    }

    /// The entry must match the manifest: same ABI, id and version, and the mandatory functions present.
    static func validate(_ entry: assist_entry, manifest: PluginManifest) -> PluginRefusal? {
        let abiText = "\(entry.abi.major).\(entry.abi.minor)"
        guard let manifestABI = SemanticVersion(manifest.abi),
            Int(entry.abi.major) == manifestABI.major, Int(entry.abi.minor) == manifestABI.minor
        else {
            return .entryMismatch(entry: "built for ABI \(abiText)", manifest: "ABI \(manifest.abi)")
        }
        let host = AssistVersion.abi
        if Int(entry.abi.major) != host.major { return .abiMajor(plugin: abiText, host: host) }
        if Int(entry.abi.minor) > host.minor { return .abiTooNew(plugin: abiText, host: host) }
        let id = entry.id.map { String(cString: $0) } ?? ""
        let version = entry.version.map { String(cString: $0) } ?? ""
        guard !id.isEmpty, !version.isEmpty else { return .entryInvalid("id or version is empty") }
        guard id == manifest.id, version == manifest.version else {
            return .entryMismatch(entry: "\(id) \(version)", manifest: "\(manifest.id) \(manifest.version)")
        }
        guard entry.`init` != nil, entry.create != nil, entry.deinit != nil else {
            return .entryInvalid("init, deinit or create is NULL")
        }
        return nil
    }

    /// The text of the last dl* error, read at once because it is thread-local and cleared when read (P17).
    static func lastDLError() -> String {
        guard let text = dlerror() else { return "unknown error" }
        return String(cString: text)
    }
}

import AssistCore
import Foundation
import Logging
import PluginAPI

/// The host side of one plugin: the `assist_host` it was given, its directories, and what it holds
/// (timers, subscriptions) so the host can clean up after it.
package final class PluginContext: @unchecked Sendable {  // because: mutable state is touched only on the main loop
    /// The plugin's id.
    package let id: String
    /// Its manifest.
    package let manifest: PluginManifest
    /// What the plugin may ask of the host, bound to it; the C tables reach nothing else.
    package let services: PluginServices
    var logger: Logger { services.logger }
    /// The table passed to the plugin; lives as long as the process, like the library.
    package let host: UnsafeMutablePointer<assist_host>
    /// The running instance, between create and destroy.
    package var instance: UnsafeMutablePointer<assist_plugin>?
    /// The instance's table as `create` returned it, read by the ABI's one rule; calls go through it.
    package var table = assist_plugin()
    /// What the plugin holds (timers, subscriptions, the microphone, the camera, ...), given back at stop.
    package let holdings = PluginHoldings()
    /// The plugin's open microphone stream.
    var audioStream: AudioStream?
    /// The frames the plugin retained.
    let cameraState = CameraState()
    /// The database handles handed to the plugin.
    let storageState = StorageState()
    /// The utterances this plugin stopped, whose words it is told no more.
    let stoppedSpeech = StoppedSpeech()
    private let strings: [String: UnsafeMutablePointer<CChar>]

    /// Creates the context and its `assist_host` for `manifest`, served by `services`.
    package init(manifest: PluginManifest, services: PluginServices) {
        self.id = manifest.id
        self.manifest = manifest
        self.services = services
        let folders = services.session.folders
        let values = [
            "data": folders.data.path, "cache": folders.cache.path, "share": folders.share.path,
            "language": services.session.language,
        ]
        self.strings = values.mapValues(permanentCString)
        host = UnsafeMutablePointer<assist_host>.allocate(capacity: 1)
        ProcessLifetime.keep(UnsafeMutableRawPointer(host))
        host.initialize(to: assist_host())
        host.pointee.struct_size = UInt32(MemoryLayout<assist_host>.size)
        host.pointee.abi = assist_version(
            major: UInt16(ASSIST_ABI_MAJOR), minor: UInt16(ASSIST_ABI_MINOR), patch: 0, reserved: 0)
        host.pointee.host_version = UnsafePointer(ServiceTables.hostVersionString)
        host.pointee.get_service = ServiceTables.getService
        host.pointee.alloc = ServiceTables.alloc
        let anchor = ContextAnchor()
        anchor.context = self
        host.pointee.host_data = Unmanaged.passRetained(anchor).toOpaque()
    }

    /// The context for `manifest` served in this process by `hub`, with the plugin's folder `pluginDirectory`.
    package convenience init(manifest: PluginManifest, pluginDirectory: URL, servedBy hub: HostServices) {
        self.init(manifest: manifest, services: hub.plugin(manifest, directory: pluginDirectory))
    }

    /// A C string owned by the context: "data", "cache", "share" or "language".
    func cString(_ name: String) -> UnsafePointer<CChar>? {
        strings[name].map { UnsafePointer($0) }
    }

    /// Creates a directory the plugin asked for (mode 0700) and returns its C path.
    func directory(_ name: String) -> UnsafePointer<CChar>? {
        guard let path = strings[name] else { return nil }
        if name != "share" {
            try? AssistPaths.ensurePrivateDirectory(URL(fileURLWithPath: String(cString: path)))
        }
        return UnsafePointer(path)
    }

    /// The context behind a plugin's `h`, or nil for a pointer the host did not hand out or a context that is
    /// gone (a plugin's thread calling after its `destroy`: refused, never served from freed memory).
    static func from(_ host: UnsafePointer<assist_host>?) -> PluginContext? {
        guard let data = host?.pointee.host_data else { return nil }
        return Unmanaged<ContextAnchor>.fromOpaque(data).takeUnretainedValue().context
    }

    /// True on the main loop; otherwise logs a plugin-misbehaving line naming `call`.
    func onMain(_ call: String) -> Bool {
        if services.loop.isOnMain { return true }
        logger.error("plugin-misbehaving: \(call) is [main] but was called from another thread; ignored")
        return false
    }

    /// A [main] call that ends something the plugin holds (a timer, a subscription): `end` runs when `key` was
    /// held; ASSIST_E_NOT_FOUND when it was not, ASSIST_E_INVALID for a host pointer not ours or another thread.
    static func endHolding(
        _ host: UnsafePointer<assist_host>?, call: String, key: String, end: (PluginContext) -> Void
    ) -> assist_status {
        guard let context = from(host), context.onMain(call) else { return ASSIST_E_INVALID }
        guard context.holdings.drop(key) else { return ASSIST_E_NOT_FOUND }
        end(context)
        return ASSIST_OK
    }

    /// Logs a contract violation at plugin-misbehaving level.
    func misbehaving(_ text: String) {
        logger.error("plugin-misbehaving: \(text)")
    }

    /// Gives back everything the plugin still holds, newest first, then what every plugin holds for its whole
    /// run: its dialogs, commands, outbox handler and speech.
    package func releaseHoldings() {
        holdings.releaseAll()
        services.releaseAll()
    }
}

/// What a plugin's `assist_host` points at, kept as long as the process like the table itself: the context
/// while it lives, nil once it is gone. A weak reference, so a call from a plugin's thread racing the context's
/// release gets nil rather than reviving an object being freed.
final class ContextAnchor: @unchecked Sendable {  // because: `context` is written once, before the table is handed out
    weak var context: PluginContext?
}

/// A C copy of `text` that lives as long as the process: handed to plugins, never freed.
func permanentCString(_ text: String) -> UnsafeMutablePointer<CChar> {
    guard let copy = strdup(text) else { preconditionFailure("out of memory copying a short string") }
    ProcessLifetime.keep(UnsafeMutableRawPointer(copy))
    return copy
}

/// Memory handed to plugins that must outlive any object of the host: the `assist_host` table and its
/// strings (a plugin library is never unloaded and may keep them in static state). Kept here so that they stay
/// reachable, as they are meant to, after the context that made them is gone.
enum ProcessLifetime {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var kept: [UnsafeMutableRawPointer] = []

    static func keep(_ pointer: UnsafeMutableRawPointer) {
        lock.withLock { kept.append(pointer) }
    }
}

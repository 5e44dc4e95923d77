import PluginABI
import PluginAPI

#if canImport(Glibc)
    import Glibc
#endif

/// Builds the C entry and plugin tables for one Swift feature type. A plugin library calls
/// `PluginExport.entry(id:version:make:)` once from its `assist_plugin_entry`.
///
/// Each plugin library links its own copy of this module (ABI spec P6), so the one factory below belongs to
/// that plugin alone.
public enum PluginExport {
    nonisolated(unsafe) private static var factory: ((PluginHostHandle) throws(PluginError) -> PluginFeature)?
    nonisolated(unsafe) private static var table: UnsafeMutablePointer<assist_entry>?
    nonisolated(unsafe) private static var initCount = 0
    nonisolated(unsafe) private static var prepare: ((PluginHostHandle) -> Void)?

    /// The entry table for a feature made by `make`; built on the first call and never freed. [main]
    /// (Kept with this signature for Swift plugins built before `prepare` existed.)
    public static func entry(
        id: String, version: String, make: @escaping (PluginHostHandle) throws(PluginError) -> PluginFeature
    ) -> UnsafePointer<assist_entry> {
        entry(id: id, version: version, prepare: nil, make: make)
    }

    /// The entry table for a feature made by `make`; built on the first call and never freed. `prepare` runs
    /// in the library's `init` (when the host loads it, before any feature is made; under 50 ms, no speech or
    /// devices): the place for `setChoices`. [main]
    public static func entry(
        id: String, version: String, prepare: ((PluginHostHandle) -> Void)?,
        make: @escaping (PluginHostHandle) throws(PluginError) -> PluginFeature
    ) -> UnsafePointer<assist_entry> {
        if let table { return UnsafePointer(table) }
        factory = make
        Self.prepare = prepare
        var entry = assist_entry()
        entry.struct_size = UInt32(MemoryLayout<assist_entry>.size)
        entry.abi = assist_version(
            major: UInt16(ASSIST_ABI_MAJOR), minor: UInt16(ASSIST_ABI_MINOR), patch: 0, reserved: 0)
        entry.id = UnsafePointer(strdup(id))
        entry.version = UnsafePointer(strdup(version))
        entry.`init` = { host in
            PluginExport.initCount += 1
            if let host, let prepare = PluginExport.prepare { prepare(PluginHostHandle(host)) }
            return true
        }
        entry.deinit = { PluginExport.initCount = max(0, PluginExport.initCount - 1) }
        entry.create = { host, errorOut in
            guard let host, let make = PluginExport.factory else { return nil }
            let handle = PluginHostHandle(host)
            do {
                let feature = try make(handle)
                return PluginInstance.allocate(feature, host: handle)
            } catch {
                errorOut?.pointee = handle.errorString(
                    (error as? PluginError)?.message ?? "The feature could not be created.")
                return nil
            }
        }
        let pointer = UnsafeMutablePointer<assist_entry>.allocate(capacity: 1)
        pointer.initialize(to: entry)
        table = pointer
        return UnsafePointer(pointer)
    }
}

/// The C `assist_plugin` table around one Swift feature object.
enum PluginInstance {
    /// What `plugin_data` points at: the feature and the host it was created for.
    final class Box {
        let feature: PluginFeature
        let host: PluginHostHandle

        init(feature: PluginFeature, host: PluginHostHandle) {
            self.feature = feature
            self.host = host
        }
    }

    static func box(_ plugin: UnsafeMutablePointer<assist_plugin>?) -> Box? {
        guard let data = plugin?.pointee.plugin_data else { return nil }
        return Unmanaged<Box>.fromOpaque(data).takeUnretainedValue()
    }

    static func allocate(_ feature: PluginFeature, host: PluginHostHandle) -> UnsafeMutablePointer<assist_plugin> {
        var table = assist_plugin()
        table.struct_size = UInt32(MemoryLayout<assist_plugin>.size)
        table.plugin_data = Unmanaged.passRetained(Box(feature: feature, host: host)).toOpaque()
        table.start = { plugin, argc, argv, errorOut in
            guard let box = PluginInstance.box(plugin) else { return ASSIST_E_INVALID }
            var arguments: [String] = []
            for index in 0..<Int(max(argc, 0)) {
                if let argument = argv?[index] { arguments.append(String(cString: argument)) }
            }
            do {
                try box.feature.start(arguments: arguments)
                return ASSIST_OK
            } catch {
                errorOut?.pointee = box.host.errorString(
                    (error as? PluginError)?.message ?? "The feature could not start.")
                return ASSIST_E_INVALID
            }
        }
        table.pause = { plugin in PluginInstance.box(plugin)?.feature.pause() }
        table.resume = { plugin in PluginInstance.box(plugin)?.feature.resume() }
        table.stop = { plugin in PluginInstance.box(plugin)?.feature.stop() }
        table.on_command = { plugin, command, argument in
            guard let command else { return }
            PluginInstance.box(plugin)?.feature.handle(
                command: String(cString: command), argument: argument.map { String(cString: $0) })
        }
        table.on_frame = { plugin, frame in
            // A frame below ABI 1.0's size or in a format the ABI does not name is not read.
            guard let frame, let view = CameraFrame(frame) else { return }
            PluginInstance.box(plugin)?.feature.handle(frame: view)
        }
        table.destroy = { plugin in
            guard let plugin else { return }
            if let data = plugin.pointee.plugin_data { Unmanaged<Box>.fromOpaque(data).release() }
            plugin.deinitialize(count: 1)
            plugin.deallocate()
        }
        let pointer = UnsafeMutablePointer<assist_plugin>.allocate(capacity: 1)
        pointer.initialize(to: table)
        return pointer
    }
}

import AssistCore
import Foundation
import Interaction
import Logging
import PluginAPI
import PluginHost
import Runtime

import struct PluginKit.PluginHostHandle

/// A stranger's plugin calling the host's services (issue 68, docs/security.md "What the services refuse"):
/// each input is a list of calls into the real C service tables of an in-process host, as a third-party
/// plugin's library would make them, with names, SQL, keys, values and paths from the input. What must hold:
/// the host does not crash, hang past a statement's budget, or grow without bound, and after each input
/// nothing was made outside the plugin's own folders.
///
/// An input is calls, one after another: one byte picks the call, and each text argument is one length byte
/// and that many bytes (`ServicesRig.Reader`); an input that ends early ends the list.
enum ServicesTarget {
    static func run(_ data: Data) {
        ServicesRig.shared.run(data)
    }
}

/// Prints nothing: what the plugin says is not what is fuzzed.
struct SilentOutput: LineOutput {
    func writeLine(_ line: String) {}
}

// because: used from the fuzzer's one thread, which runs the host's loop while an input is read
final class ServicesRig: @unchecked Sendable {
    static let shared = ServicesRig()
    /// The rig's folder, removed when the process exits.
    nonisolated(unsafe) static var folderToRemove: UnsafeMutablePointer<CChar>?

    let root: URL
    let loop: MainLoop
    let services: HostServices
    let context: PluginContext
    let kit: PluginHostHandle
    /// The folder whose contents must stay the same: everything the host made at set-up, outside the plugin's.
    let outside: URL
    var handles: [OpaquePointer] = []

    private init() {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("assist-fuzz-services-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        ServicesRig.folderToRemove = strdup(root.path)
        atexit {
            guard let folder = ServicesRig.folderToRemove else { return }
            try? FileManager.default.removeItem(atPath: String(cString: folder))
        }
        outside = root.appendingPathComponent("outside")
        let plugin = root.appendingPathComponent("plugin")
        for folder in [outside, plugin] {
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let manifest: [String: Any] = [
            "id": "org.fuzz.deputy", "name": "Deputy", "version": "1.0.0", "abi": "1.0", "library": "libx.so",
            "entry": "assist_plugin_entry", "network": ["127.0.0.1"],
            "services": [
                "required": [
                    "assist.storage/1", "assist.settings/1", "assist.events/1", "assist.input/1", "assist.outbox/1",
                ]
            ],
        ]
        let manifestURL = plugin.appendingPathComponent("manifest.json")
        try? JSONSerialization.data(withJSONObject: manifest).write(to: manifestURL)
        guard let loaded = try? PluginManifest.load(from: manifestURL) else {
            preconditionFailure("the fuzz plugin's manifest does not load")
        }
        // Short budgets, so that a slow statement ends well inside libFuzzer's 1 s per input.
        let settings = SettingsStore()
        settings.apply(
            [
                "storage.statement-seconds": .double(0.2), "storage.memory-mb": .int(64),
                "storage.quota-mb": .int(16),
            ], admin: true)
        // The phrases of a checkout (the fuzzer runs from its root), else none.
        let share = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(
            "share/assist")
        var paths = AssistPaths.resolve(dataDir: root.appendingPathComponent("data").path, shareDir: share.path)
        paths.developmentRoot = nil
        var logger = Logger(label: "assist-fuzz")
        logger.logLevel = .critical
        var configuration = HostAssembly.Configuration(
            paths: paths, settings: settings, language: "en", output: SilentOutput(), speaker: nil,
            searchPath: PluginSearchPath(entries: []), logger: logger)
        configuration.workerThreads = 1
        guard let assembly = try? HostAssembly(configuration) else {
            preconditionFailure("the fuzz host does not start")
        }
        loop = assembly.loop
        services = assembly.services
        context = PluginContext(manifest: loaded, pluginDirectory: plugin, servedBy: services)
        kit = PluginHostHandle(UnsafePointer(context.host))
        // A file of the user's the plugin's paths might be made to reach.
        try? Data("the user's own".utf8).write(to: outside.appendingPathComponent("id_rsa"))
    }

    func run(_ data: Data) {
        loop.post { [self] in
            var reader = Reader(bytes: [UInt8](data.prefix(4_096)))
            while let call = reader.byte() { perform(call % 12, &reader) }
            context.releaseHoldings()
        }
        _ = loop.run(until: { false }, timeoutSeconds: 0.001)
        let left = (try? FileManager.default.contentsOfDirectory(atPath: outside.path)) ?? []
        precondition(left == ["id_rsa"], "a service made something outside the plugin's folders: \(left)")
        let dataFolder = root.appendingPathComponent("data").path
        if let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) {
            precondition(Set(names).isSubset(of: ["outside", "plugin", "data", "share"]), "made in the root: \(names)")
        }
        // Only the plugin's own folders and the host's files beside them, never another feature's.
        let plugins = (try? FileManager.default.contentsOfDirectory(atPath: dataFolder + "/plugins")) ?? []
        precondition(Set(plugins).isSubset(of: ["org.fuzz.deputy"]), "made beside the plugin's data: \(plugins)")
    }

    /// Reads calls and their arguments from an input.
    struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func byte() -> UInt8? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return bytes[at]
        }

        mutating func text() -> String {
            let count = Int(byte() ?? 0)
            let end = min(bytes.count, at + count)
            defer { at = end }
            return String(decoding: bytes[at..<end], as: UTF8.self)
        }

        /// A name from a short list the input picks (so that calls meet again), or one of its own.
        mutating func name(_ known: [String]) -> String {
            let pick = Int(byte() ?? 0)
            return pick < known.count ? known[pick] : text()
        }
    }

    static let tracing = ProcessInfo.processInfo.environment["ASSIST_FUZZ_TRACE"] != nil

    /// With ASSIST_FUZZ_TRACE set, one line per statement on standard error (for writing seeds).
    static func trace(_ line: @autoclosure () -> String) {
        if tracing { FileHandle.standardError.write(Data((line() + "\n").utf8)) }
    }

    static let databases = ["main", "notes", "../assist.survey/survey", "outbox"]
    static let keys = ["colour", "deputy.colour", "plugins.sandbox", "collect-videos.app-credential", "language"]
    static let events = ["plugin.org.fuzz.deputy.ping", "assist.plugin.crashed", "plugin.org.other.x"]

    private func perform(_ call: UInt8, _ reader: inout Reader) {
        let host = UnsafePointer(context.host)
        let tables = kit.tables
        var error: UnsafeMutablePointer<CChar>?
        defer { free(error) }
        switch call {
        case 0:
            var database: OpaquePointer?
            _ = tables.storage?.pointee.open?(host, reader.name(Self.databases), &database, &error)
            if let database, !handles.contains(database) { handles.append(database) }
        case 1:
            guard !handles.isEmpty, let exec = tables.storage?.pointee.exec else { return }
            let database = handles[Int(reader.byte() ?? 0) % handles.count]
            let sql = reader.text()
            let parameter = reader.text()
            var rows = 0
            parameter.withCString { text in
                var value = assist_value()
                value.struct_size = UInt32(MemoryLayout<assist_value>.size)
                value.type = ASSIST_VALUE_TEXT
                value.data = UnsafeRawPointer(text)
                value.size = strlen(text)
                withUnsafeMutablePointer(to: &rows) { counter in
                    let status = exec(
                        host, database, sql, &value, parameter.isEmpty ? 0 : 1,
                        { user, _, _, _ in
                            guard let counter = user?.assumingMemoryBound(to: Int.self) else { return false }
                            counter.pointee += 1
                            return counter.pointee < 1_000
                        }, counter, nil, &error)
                    Self.trace("exec \(sql.prefix(60)): \(status)")
                }
            }
        case 2:
            guard !handles.isEmpty, let storage = tables.storage?.pointee else { return }
            let database = handles[Int(reader.byte() ?? 0) % handles.count]
            switch (reader.byte() ?? 0) % 3 {
            case 0: _ = storage.begin?(host, database)
            case 1: _ = storage.commit?(host, database)
            default: _ = storage.rollback?(host, database)
            }
        case 3:
            guard !handles.isEmpty else { return }
            let database = handles[Int(reader.byte() ?? 0) % handles.count]
            _ = tables.storage?.pointee.migrate?(host, database, Int32(reader.byte() ?? 0), reader.text(), &error)
        case 4:
            var buffer = [CChar](repeating: 0, count: 64)
            var needed = 0
            _ = tables.settings?.pointee.get_string?(host, reader.name(Self.keys), &buffer, buffer.count, &needed)
        case 5:
            _ = tables.settings?.pointee.set_string?(host, reader.name(Self.keys), reader.text())
        case 6:
            _ = tables.events?.pointee.publish?(host, reader.name(Self.events), reader.text())
        case 7:
            let id = reader.text()
            _ = tables.input?.pointee.register_command?(
                host, id, "x", nil, reader.text(), assist_scope(Int32(reader.byte() ?? 0) % 3))
        case 8:
            _ = tables.input?.pointee.unregister_command?(host, reader.text())
        case 9:
            var path = [CChar](repeating: 0, count: 4_096)
            let name = reader.text()
            if (reader.byte() ?? 0) & 1 == 0 {
                _ = tables.storage?.pointee.media_create?(host, name, &path, path.count, &error)
            } else {
                _ = tables.storage?.pointee.media_delete?(host, name, false)
            }
        case 10:
            enqueue(reader.text(), file: reader.name([outside.appendingPathComponent("id_rsa").path]), &error)
        default:
            _ = tables.storage?.pointee.media_reserve?(host, Int64(reader.byte() ?? 0) << 20, &error)
        }
    }

    /// An upload of `file` (a path the input names, or the user's key) to the plugin's server.
    private func enqueue(_ path: String, file: String, _ error: inout UnsafeMutablePointer<CChar>?) {
        guard let enqueue = kit.tables.outbox?.pointee.enqueue else { return }
        let host = UnsafePointer(context.host)
        let chosen = path.isEmpty ? file : path
        "file".withCString { name in
            chosen.withCString { filePath in
                "POST".withCString { method in
                    "http://127.0.0.1:9/upload".withCString { url in
                        var part = assist_outbox_part()
                        part.struct_size = UInt32(MemoryLayout<assist_outbox_part>.size)
                        part.name = name
                        part.path = filePath
                        withUnsafePointer(to: &part) { parts in
                            var request = assist_outbox_request()
                            request.struct_size = UInt32(MemoryLayout<assist_outbox_request>.size)
                            request.method = method
                            request.url = url
                            request.body = ASSIST_OUTBOX_BODY_MULTIPART
                            request.parts = parts
                            request.part_count = 1
                            var job: Int64 = 0
                            _ = enqueue(host, &request, &job, &error)
                        }
                    }
                }
            }
        }
    }
}

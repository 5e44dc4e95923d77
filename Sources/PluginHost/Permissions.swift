import AssistCore
import Foundation
import Logging

/// What a plugin may be given beyond its own folders (issue 34, docs/security.md): each is declared in its
/// manifest (`devices`, `network`), granted when the user installs it, and changeable with
/// `assist plugins permissions ID`. The services enforce them, in process and in helpers alike.
package enum PluginPermission: String, CaseIterable, Sendable, Hashable {
    case camera, microphone, network

    /// "the camera", as sentences name it.
    package var spoken: String { "the \(rawValue)" }
}

extension PluginManifest {
    /// The devices Assist knows (`devices` may list nothing else).
    package static let knownDevices: Set<String> = ["camera", "microphone"]

    /// What the manifest asks for: its devices, and the network when it lists servers (`network`) or, in a
    /// manifest written before `network` existed, the outbox service (any server).
    package var declaredPermissions: Set<PluginPermission> {
        var asked = Set((devices ?? []).compactMap(PluginPermission.init(rawValue:)).filter { $0 != .network })
        if !(networkHosts?.isEmpty ?? true) { asked.insert(.network) }
        return asked
    }

    /// The servers it may send to ("*" for any), or nil when it asks for no network.
    package var networkHosts: [String]? {
        if let network { return network }
        let services = requiredServices + (self.services?.optional ?? [])
        return services.contains { $0.hasPrefix("assist.outbox/") } ? ["*"] : nil
    }

    /// True when `host` is one of the servers it declared: "*" is any, "*.example.org" any name under it.
    package func mayReach(_ host: String) -> Bool {
        let host = host.lowercased()
        return (networkHosts ?? []).contains { pattern in
            let pattern = pattern.lowercased()
            if pattern == "*" { return true }
            if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) }
            return host == pattern
        }
    }

    /// Checks `devices` and `network`: known devices, and server names without schemes or paths.
    func validatePermissions(path: String) throws(PluginRefusal) {
        for device in devices ?? [] where !Self.knownDevices.contains(device) {
            throw .manifestInvalid(
                path, "devices lists \"\(device)\", which Assist does not know: only camera and microphone")
        }
        let allowed = CharacterSet.lowercaseLetters.union(.uppercaseLetters).union(.decimalDigits)
            .union(CharacterSet(charactersIn: ".-*:"))
        for host in network ?? [] {
            let plain = !host.isEmpty && host.unicodeScalars.allSatisfy { allowed.contains($0) && $0.isASCII }
            let star =
                !host.contains("*") || host == "*"
                || (host.hasPrefix("*.") && host.dropFirst(2).allSatisfy { $0 != "*" })
            guard plain, star else {
                throw .manifestInvalid(
                    path, "network lists \"\(host)\": give server names, like data.example.org, *.example.org or *")
            }
        }
    }
}

/// What the user chose for one plugin: each permission turned on or off (nil: as installed, which is what
/// its manifest declares), and whether it is turned off altogether.
package struct PluginChoices: Codable, Sendable, Equatable {
    package var camera: Bool?
    package var microphone: Bool?
    package var network: Bool?
    package var disabled: Bool?

    package init() {}

    package subscript(_ permission: PluginPermission) -> Bool? {
        get {
            switch permission {
            case .camera: camera
            case .microphone: microphone
            case .network: network
            }
        }
        set {
            switch permission {
            case .camera: camera = newValue
            case .microphone: microphone = newValue
            case .network: network = newValue
            }
        }
    }
}

/// The user's choices for every plugin: `<data>/plugin-permissions.json` (0600), written whole and renamed
/// into place, so a crash leaves the old choices or the new, never half.
package struct PermissionStore: Sendable {
    package let file: URL

    package init(data: URL) {
        file = data.appendingPathComponent("plugin-permissions.json")
    }

    /// Every plugin's choices; none when the file is missing or unreadable (everything as installed).
    package func load() -> [String: PluginChoices] {
        guard let bytes = try? Data(contentsOf: file) else { return [:] }
        return (try? JSONDecoder().decode([String: PluginChoices].self, from: bytes)) ?? [:]
    }

    package func choices(_ id: String) -> PluginChoices { load()[id] ?? PluginChoices() }

    /// What `manifest`'s plugin is given now: what it declares, less what the user turned off, less (for a
    /// plugin that is not Assist's own) what the admin does not let users grant.
    package func granted(
        _ manifest: PluginManifest, firstParty: Bool, policy: AdminPluginPolicy
    ) -> Set<PluginPermission> {
        let chosen = choices(manifest.id)
        return manifest.declaredPermissions.filter { (chosen[$0] ?? true) && (firstParty || policy.mayGrant($0)) }
    }

    /// Changes `id`'s choices and writes the file.
    package func update(_ id: String, _ change: (inout PluginChoices) -> Void) throws {
        var all = load()
        var chosen = all[id] ?? PluginChoices()
        change(&chosen)
        all[id] = chosen == PluginChoices() ? nil : chosen
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AssistPaths.ensurePrivateDirectory(file.deletingLastPathComponent())
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".plugin-permissions.json.new")
        let bytes = try encoder.encode(all)
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: bytes, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]) }
        guard rename(temporary.path, file.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }
}

/// A call the plugin was not allowed to make, as the services throw it.
package struct PermissionDenied: Error, Sendable {
    /// One spoken sentence for the plugin's error string: "This feature was not given the camera."
    package let message: String
}

/// Something a plugin was refused, as the user is told it: a permission it was not given, a server it did not
/// declare, or a kind of call its helper's sandbox refused.
package enum Refusal: Sendable, Hashable {
    case permission(PluginPermission)
    case server(String)
    case sandbox(SandboxRefusals)
    /// A service asked to act beyond the plugin's grant on its behalf (a confused deputy).
    case service(ServiceRefusal)
}

/// What the host's services refuse to do for a plugin that it could not do itself (docs/security.md, "What the
/// services refuse"). The raw value names the phrase (`plugin.refused-<raw>`) and `plugins check`'s kind.
package enum ServiceRefusal: String, Sendable, Hashable, CaseIterable {
    /// Another feature's database or files: ATTACH, VACUUM INTO, a database or upload through a link.
    case data
    /// SQL only the host may run: a pragma that changes files or memory, an extension.
    case statement
    /// A statement past its time budget.
    case long
    /// A statement past its memory budget.
    case memory
    /// Reading another feature's settings or secrets.
    case setting
    /// Changing a setting outside its own namespace.
    case change
    /// Publishing an event outside its own names (`assist.*` is the host's).
    case event
    /// More commands than a feature may register.
    case commands
    /// An upload of a file that is not its own, or that changed into a link.
    case upload

    /// The log's words for it.
    package var logLine: String {
        switch self {
        case .data: "another feature's data or a file outside its own (storage)"
        case .statement: "a statement only the host may run (storage)"
        case .long: "a statement past its time budget (storage)"
        case .memory: "a statement past its memory budget (storage)"
        case .setting: "another feature's settings"
        case .change: "changing a setting outside its namespace"
        case .event: "publishing an event that is not its own"
        case .commands: "more commands than a feature may register"
        case .upload: "uploading a file that is not its own"
        }
    }
}

/// What each plugin used and was refused since the host started, over all its loads: what
/// `assist plugins check` reports against its manifest. Any thread.
package final class PermissionUse: @unchecked Sendable {  // because: the tables are guarded by `lock`
    private let lock = NSLock()
    private var used: [String: Set<PluginPermission>] = [:]
    private var servers: [String: Set<String>] = [:]
    private var refused: [String: Set<Refusal>] = [:]

    package init() {}

    func noteUsed(_ id: String, _ permission: PluginPermission, server: String? = nil) {
        lock.withLock {
            used[id, default: []].insert(permission)
            if let server { servers[id, default: []].insert(server) }
        }
    }

    func noteRefused(_ id: String, _ refusal: Refusal) {
        _ = lock.withLock { refused[id, default: []].insert(refusal) }
    }

    /// The permissions `id` used, the servers it sent to, and what it was refused.
    package func report(_ id: String) -> (used: Set<PluginPermission>, servers: Set<String>, refused: Set<Refusal>) {
        lock.withLock { (used[id] ?? [], servers[id] ?? [], refused[id] ?? []) }
    }
}

/// One plugin's permissions while it runs: what the services ask before they act, and the one place that
/// tells the user, once for each thing refused, what was refused. Any thread.
package final class PermissionGate: @unchecked Sendable {  // because: `told` is guarded by `lock`
    package let manifest: PluginManifest
    /// What it was given; the first-use question (`FeatureController.asksFirstUse`) may change one.
    package var granted: Set<PluginPermission> { lock.withLock { given } }
    private var given: Set<PluginPermission>
    private let logger: Logger
    private let tell: @Sendable (Refusal) -> Void
    private let use: PermissionUse?
    private let lock = NSLock()
    private var told: Set<Refusal> = []
    private var logged: [Refusal: Int] = [:]

    /// `tell` says a refusal to the user; it is called once for each, on the thread that was refused. `use`
    /// keeps what was used and refused.
    package init(
        manifest: PluginManifest, granted: Set<PluginPermission>, logger: Logger, use: PermissionUse? = nil,
        tell: @escaping @Sendable (Refusal) -> Void = { _ in }
    ) {
        self.manifest = manifest
        self.given = granted
        self.logger = logger
        self.use = use
        self.tell = tell
    }

    /// Everything declared is granted: the in-process tests' plugins and the host's own uses.
    package static func all(_ manifest: PluginManifest, logger: Logger) -> PermissionGate {
        PermissionGate(manifest: manifest, granted: Set(PluginPermission.allCases), logger: logger)
    }

    /// Gives or takes `permission`, within what the manifest declares.
    package func setGranted(_ permission: PluginPermission, _ on: Bool) {
        guard manifest.declaredPermissions.contains(permission) else { return }
        lock.withLock {
            if on { given.insert(permission) } else { given.remove(permission) }
        }
    }

    /// Throws unless `permission` was given.
    package func require(_ permission: PluginPermission) throws {
        try allowed(permission)
        if permission != .network { use?.noteUsed(manifest.id, permission) }
    }

    private func allowed(_ permission: PluginPermission) throws {
        guard !granted.contains(permission) else { return }
        refused(.permission(permission))
        throw PermissionDenied(message: "This feature was not given \(permission.spoken).")
    }

    /// Throws unless the network was given and `url`'s server is one the manifest declared.
    package func requireServer(of url: String) throws {
        try allowed(.network)
        let host = URLComponents(string: url)?.host ?? ""
        guard manifest.mayReach(host) else {
            refused(.server(host))
            throw PermissionDenied(message: "This feature may not send to \(host.isEmpty ? url : host).")
        }
        use?.noteUsed(manifest.id, .network, server: host)
    }

    /// Logs `refusal` and tells the user, the first time only. A service's refusal is logged each time (with
    /// `detail`), up to 100 of each kind, then once that more are not logged.
    package func refused(_ refusal: Refusal, detail: String? = nil) {
        use?.noteRefused(manifest.id, refusal)
        let (first, count) = lock.withLock {
            let first = told.insert(refusal).inserted
            logged[refusal, default: 0] += 1
            return (first, logged[refusal] ?? 0)
        }
        if case .service = refusal {
            if count <= 100 {
                logger.warning("refused: \(Self.logLine(refusal))\(detail.map { ": \($0)" } ?? "")")
            } else if count == 101 {
                logger.warning("refused: \(Self.logLine(refusal)); further refusals of this kind are not logged")
            }
        } else if first {
            logger.warning("refused: \(Self.logLine(refusal))")
        }
        if first { tell(refusal) }
    }

    package static func logLine(_ refusal: Refusal) -> String {
        switch refusal {
        case .permission(let permission): "\(permission.rawValue) was not granted"
        case .server(let host): "sending to \(host), not among the servers its manifest declares"
        case .sandbox(let kinds):
            kinds.kinds.map { kind in
                switch kind {
                case .network: "a socket of its own (the sandbox)"
                case .program: "starting a program or process (the sandbox)"
                case .process: "reaching another process (the sandbox)"
                default: "a system call (the sandbox)"
                }
            }.joined(separator: ", ")
        case .service(let kind): kind.logLine
        }
    }
}

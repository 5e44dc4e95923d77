import CPluginBridge
import Foundation
import Runtime

/// What a plugin's helper process is shut in (issue 34, docs/security.md): it reads the system's libraries,
/// the plugin's own folder and the share folder, writes its data and cache folders only, and cannot open a
/// socket, start a program, or reach another process. The helper sets it up itself, on its one thread, before
/// the plugin's library is opened (`assist _plugin-helper 3 --sandbox …`).
package struct SandboxPolicy: Sendable, Equatable {
    /// False runs the plugin unconfined (`plugins.sandbox = false`), with a warning.
    package var enabled = true
    /// True refuses the plugin when the kernel cannot give the whole sandbox (`plugins.require-sandbox`).
    package var required = false
    /// Folders (or files) it may read: its own folder, the share folder.
    package var reads: [URL] = []
    /// Folders it may read and write: its data and cache.
    package var writes: [URL] = []
    /// The address space it may map beyond what the helper had mapped before the plugin, in MB
    /// (`plugins.helper-memory-mb`); 0 for no limit.
    package var memoryMB = 4096
    /// How many files it may have open at once (`plugins.helper-open-files`).
    package var openFiles = 256

    package init(
        enabled: Bool = true, required: Bool = false, reads: [URL] = [], writes: [URL] = [], memoryMB: Int = 4096,
        openFiles: Int = 256
    ) {
        self.enabled = enabled
        self.required = required
        self.reads = reads
        self.writes = writes
        self.memoryMB = memoryMB
        self.openFiles = openFiles
    }

    /// The words after the descriptor on the helper's command line.
    var arguments: [String] {
        guard enabled else { return required ? ["--require"] : [] }
        var words = ["--sandbox"]
        if required { words.append("--require") }
        for url in reads { words += ["--read", url.path] }
        for url in writes { words += ["--write", url.path] }
        words += ["--memory-mb", String(max(memoryMB, 0)), "--files", String(max(openFiles, 16))]
        return words
    }

    /// The helper's environment: what the C library, the Swift runtime and a sanitizer read, and Assist's own
    /// paths, from `host`; nothing else of the user's or Assist's (a token in the environment stays with the
    /// host). Its temporary files go to its cache folder.
    func environment(_ host: [String: String]) -> [String] {
        let names: Set<String> = [
            "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "LD_LIBRARY_PATH", "ASAN_OPTIONS",
            "TSAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "ASSIST_SHARE_DIR", "ASSIST_MODELS_DIR",
            "ASSIST_DETECTOR_LIBRARY", "ASSIST_MEDIA_LIBRARY", "ASSIST_TEST_TIME_SCALE",
        ]
        var kept = host.filter { name, _ in
            names.contains(name) || name.hasPrefix("LC_") || name.hasPrefix("SWIFT_")
        }
        if let cache = writes.last { kept["TMPDIR"] = cache.path }
        return kept.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }
}

/// The layers of a helper's sandbox as it set them up.
package struct SandboxLayers: OptionSet, Sendable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let noNewPrivileges = SandboxLayers(rawValue: ASSIST_SANDBOX_NO_NEW_PRIVS)
    package static let landlock = SandboxLayers(rawValue: ASSIST_SANDBOX_LANDLOCK)
    package static let seccomp = SandboxLayers(rawValue: ASSIST_SANDBOX_SECCOMP)
    package static let limits = SandboxLayers(rawValue: ASSIST_SANDBOX_RLIMITS)
    package static let noCapabilities = SandboxLayers(rawValue: ASSIST_SANDBOX_NO_CAPABILITIES)
    package static let full = SandboxLayers(rawValue: ASSIST_SANDBOX_FULL)

    /// The kernel's Landlock ABI the ruleset was made for; 0 without Landlock.
    package var landlockABI: Int { Int((rawValue >> 8) & 0xff) }

    /// True when every layer is in place.
    package var isFull: Bool { isSuperset(of: .full) }

    /// "Landlock (ABI 7), seccomp, limits, no new privileges, no capabilities" or "none".
    package var description: String {
        var parts: [String] = []
        if contains(.landlock) { parts.append("Landlock (ABI \(landlockABI))") }
        if contains(.seccomp) { parts.append("seccomp") }
        if contains(.limits) { parts.append("limits") }
        if contains(.noNewPrivileges) { parts.append("no new privileges") }
        if contains(.noCapabilities) { parts.append("no capabilities") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

extension SandboxLayers {
    /// The sandbox this kernel can give a helper, and what it lacks ("" when nothing).
    package static func kernel() -> (layers: SandboxLayers, missing: String) {
        var note = [CChar](repeating: 0, count: 300)
        let layers = SandboxLayers(rawValue: assist_sandbox_probe(&note, note.count))
        return (layers, String(nulTerminated: note))
    }
}

/// The kinds of calls a helper's sandbox refused.
package struct SandboxRefusals: OptionSet, Sendable, Hashable {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let network = SandboxRefusals(rawValue: ASSIST_SANDBOX_DENIED_NETWORK)
    package static let program = SandboxRefusals(rawValue: ASSIST_SANDBOX_DENIED_PROGRAM)
    package static let process = SandboxRefusals(rawValue: ASSIST_SANDBOX_DENIED_PROCESS)
    package static let system = SandboxRefusals(rawValue: ASSIST_SANDBOX_DENIED_SYSTEM)

    /// Each kind alone, in a fixed order.
    package var kinds: [SandboxRefusals] { [.network, .program, .process, .system].filter { contains($0) } }
}

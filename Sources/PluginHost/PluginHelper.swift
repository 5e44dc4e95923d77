import CPluginBridge
import Foundation
import PluginAPI
import Runtime

/// A plugin running in a helper process of its own (issue 17, docs/plugin-isolation.md): the same `assist`
/// executable started as `assist _plugin-helper 3`, which opens the library and gives it the very same C ABI.
/// The host keeps a stand-in for the plugin's entry and instance whose calls travel to the helper; the
/// helper's service calls are served here by the plugin's own `assist_host`, on the matching thread.
package final class PluginHelper: @unchecked Sendable {  // because: the bridge is thread-safe; `onDeath` is set once
    let bridge: OpaquePointer
    private let death: DeathBox

    private init(bridge: OpaquePointer, death: DeathBox) {
        self.bridge = bridge
        self.death = death
    }

    /// The helper's process id.
    package var pid: Int32 { assist_bridge_pid(bridge) }

    /// How many messages the host has read from the helper: calls, replies and notes.
    package var messagesReceived: UInt64 { assist_bridge_messages(bridge) }

    /// False once the helper is gone.
    package var isAlive: Bool { assist_bridge_alive(bridge) }

    /// The plugin's entry table as the helper read it; init and create travel to the helper.
    var entry: UnsafePointer<assist_entry> { assist_bridge_entry(bridge) }

    /// Starts the helper for `library`, served by `host`, inside `sandbox`. `onDeath` hears, once and on another
    /// thread, how it ended ("crashed in start (SIGSEGV)") and whether that was expected (after `close`);
    /// `onRefused`, on another thread, the kinds of calls its sandbox refused that were not told before. The
    /// error is one line.
    static func spawn(
        executable: URL, library: URL, host: UnsafePointer<assist_host>, sandbox: SandboxPolicy,
        timeoutMilliseconds: Int, onDeath: @escaping @Sendable (String, Bool) -> Void,
        onRefused: @escaping @Sendable (SandboxRefusals) -> Void = { _ in }
    ) -> Result<PluginHelper, PluginRefusal> {
        let death = DeathBox(onDeath, onRefused)
        // Kept for the life of the process: the bridge may report after everything else let go.
        let user = Unmanaged.passRetained(death).toOpaque()
        var error: UnsafeMutablePointer<CChar>?
        let arguments = CStringList(sandbox.arguments)
        let environment = CStringList(sandbox.environment(ProcessInfo.processInfo.environment))
        defer {
            arguments.release()
            environment.release()
        }
        let bridge = assist_bridge_spawn(
            executable.path, library.path, host, arguments.pointer, environment.pointer,
            Int32(clamping: timeoutMilliseconds),
            { user, description, expected in
                guard let user else { return }
                let box = Unmanaged<DeathBox>.fromOpaque(user).takeUnretainedValue()
                box.report(description.map { String(cString: $0) } ?? "ended", expected)
            },
            { user, _, fresh in
                guard let user else { return }
                Unmanaged<DeathBox>.fromOpaque(user).takeUnretainedValue().refused(SandboxRefusals(rawValue: fresh))
            }, user, &error)
        guard let bridge else {
            let text = error.map { String(cString: $0) } ?? "the helper process could not start"
            free(error)
            return .failure(.dlopenFailed(text))
        }
        return .success(PluginHelper(bridge: bridge, death: death))
    }

    /// Ends the helper after the plugin was destroyed: it may leave on its own within `seconds`, then it is
    /// killed. Expected: the death handler is told so.
    func close(waitSeconds seconds: Double = 1) {
        assist_bridge_close(bridge, Int32(seconds * 1000))
    }

    /// How the helper ended ("crashed in start (SIGSEGV)"), waiting up to `seconds` for it to be known; nil while
    /// it runs.
    func waitForEnd(seconds: Double = 2) -> String? {
        var text = [CChar](repeating: 0, count: 320)
        guard assist_bridge_wait_end(bridge, Int32(seconds * 1000), &text, text.count) else { return nil }
        return String(nulTerminated: text)
    }

    /// The helper's sandbox as it set it up: its layers, and what is missing ("" when nothing is).
    package var sandbox: (layers: SandboxLayers, missing: String) {
        var text = [CChar](repeating: 0, count: 400)
        let layers = assist_bridge_sandbox(bridge, &text, text.count)
        return (
            SandboxLayers(rawValue: layers),
            String(nulTerminated: text)
        )
    }

    /// Asks the helper now what its sandbox refused (the answer goes to `onRefused`); false when it did not
    /// answer.
    @discardableResult
    func checkRefused() -> Bool { assist_bridge_check_refused(bridge) }

    /// Ends the helper now, with `reason` as how it ended.
    package func kill(_ reason: String) {
        assist_bridge_kill(bridge, reason)
    }
}

/// The death and refusal handlers, reachable from C.
private final class DeathBox: @unchecked Sendable {  // because: the handlers are immutable
    let handler: @Sendable (String, Bool) -> Void
    let refusals: @Sendable (SandboxRefusals) -> Void
    init(
        _ handler: @escaping @Sendable (String, Bool) -> Void, _ refusals: @escaping @Sendable (SandboxRefusals) -> Void
    ) {
        self.handler = handler
        self.refusals = refusals
    }
    func report(_ description: String, _ expected: Bool) { handler(description, expected) }
    func refused(_ kinds: SandboxRefusals) { refusals(kinds) }
}

/// A NULL-terminated array of C strings, freed by `release()`.
struct CStringList {
    let pointer: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let count: Int

    init(_ strings: [String]) {
        count = strings.count
        pointer = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointer[index] = UnsafePointer(strdup(string)) }
        pointer[strings.count] = nil
    }

    func release() {
        for index in 0..<count { free(UnsafeMutableRawPointer(mutating: pointer[index])) }
        pointer.deallocate()
    }
}

/// One helper process as the feature controller follows it: set when it starts, and marked once its end has
/// been told (the death handler's report, posted to the main loop, may come after the controller saw the end
/// itself). Main loop only.
final class HelperWatch: @unchecked Sendable {  // because: used on the main loop only
    var helper: PluginHelper?
    var handled = false
}

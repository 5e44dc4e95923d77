/// What a plugin holds that the host must give back when it stops: each holding knows how to release itself,
/// and `releaseAll` gives them back newest first, in one loop. A service adds a holding when the plugin
/// acquires something (a timer, a subscription, the microphone, the camera) and drops it when the plugin gives
/// it back itself. Main loop only, like the service calls that change it.
package final class PluginHoldings {
    private var items: [(key: String, release: () -> Void)] = []

    package init() {}

    /// Holds `key` (replacing a holding of the same key), released by `release` if the plugin does not give
    /// it back itself.
    package func hold(_ key: String, release: @escaping () -> Void) {
        items.removeAll { $0.key == key }
        items.append((key, release))
    }

    /// The plugin gave `key` back itself; false when it held no such thing.
    @discardableResult
    package func drop(_ key: String) -> Bool {
        guard let index = items.firstIndex(where: { $0.key == key }) else { return false }
        items.remove(at: index)
        return true
    }

    package func holds(_ key: String) -> Bool { items.contains { $0.key == key } }

    /// What is held, oldest first (for diagnostics and tests).
    package var keys: [String] { items.map(\.key) }

    /// Releases everything, newest first; holdings added while releasing are released too.
    package func releaseAll() {
        while let last = items.popLast() { last.release() }
    }
}

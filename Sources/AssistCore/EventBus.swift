import Foundation
import Runtime

/// Named events with JSON payloads. Publishing works from any thread; handlers run on the main loop.
package final class EventBus: @unchecked Sendable {  // because: `subscribers` and `nextID` are guarded by `lock`
    private struct Subscriber {
        let id: UInt64
        let prefix: String
        let handler: @Sendable (String, String) -> Void
    }

    private let loop: MainLoop
    private let lock = NSLock()
    private var subscribers: [Subscriber] = []
    private var nextID: UInt64 = 1

    /// Creates a bus delivering on `loop`.
    package init(loop: MainLoop) {
        self.loop = loop
    }

    /// Subscribes to names starting with `prefix`; returns an id for `unsubscribe`. Any thread.
    @discardableResult
    package func subscribe(prefix: String, _ handler: @escaping @Sendable (_ name: String, _ json: String) -> Void)
        -> UInt64
    {
        lock.lock()
        defer { lock.unlock() }
        let id = nextID
        nextID += 1
        subscribers.append(Subscriber(id: id, prefix: prefix, handler: handler))
        return id
    }

    /// Ends a subscription. Any thread.
    package func unsubscribe(_ id: UInt64) {
        lock.lock()
        subscribers.removeAll { $0.id == id }
        lock.unlock()
    }

    /// Publishes `name` with `json` ("{}" when nil); returns false when the payload is not valid JSON. Any thread.
    @discardableResult
    package func publish(_ name: String, json: String? = nil) -> Bool {
        let payload = json ?? "{}"
        guard let data = payload.data(using: .utf8),
            (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
        else { return false }
        lock.lock()
        let matching = subscribers.filter { name.hasPrefix($0.prefix) }
        lock.unlock()
        guard !matching.isEmpty else { return true }
        loop.post {
            for subscriber in matching { subscriber.handler(name, payload) }
        }
        return true
    }
}

import Audio
import Foundation
import PluginHost
import Voice

/// A value made on the main loop, read after it ran.
package final class Found<Value>: @unchecked Sendable {  // because: set on the loop, read after `run(until:)`
    package var value: Value?

    package init() {}
}

/// Set from a signal handler's queue, read by the listening loop.
package final class StopFlag: @unchecked Sendable {  // because: `value` is guarded by `lock`
    private let lock = NSLock()
    private var value = false

    package init() {}

    package func set() { lock.withLock { value = true } }
    package var isSet: Bool { lock.withLock { value } }
}

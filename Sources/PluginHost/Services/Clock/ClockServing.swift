import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech
import Storage

/// assist.clock/1.
package protocol ClockProviding: Sendable {
    /// Monotonic nanoseconds. Any thread.
    func nowNs() -> UInt64
    /// Wall-clock milliseconds since 1970. Any thread.
    func wallMs() -> Int64
    /// Runs `fire` on the main loop after `milliseconds`, and again every `milliseconds` when `repeating`;
    /// returns the timer's id. Main loop.
    func addTimer(milliseconds: UInt32, repeating: Bool, _ fire: @escaping @Sendable () -> Void) -> UInt64
    /// Cancels a timer. Main loop.
    func cancelTimer(_ id: UInt64)
}

struct LocalClock: ClockProviding {
    let clock: MonotonicClock
    let loop: MainLoop

    func nowNs() -> UInt64 { clock.nowNs() }
    func wallMs() -> Int64 { clock.wallMs() }
    func addTimer(milliseconds: UInt32, repeating: Bool, _ fire: @escaping @Sendable () -> Void) -> UInt64 {
        loop.addTimer(milliseconds: milliseconds, repeating: repeating, fire)
    }
    func cancelTimer(_ id: UInt64) { loop.cancelTimer(id) }
}

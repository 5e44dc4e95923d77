import Foundation
import Interaction
import PluginAPI

extension ServiceTables {
    // MARK: assist.clock/1

    nonisolated(unsafe) static let clockTable: UnsafeMutablePointer<assist_clock_service> = {
        var table = assist_clock_service()
        table.struct_size = UInt32(MemoryLayout<assist_clock_service>.size)
        table.now_ns = { host in PluginContext.from(host)?.services.clock.nowNs() ?? 0 }
        table.wall_ms = { host in PluginContext.from(host)?.services.clock.wallMs() ?? 0 }
        table.timer_add = { host, milliseconds, repeating, callback, user, timer in
            guard let context = PluginContext.from(host), context.onMain("clock.timer_add") else {
                return ASSIST_E_INVALID
            }
            guard let callback else { return ASSIST_E_INVALID }
            let target = UnsafeTransfer(value: (callback, user))
            let idBox = TimerIDBox()
            let id = context.services.clock.addTimer(milliseconds: milliseconds, repeating: repeating) {
                if !repeating { context.holdings.drop("timer \(idBox.id)") }
                target.value.0(target.value.1, idBox.id)
            }
            idBox.id = id
            context.holdings.hold("timer \(id)") { [weak context] in context?.services.clock.cancelTimer(id) }
            timer?.pointee = id
            return ASSIST_OK
        }
        table.timer_cancel = { host, timer in
            PluginContext.endHolding(host, call: "clock.timer_cancel", key: "timer \(timer)") {
                $0.services.clock.cancelTimer(timer)
            }
        }
        return allocate(table)
    }()
}

/// Lets a timer's closure know its own id, which exists only after it is added.
// because: written once on the main loop before the timer can fire there
private final class TimerIDBox: @unchecked Sendable {
    var id: UInt64 = 0
}

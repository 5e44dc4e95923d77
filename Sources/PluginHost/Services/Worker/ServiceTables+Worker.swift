import Foundation
import Interaction
import PluginAPI

extension ServiceTables {
    // MARK: assist.worker/1

    nonisolated(unsafe) static let workerTable: UnsafeMutablePointer<assist_worker_service> = {
        var table = assist_worker_service()
        table.struct_size = UInt32(MemoryLayout<assist_worker_service>.size)
        table.schedule = { host, function, user in
            guard let context = PluginContext.from(host), let function else { return ASSIST_E_INVALID }
            let target = UnsafeTransfer(value: (function, user))
            context.services.loop.runOnWorker { target.value.0(target.value.1) }
            return ASSIST_OK
        }
        table.post_main = { host, function, user in
            guard let context = PluginContext.from(host), let function else { return ASSIST_E_INVALID }
            let target = UnsafeTransfer(value: (function, user))
            context.services.loop.post { target.value.0(target.value.1) }
            return ASSIST_OK
        }
        return allocate(table)
    }()
}

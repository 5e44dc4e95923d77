import AssistCore
import Foundation
import Interaction
import PluginAPI

extension ServiceTables {
    // MARK: assist.events/1

    nonisolated(unsafe) static let eventsTable: UnsafeMutablePointer<assist_events_service> = {
        var table = assist_events_service()
        table.struct_size = UInt32(MemoryLayout<assist_events_service>.size)
        table.publish = { host, name, json in
            guard let context = PluginContext.from(host), let name else { return ASSIST_E_INVALID }
            guard context.services.events.mayPublish(String(cString: name)) else {
                context.services.permissions.refused(
                    .service(.event), detail: "publishing \(PlainText.value(String(cString: name), limit: 80))")
                return ASSIST_E_PERMISSION
            }
            let payload = json.map { String(cString: $0) }
            guard context.services.events.publish(String(cString: name), json: payload) else {
                context.misbehaving("events.publish: the payload of \(String(cString: name)) is not valid JSON")
                return ASSIST_E_INVALID
            }
            return ASSIST_OK
        }
        table.subscribe = { host, prefix, callback, user, subscription in
            guard let context = PluginContext.from(host), context.onMain("events.subscribe") else {
                return ASSIST_E_INVALID
            }
            guard let prefix, let callback else { return ASSIST_E_INVALID }
            let target = UnsafeTransfer(value: (callback, user))
            let id = context.services.events.subscribe(prefix: String(cString: prefix)) { name, json in
                name.withCString { namePointer in
                    json.withCString { jsonPointer in target.value.0(target.value.1, namePointer, jsonPointer) }
                }
            }
            context.holdings.hold("events \(id)") { [weak context] in context?.services.events.unsubscribe(id) }
            subscription?.pointee = id
            return ASSIST_OK
        }
        table.unsubscribe = { host, subscription in
            PluginContext.endHolding(host, call: "events.unsubscribe", key: "events \(subscription)") {
                $0.services.events.unsubscribe(subscription)
            }
        }
        return allocate(table)
    }()
}

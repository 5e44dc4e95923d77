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
            let payload = json.map { String(cString: $0) }
            guard context.hub.events.publish(String(cString: name), json: payload) else {
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
            let id = context.hub.events.subscribe(prefix: String(cString: prefix)) { name, json in
                name.withCString { namePointer in
                    json.withCString { jsonPointer in target.value.0(target.value.1, namePointer, jsonPointer) }
                }
            }
            context.subscriptions.insert(id)
            subscription?.pointee = id
            return ASSIST_OK
        }
        table.unsubscribe = { host, subscription in
            guard let context = PluginContext.from(host), context.onMain("events.unsubscribe") else {
                return ASSIST_E_INVALID
            }
            guard context.subscriptions.remove(subscription) != nil else { return ASSIST_E_NOT_FOUND }
            context.hub.events.unsubscribe(subscription)
            return ASSIST_OK
        }
        return allocate(table)
    }()

    // MARK: assist.clock/1

    nonisolated(unsafe) static let clockTable: UnsafeMutablePointer<assist_clock_service> = {
        var table = assist_clock_service()
        table.struct_size = UInt32(MemoryLayout<assist_clock_service>.size)
        table.now_ns = { host in PluginContext.from(host)?.hub.clock.nowNs() ?? 0 }
        table.wall_ms = { host in PluginContext.from(host)?.hub.clock.wallMs() ?? 0 }
        table.timer_add = { host, milliseconds, repeating, callback, user, timer in
            guard let context = PluginContext.from(host), context.onMain("clock.timer_add") else {
                return ASSIST_E_INVALID
            }
            guard let callback else { return ASSIST_E_INVALID }
            let target = UnsafeTransfer(value: (callback, user))
            let idBox = TimerIDBox()
            let id = context.hub.loop.addTimer(milliseconds: milliseconds, repeating: repeating) {
                if !repeating { context.timers.remove(idBox.id) }
                target.value.0(target.value.1, idBox.id)
            }
            idBox.id = id
            context.timers.insert(id)
            timer?.pointee = id
            return ASSIST_OK
        }
        table.timer_cancel = { host, timer in
            guard let context = PluginContext.from(host), context.onMain("clock.timer_cancel") else {
                return ASSIST_E_INVALID
            }
            guard context.timers.remove(timer) != nil else { return ASSIST_E_NOT_FOUND }
            context.hub.loop.cancelTimer(timer)
            return ASSIST_OK
        }
        return allocate(table)
    }()

    // MARK: assist.worker/1

    nonisolated(unsafe) static let workerTable: UnsafeMutablePointer<assist_worker_service> = {
        var table = assist_worker_service()
        table.struct_size = UInt32(MemoryLayout<assist_worker_service>.size)
        table.schedule = { host, function, user in
            guard let context = PluginContext.from(host), let function else { return ASSIST_E_INVALID }
            let target = UnsafeTransfer(value: (function, user))
            context.hub.workers.schedule { target.value.0(target.value.1) }
            return ASSIST_OK
        }
        table.post_main = { host, function, user in
            guard let context = PluginContext.from(host), let function else { return ASSIST_E_INVALID }
            let target = UnsafeTransfer(value: (function, user))
            context.hub.loop.post { target.value.0(target.value.1) }
            return ASSIST_OK
        }
        return allocate(table)
    }()

    // MARK: assist.input/1

    nonisolated(unsafe) static let inputTable: UnsafeMutablePointer<assist_input_service> = {
        var table = assist_input_service()
        table.struct_size = UInt32(MemoryLayout<assist_input_service>.size)
        table.register_command = { host, id, label, key, phrase, scope in
            guard let context = PluginContext.from(host), context.onMain("input.register_command") else {
                return ASSIST_E_INVALID
            }
            guard let id, let label else {
                context.misbehaving("input.register_command needs an id and a label")
                return ASSIST_E_INVALID
            }
            var parsedKey: Key?
            if let key {
                guard let parsed = Key(name: String(cString: key)) else {
                    context.misbehaving("input.register_command: unknown key name \(String(cString: key))")
                    return ASSIST_E_INVALID
                }
                parsedKey = parsed
            }
            let binding = CommandBinding(
                id: String(cString: id), label: String(cString: label), key: parsedKey,
                phrases: phrase.map { [String(cString: $0)] } ?? [], scope: CommandScope(rawValue: scope) ?? .focused,
                owner: context.id
            )
            do {
                try context.hub.interaction.router.register(binding)
                return ASSIST_OK
            } catch {
                context.logger.warning("command \(binding.id) not registered: \(error)")
                return ASSIST_E_BUSY
            }
        }
        table.unregister_command = { host, id in
            guard let context = PluginContext.from(host), context.onMain("input.unregister_command"), let id else {
                return ASSIST_E_INVALID
            }
            context.hub.interaction.router.unregister(owner: context.id, id: String(cString: id))
            return ASSIST_OK
        }
        table.dictation_available = { _, _ in false }
        return allocate(table)
    }()
}

/// Lets a timer's closure know its own id, which exists only after it is added.
// because: written once on the main loop before the timer can fire there
private final class TimerIDBox: @unchecked Sendable {
    var id: UInt64 = 0
}

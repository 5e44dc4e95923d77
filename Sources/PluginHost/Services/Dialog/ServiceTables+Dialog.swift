import Foundation
import Interaction
import PluginAPI
import Speech

extension ServiceTables {
    nonisolated(unsafe) static let dialogTable: UnsafeMutablePointer<assist_dialog_service> = {
        var table = assist_dialog_service()
        table.struct_size = UInt32(MemoryLayout<assist_dialog_service>.size)
        table.say = { host, text, priority in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            guard let text else {
                context.misbehaving("dialog.say with NULL text")
                return ASSIST_E_INVALID
            }
            let level = SpeechPriority(rawValue: priority) ?? .message
            context.services.dialogs.say(String(cString: text), priority: level)
            return ASSIST_OK
        }
        table.ask_choice = { host, prompt, choices, count, defaultIndex, callback, user, request in
            guard let context = PluginContext.from(host), context.onMain("dialog.ask_choice") else {
                return ASSIST_E_INVALID
            }
            guard let prompt, let choices, count > 0, let callback else {
                context.misbehaving("dialog.ask_choice needs a prompt, choices and a callback")
                return ASSIST_E_INVALID
            }
            var labels: [String] = []
            for index in 0..<Int(count) {
                guard let choice = choices[index] else {
                    context.misbehaving("dialog.ask_choice choice \(index) is NULL")
                    return ASSIST_E_INVALID
                }
                labels.append(String(cString: choice))
            }
            let chosenDefault = (0..<count).contains(defaultIndex) ? Int(defaultIndex) : nil
            let dialog = DialogRequest.choice(
                prompt: String(cString: prompt), choices: labels, defaultIndex: chosenDefault)
            return open(dialog, context: context, callback: callback, user: user, request: request)
        }
        table.confirm = { host, prompt, defaultYes, timeoutMs, callback, user, request in
            guard let context = PluginContext.from(host), context.onMain("dialog.confirm") else {
                return ASSIST_E_INVALID
            }
            guard let prompt, let callback else {
                context.misbehaving("dialog.confirm needs a prompt and a callback")
                return ASSIST_E_INVALID
            }
            let dialog = DialogRequest.confirm(
                prompt: String(cString: prompt), defaultYes: defaultYes, timeoutMs: timeoutMs)
            return open(dialog, context: context, callback: callback, user: user, request: request)
        }
        table.ask_text = { host, prompt, kind, callback, user, request in
            guard let context = PluginContext.from(host), context.onMain("dialog.ask_text") else {
                return ASSIST_E_INVALID
            }
            guard let prompt, let callback else {
                context.misbehaving("dialog.ask_text needs a prompt and a callback")
                return ASSIST_E_INVALID
            }
            let dialog = DialogRequest.text(prompt: String(cString: prompt), kind: TextKind(rawValue: kind) ?? .plain)
            return open(dialog, context: context, callback: callback, user: user, request: request)
        }
        table.cancel = { host, request in
            guard let context = PluginContext.from(host), context.onMain("dialog.cancel") else {
                return ASSIST_E_INVALID
            }
            return context.services.dialogs.cancel(request) ? ASSIST_OK : ASSIST_E_NOT_FOUND
        }
        return allocate(table)
    }()

    private static func open(
        _ dialog: DialogRequest, context: PluginContext, callback: assist_dialog_cb,
        user: UnsafeMutableRawPointer?, request: UnsafeMutablePointer<UInt64>?
    ) -> assist_status {
        let id = context.services.dialogs.open(dialog) { answer in
            var result = assist_dialog_result()
            result.struct_size = UInt32(MemoryLayout<assist_dialog_result>.size)
            result.request = answer.request
            result.index = Int32(answer.index ?? -1)
            result.yes = answer.yes
            switch answer.status {
            case .answered: result.status = ASSIST_OK
            case .cancelled: result.status = ASSIST_E_CANCELLED
            case .timedOut: result.status = ASSIST_E_TIMEOUT
            }
            if let text = answer.text {
                text.withCString { pointer in
                    result.text = pointer
                    callback(user, &result)
                }
            } else {
                callback(user, &result)
            }
        }
        request?.pointee = id
        return ASSIST_OK
    }
}

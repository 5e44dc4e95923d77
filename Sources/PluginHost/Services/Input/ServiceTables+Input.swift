import Foundation
import Interaction
import PluginAPI

extension ServiceTables {
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
            guard context.services.commands.count() < commandsPerPlugin else {
                context.services.permissions.refused(
                    .service(.commands), detail: "command \(commandsPerPlugin + 1) (\(binding.id))")
                return ASSIST_E_PERMISSION
            }
            do {
                try context.services.commands.register(binding)
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
            context.services.commands.unregister(String(cString: id))
            return ASSIST_OK
        }
        table.dictation_available = { host, lang in
            guard let context = PluginContext.from(host), let lang else { return false }
            return context.services.commands.dictationAvailable(language: String(cString: lang))
        }
        table.set_choices = { host, phrase, prompt, choices, count in
            guard let context = PluginContext.from(host), context.onMain("input.set_choices") else {
                return ASSIST_E_INVALID
            }
            guard let phrase, count == 0 || choices != nil, count <= 10_000 else {
                context.misbehaving("input.set_choices needs a phrase, and choices when count is not 0")
                return ASSIST_E_INVALID
            }
            var list: [String] = []
            for index in 0..<count {
                guard let choice = choices?[index] else {
                    context.misbehaving("input.set_choices: choice \(index) is NULL")
                    return ASSIST_E_INVALID
                }
                list.append(String(cString: choice))
            }
            do {
                try context.services.commands.setChoices(
                    phrase: String(cString: phrase), prompt: prompt.map { String(cString: $0) }, choices: list)
                return ASSIST_OK
            } catch {
                context.logger.warning("the choices after \(String(cString: phrase)) were not set: \(error)")
                return ASSIST_E_BUSY
            }
        }
        table.set_confirmation = { host, id, question in
            guard let context = PluginContext.from(host), context.onMain("input.set_confirmation"), let id else {
                return ASSIST_E_INVALID
            }
            context.services.commands.setConfirmation(
                id: String(cString: id), question: question.map { String(cString: $0) })
            return ASSIST_OK
        }
        return allocate(table)
    }()
}

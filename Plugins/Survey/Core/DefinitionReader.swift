import Foundation

/// Turns the JSON object into a definition, noting each missing or wrong field.
struct DefinitionReader {
    var problems: [DefinitionProblem]

    mutating func definition(_ root: [String: Any]) -> SurveyDefinition? {
        // A key no field can have: a control character (a NUL, a line break) in any object's key.
        if let place = Self.keyWithControlCharacter(in: root, at: "The definition") {
            problems.append(
                DefinitionProblem(item: nil, "\(place) has a key with a control character; remove it."))
        }
        let id = root["id"] as? String ?? ""
        if !SurveyDefinition.isValidID(id) {
            problems.append(
                DefinitionProblem(
                    item: nil,
                    "\"id\" must be 1 to 64 letters, digits, dots, dashes or underscores, beginning with a letter or digit (like covid19-sounds)."
                ))
        }
        guard let version = root["version"] as? Int, version >= 1 else {
            problems.append(DefinitionProblem(item: nil, "\"version\" must be a whole number of 1 or more."))
            return nil
        }
        unknownKeys(root, Self.definitionKeys, in: "the definition", item: nil)
        let upload = root["upload"] as? [String: Any] ?? [:]
        unknownKeys(upload, Self.uploadKeys, in: "\"upload\"", item: nil)
        let adapterName = upload["adapter"] as? String ?? "none"
        let adapter = UploadAdapter(rawValue: adapterName)
        if adapter == nil {
            problems.append(
                DefinitionProblem(
                    item: nil, "the upload adapter \"\(adapterName)\" is unknown; use covid19-sounds or none."))
        }
        guard let partList = root["parts"] as? [[String: Any]], !partList.isEmpty else {
            problems.append(DefinitionProblem(item: nil, "\"parts\" must be a list with at least one part."))
            return nil
        }
        let itemCount = partList.reduce(0) { $0 + (($1["items"] as? [Any])?.count ?? 0) }
        guard itemCount <= DefinitionLoader.mostItems else {
            problems.append(
                DefinitionProblem(
                    item: nil,
                    "it has \(itemCount) items; a survey may have at most \(DefinitionLoader.mostItems), split it into several."
                ))
            return nil
        }
        let parts = partList.enumerated().map { index, part in self.part(part, index: index) }
        return SurveyDefinition(
            id: id, version: version, title: text(root["title"]) ?? LocalizedText(["en": id]),
            eligibleAfterSeconds: seconds(root, "eligible_after_s") ?? 169_200,
            reminderSpacingSeconds: seconds(root, "reminder_spacing_s") ?? 169_200,
            adapter: adapter ?? .none, entryType: upload["entry_type"] as? String ?? "production-entry",
            parts: parts)
    }

    /// Where the first key with a control character is in `value` (an object's "id" or its position), or nil.
    static func keyWithControlCharacter(in value: Any, at place: String) -> String? {
        if let object = value as? [String: Any] {
            if object.keys.contains(where: { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }) {
                return (object["id"] as? String).map { "Item \($0)" } ?? place
            }
            for (key, child) in object.sorted(by: { $0.key < $1.key }) {
                let inner = (object["id"] as? String).map { "Item \($0)" } ?? place
                if let found = keyWithControlCharacter(in: child, at: key == "parts" ? place : inner) { return found }
            }
        } else if let list = value as? [Any] {
            for child in list {
                if let found = keyWithControlCharacter(in: child, at: place) { return found }
            }
        }
        return nil
    }

    mutating func part(_ object: [String: Any], index: Int) -> SurveyPart {
        let id = object["id"] as? String ?? "part \(index + 1)"
        if object["id"] == nil { problems.append(DefinitionProblem(item: nil, "part \(index + 1) needs an \"id\".")) }
        unknownKeys(object, Self.partKeys, in: "part \(id)", item: nil)
        let list = object["items"] as? [[String: Any]] ?? []
        if list.isEmpty { problems.append(DefinitionProblem(item: nil, "part \(id) needs at least one item.")) }
        return SurveyPart(
            id: id, once: object["once"] as? Bool ?? false, jsonName: object["json_name"] as? String,
            items: list.enumerated().compactMap { item($0.element, position: "\(id) item \($0.offset + 1)") })
    }

    mutating func item(_ object: [String: Any], position: String) -> SurveyItem? {
        guard let id = object["id"] as? String, !id.isEmpty else {
            problems.append(DefinitionProblem(item: nil, "\(position) needs an \"id\"."))
            return nil
        }
        guard !id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            problems.append(DefinitionProblem(item: nil, "\(position) has an \"id\" with a control character."))
            return nil
        }
        let typeName = object["type"] as? String ?? ""
        guard let kind = SurveyItemKind(rawValue: typeName) else {
            let known = SurveyItemKind.allCases.map(\.rawValue).joined(separator: ", ")
            problems.append(
                DefinitionProblem(item: id, "the type \"\(typeName)\" is unknown; use one of \(known)."))
            return nil
        }
        unknownKeys(object, Self.itemKeys, in: "it", item: id)
        var item = SurveyItem(id: id, kind: kind, text: text(object["text"]) ?? LocalizedText([:]))
        if object["text"] == nil { problems.append(DefinitionProblem(item: id, "it needs a \"text\".")) }
        item.field = string(object, "field", item: id)
        item.followUp = flag(object, "follow_up", item: id) ?? false
        item.minimumChoices = number(object, "min", item: id).map { Int(max(-1, min($0, 1e6))) } ?? 1
        item.confirm = text(object["confirm"])
        item.privacy = flag(object, "privacy", item: id) ?? false
        if item.privacy, kind != .info {
            problems.append(DefinitionProblem(item: id, "only an info item can be the \"privacy\" text."))
        }
        item.file = string(object, "file", item: id)
        item.minSeconds = number(object, "min_s", item: id) ?? 1
        item.maxSeconds = number(object, "max_s", item: id) ?? 30
        for (index, option) in (object["options"] as? [[String: Any]] ?? []).enumerated() {
            guard let key = option["key"] as? String, !key.isEmpty,
                !key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else {
                problems.append(
                    DefinitionProblem(
                        item: id, "option \(index + 1) needs a \"key\" of text without control characters."))
                continue
            }
            unknownKeys(option, Self.optionKeys, in: "option \(key)", item: id)
            item.options.append(
                SurveyOption(
                    key: key, label: text(option["label"]) ?? LocalizedText(["en": key]),
                    exclusive: flag(option, "exclusive", item: id) ?? false,
                    then: string(option, "then", item: id, what: "the id of one follow-up item")))
        }
        switch kind {
        case .single, .multi:
            if item.options.isEmpty { problems.append(DefinitionProblem(item: id, "it needs \"options\".")) }
            if item.field == nil { problems.append(DefinitionProblem(item: id, "it needs a \"field\".")) }
        case .recording:
            if item.field == nil { problems.append(DefinitionProblem(item: id, "it needs a \"field\".")) }
            if let file = item.file, !file.isEmpty,
                file.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
            {
            } else {
                problems.append(
                    DefinitionProblem(
                        item: id, "it needs a \"file\" base name of letters, digits, - and _ (audio_file_cough)."))
            }
        case .location:
            if item.field == nil { problems.append(DefinitionProblem(item: id, "it needs a \"field\".")) }
        case .gate:
            if item.confirm == nil {
                problems.append(DefinitionProblem(item: id, "a gate needs a \"confirm\" answer."))
            }
        case .info:
            break
        }
        return item
    }

    /// `object[key]` as a finite number; nil when absent, and a problem (then nil) when it is something else
    /// (`"min_s": "1"` is text, not a number).
    mutating func number(_ object: [String: Any], _ key: String, item: String?) -> Double? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard !Self.isBoolean(value), let number = (value as? NSNumber)?.doubleValue, number.isFinite else {
            problems.append(DefinitionProblem(item: item, "\"\(key)\" must be a number, not \(Self.kind(of: value))."))
            return nil
        }
        return number
    }

    /// `root[key]` as seconds from 0 to a year.
    mutating func seconds(_ root: [String: Any], _ key: String) -> Double? {
        guard let value = number(root, key, item: nil) else { return nil }
        guard (0...31_536_000).contains(value) else {
            problems.append(DefinitionProblem(item: nil, "\"\(key)\" must be seconds from 0 to a year (31536000)."))
            return nil
        }
        return value
    }

    /// The keys each object of a definition may have (spec §3.2 and docs/survey.md).
    static let definitionKeys: Set = [
        "id", "version", "title", "eligible_after_s", "reminder_spacing_s", "upload", "parts",
    ]
    static let uploadKeys: Set = ["adapter", "entry_type"]
    static let partKeys: Set = ["id", "once", "json_name", "items"]
    static let itemKeys: Set = [
        "id", "type", "text", "field", "follow_up", "min", "confirm", "privacy", "file", "min_s", "max_s", "options",
    ]
    static let optionKeys: Set = ["key", "label", "exclusive", "then"]

    /// A key `object` cannot have (a misspelt `"mni"`, a `"max"` nothing reads) is a problem: left, it would be
    /// taken for a rule that holds.
    mutating func unknownKeys(_ object: [String: Any], _ known: Set<String>, in place: String, item: String?) {
        // A key with a control character is a problem of its own (`keyWithControlCharacter`).
        for key in object.keys.sorted()
        where !known.contains(key) && !key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            problems.append(
                DefinitionProblem(
                    item: item,
                    "\(place) has the key \"\(key.prefix(40))\", which no survey reads (it takes \(known.sorted().joined(separator: ", "))); remove it or correct its spelling."
                ))
        }
    }

    /// `object[key]` as text without control characters; a problem when it is something else (`what` says what it
    /// should be: "then" given as a list).
    mutating func string(_ object: [String: Any], _ key: String, item: String?, what: String = "text") -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String else {
            problems.append(
                DefinitionProblem(item: item, "\"\(key)\" must be \(what), not \(Self.kind(of: value))."))
            return nil
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            problems.append(DefinitionProblem(item: item, "\"\(key)\" holds a control character."))
            return nil
        }
        return text
    }

    /// `object[key]` as true or false; a problem when it is something else.
    mutating func flag(_ object: [String: Any], _ key: String, item: String?) -> Bool? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard Self.isBoolean(value), let flag = value as? Bool else {
            problems.append(
                DefinitionProblem(item: item, "\"\(key)\" must be true or false, not \(Self.kind(of: value))."))
            return nil
        }
        return flag
    }

    /// True for JSON's true and false (a number 1 also converts to Bool, so the number's own type is asked).
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c"
    }

    /// "text", "a number", "a list", … for a problem's sentence.
    static func kind(of value: Any) -> String {
        if isBoolean(value) { return "true or false" }
        return switch value {
        case is String: "text"
        case is NSNumber: "a number"
        case is [Any]: "a list"
        case is [String: Any]: "an object"
        default: "something else"
        }
    }

    func text(_ value: Any?) -> LocalizedText? {
        if let plain = value as? String { return LocalizedText(["en": plain]) }
        guard let map = value as? [String: Any] else { return nil }
        return LocalizedText(map.compactMapValues { $0 as? String })
    }
}

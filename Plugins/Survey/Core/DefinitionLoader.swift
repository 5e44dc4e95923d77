import Foundation

/// One thing wrong with a definition: where (an item id, or nil for the definition itself) and what to fix.
public struct DefinitionProblem: Sendable, Equatable, CustomStringConvertible {
    public var item: String?
    public var message: String

    public init(item: String?, _ message: String) {
        self.item = item
        self.message = message
    }

    /// "item covid: option statusPositive names covid_pos in then, but there is no such follow-up item."
    public var description: String { item.map { "item \($0): \(message)" } ?? message }
}

/// A definition that passed every check, or everything wrong with it.
public enum DefinitionOutcome: Sendable {
    case valid(SurveyDefinition)
    case invalid([DefinitionProblem])
}

/// Reads a definition file and checks it (spec §3.2): a definition with any problem is not offered.
public enum DefinitionLoader {
    /// The definition in `data`, or every problem found, each once.
    public static func load(_ data: Data) -> DefinitionOutcome {
        var problems = DuplicateKeyScanner.duplicates(in: data).map {
            DefinitionProblem(item: nil, "the key \"\($0.key)\" appears twice in \($0.path); keep one of them.")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            return .invalid(
                problems + [
                    DefinitionProblem(item: nil, "this is not valid JSON (\(Self.reason(error))); fix the syntax.")
                ]
            )
        }
        guard let root = object as? [String: Any] else {
            return .invalid([DefinitionProblem(item: nil, "the file must hold one JSON object.")])
        }
        var reader = Reader(problems: problems)
        let definition = reader.definition(root)
        problems = reader.problems
        if let definition { problems += check(definition) }
        guard problems.isEmpty, let definition else { return .invalid(problems) }
        return .valid(definition)
    }

    /// Loads `url`; a file that cannot be read is one problem.
    public static func load(contentsOf url: URL) -> DefinitionOutcome {
        guard let data = try? Data(contentsOf: url) else {
            var isFolder: ObjCBool = false
            let folder = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
            return .invalid([
                DefinitionProblem(
                    item: nil,
                    folder
                        ? "it is a folder; give the path of a definition file (JSON)."
                        : "the file cannot be read; check its path and permissions.")
            ])
        }
        return load(data)
    }

    /// The rules across items: unique ids and keys, follow-ups that exist and end, limits that make sense.
    static func check(_ definition: SurveyDefinition) -> [DefinitionProblem] {
        var problems: [DefinitionProblem] = []
        var seen = Set<String>()
        for item in definition.items {
            if !seen.insert(item.id).inserted {
                problems.append(DefinitionProblem(item: item.id, "this id is used by two items; give each its own."))
            }
        }
        var partIDs = Set<String>()
        for part in definition.parts where !partIDs.insert(part.id).inserted {
            problems.append(DefinitionProblem(item: nil, "the part id \"\(part.id)\" is used twice."))
        }
        for item in definition.items {
            var keys = Set<String>()
            for option in item.options where !keys.insert(option.key).inserted {
                problems.append(
                    DefinitionProblem(
                        item: item.id, "the option key \"\(option.key)\" is used twice; keys must differ."))
            }
            for option in item.options {
                guard let target = option.then else { continue }
                guard let follow = definition.item(target), follow.followUp else {
                    problems.append(
                        DefinitionProblem(
                            item: item.id,
                            "option \(option.key) names \"\(target)\" in then, but there is no follow-up item with that id; add one with \"follow_up\": true or fix the name."
                        ))
                    continue
                }
                if definition.part(of: target)?.id != definition.part(of: item.id)?.id {
                    problems.append(
                        DefinitionProblem(item: item.id, "the follow-up \"\(target)\" must be in the same part."))
                }
            }
            if item.kind == .recording,
                !(1 <= item.minSeconds && item.minSeconds < item.maxSeconds && item.maxSeconds <= Self.longestTake)
            {
                problems.append(
                    DefinitionProblem(
                        item: item.id,
                        "min_s and max_s must satisfy 1 ≤ min_s < max_s ≤ \(Int(Self.longestTake)) (they are \(Self.number(item.minSeconds)) and \(Self.number(item.maxSeconds)))."
                    ))
            }
            if item.kind == .multi, item.minimumChoices < 1 || item.minimumChoices > item.options.count {
                problems.append(
                    DefinitionProblem(item: item.id, "min must be between 1 and the number of options."))
            }
            if item.text.byLanguage["en"] == nil {
                problems.append(DefinitionProblem(item: item.id, "the text needs an English (\"en\") version."))
            }
            for option in item.options where option.label.byLanguage["en"] == nil {
                problems.append(
                    DefinitionProblem(item: item.id, "option \(option.key) needs an English (\"en\") label."))
            }
        }
        if definition.items.filter(\.privacy).count > 1 {
            problems.append(
                DefinitionProblem(
                    item: nil, "more than one item is marked \"privacy\"; mark the one text to hear again."))
        }
        problems += followUpCycles(definition)
        let unreferenced = definition.items.filter { item in
            item.followUp && !definition.items.contains { $0.options.contains { $0.then == item.id } }
        }
        for item in unreferenced {
            problems.append(
                DefinitionProblem(item: item.id, "this follow-up is never asked: no option names it in then."))
        }
        if definition.adapter == .covid19Sounds {
            for part in definition.parts where part.jsonName == nil {
                problems.append(
                    DefinitionProblem(item: nil, "part \(part.id) needs a json_name for the covid19-sounds upload."))
            }
        }
        return problems
    }

    /// Follow-ups that lead back to an item already on the way through `then`: each cycle reported once, at
    /// its first item in definition order.
    private static func followUpCycles(_ definition: SurveyDefinition) -> [DefinitionProblem] {
        var problems: [DefinitionProblem] = []
        var reported = Set<Set<String>>()
        func walk(_ trail: [String]) {
            guard let last = trail.last else { return }
            for target in definition.item(last)?.options.compactMap(\.then) ?? [] {
                if let start = trail.firstIndex(of: target) {
                    let cycle = Array(trail[start...])
                    if reported.insert(Set(cycle)).inserted {
                        problems.append(
                            DefinitionProblem(
                                item: cycle[0],
                                "follow-ups form a cycle (\((cycle + [target]).joined(separator: " → "))); one of them must not lead back."
                            ))
                    }
                } else if trail.count < 64 {
                    walk(trail + [target])
                }
            }
        }
        for item in definition.items where !item.followUp { walk([item.id]) }
        for item in definition.items where item.followUp { walk([item.id]) }
        return problems
    }

    /// The longest take a recording item may ask for, in seconds (10 minutes).
    static let longestTake: Double = 600
    /// The most items a definition may hold: a questionnaire, not a data file.
    static let mostItems = 2_000

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    private static func reason(_ error: Error) -> String {
        let description = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        return description ?? "unreadable"
    }
}

/// Turns the JSON object into a definition, noting each missing or wrong field.
private struct Reader {
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
        let upload = root["upload"] as? [String: Any] ?? [:]
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
            item.options.append(
                SurveyOption(
                    key: key, label: text(option["label"]) ?? LocalizedText(["en": key]),
                    exclusive: option["exclusive"] as? Bool ?? false, then: option["then"] as? String))
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

    /// `object[key]` as text without control characters; a problem when it is something else.
    mutating func string(_ object: [String: Any], _ key: String, item: String?) -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String else {
            problems.append(DefinitionProblem(item: item, "\"\(key)\" must be text, not \(Self.kind(of: value))."))
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

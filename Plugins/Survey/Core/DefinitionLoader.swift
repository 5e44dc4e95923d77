import Foundation
import PluginKit

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
        guard data.count <= largestFile else { return .invalid([tooLarge(data.count)]) }
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
        var reader = DefinitionReader(problems: problems)
        let definition = reader.definition(root)
        problems = reader.problems
        if let definition { problems += check(definition) }
        guard problems.isEmpty, let definition else { return .invalid(problems) }
        return .valid(definition)
    }

    /// Loads `url`; a file that cannot be read is one problem.
    public static func load(contentsOf url: URL) -> DefinitionOutcome {
        // Measured before it is read: an 11 MB file took 1.1 GB to refuse once parsed.
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int,
            size > largestFile
        {
            return .invalid([tooLarge(size)])
        }
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
            problems += heardLabels(item)
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
        // The document's name is a file in the submission's folder and a part's name in the upload: a plain name.
        for part in definition.parts {
            guard let name = part.jsonName, !isPlainFileName(name) else { continue }
            problems.append(
                DefinitionProblem(
                    item: nil,
                    "part \(part.id)'s json_name \"\(name.prefix(60))\" must be a plain file name of letters, digits, dots, dashes and underscores, such as daily.json."
                ))
        }
        return problems
    }

    /// A file name with no folder in it: ASCII letters, digits, `.`, `-` and `_`, not starting with a dot, at most
    /// 100 characters.
    static func isPlainFileName(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 100, !name.hasPrefix(".") else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
        }
    }

    /// What a listener cannot follow in a question's choices: too many of them, a label that is empty or too long
    /// to hold while choosing, two options read the same (compared as names are, `NameKey`).
    static func heardLabels(_ item: SurveyItem) -> [DefinitionProblem] {
        var problems: [DefinitionProblem] = []
        if item.options.count > mostOptions {
            problems.append(
                DefinitionProblem(
                    item: item.id,
                    "it has \(item.options.count) options; a question read aloud may have at most \(mostOptions), so split it into several."
                ))
            return problems
        }
        var labels = item.options.map { ("option \($0.key)", $0.label) }
        if let confirm = item.confirm { labels.append(("the confirm answer", confirm)) }
        for (name, label) in labels {
            for (language, text) in label.byLanguage.sorted(by: { $0.key < $1.key }) {
                if !text.contains(where: { $0.isLetter || $0.isNumber }) {
                    problems.append(
                        DefinitionProblem(
                            item: item.id,
                            "\(name) has an empty \"\(language)\" label, read as nothing; give it words, or leave the label out to have its key read."
                        ))
                } else if text.count > longestLabel {
                    problems.append(
                        DefinitionProblem(
                            item: item.id,
                            "\(name) has a \"\(language)\" label of \(text.count) characters; at most \(longestLabel) can be held while choosing, so shorten it."
                        ))
                }
            }
        }
        let languages = Set(item.options.flatMap(\.label.byLanguage.keys)).sorted()
        for language in languages {
            var seen: [String: String] = [:]
            for option in item.options {
                guard let text = option.label.byLanguage[language] else { continue }
                let key = NameKey.of(text)
                guard text.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
                if let first = seen[key] {
                    problems.append(
                        DefinitionProblem(
                            item: item.id,
                            "options \(first) and \(option.key) are both read \"\(text)\" in \"\(language)\"; a listener cannot tell them apart, so give each its own label."
                        ))
                } else {
                    seen[key] = option.key
                }
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

    /// The largest definition file: the COVID-19 Sounds one is 14 kB; a megabyte is a questionnaire no one
    /// could answer by ear.
    static let largestFile = 1_048_576

    static func tooLarge(_ size: Int) -> DefinitionProblem {
        DefinitionProblem(
            item: nil,
            "the file is \(size / 1_024) kB; a definition may be at most \(largestFile / 1_024) kB, so this is not one (or split it into several surveys)."
        )
    }

    /// The most options one question may have: each is read out, and a listener holds about this many at most
    /// (COVID-19 Sounds' longest list, the symptoms, has 18).
    static let mostOptions = 30
    /// The longest option label or gate answer, in characters: it is read before every choice.
    static let longestLabel = 200

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

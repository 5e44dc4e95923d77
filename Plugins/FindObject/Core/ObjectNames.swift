import Foundation
import ObjectDetection

/// What a user may call each detectable object, keyed on the model's own class names (the lines of
/// `coco.names`, Darknet spellings such as `sofa` and `tvmonitor`), with a main name and alternatives per
/// language (`names.json` in its share folder, `Plugins/FindObject/share/`), and the rules that turn a query
/// into a class.
public struct ObjectNames: Sendable {
    public struct Entry: Codable, Equatable, Sendable {
        /// The model's class name; its index in the table is the class id.
        public var key: String
        public var en: [String]
        public var ru: [String]
        public var zh: [String]
        /// Spanish names; a custom model's table may have none (English is said then).
        public var es: [String]?

        public func names(_ language: String) -> [String] {
            switch language {
            case "ru": return ru
            case "zh": return zh
            case "es": return es ?? en
            default: return en
            }
        }
    }

    private struct File: Codable { var names: [Entry] }

    public let entries: [Entry]
    public let language: String

    public init(entries: [Entry], language: String) {
        self.entries = entries
        self.language = language
    }

    /// A custom model's names: its `names.json` when it has one whose keys are its classes, else each class
    /// name as the English main name.
    public init(model: CustomModel, language: String) {
        let classes = model.spec.classNames
        if let table = try? ObjectNames(directory: model.folder, language: language),
            table.entries.map(\.key) == classes
        {
            self = table
        } else {
            self.init(entries: classes.map { Entry(key: $0, en: [$0], ru: [], zh: []) }, language: language)
        }
    }

    /// Loads `names.json` from `directory`.
    public init(directory: String, language: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent("names.json"))
        self.init(entries: try JSONDecoder().decode(File.self, from: data).names, language: language)
    }

    /// The name to speak for class `id`.
    public func mainName(_ id: Int) -> String {
        guard entries.indices.contains(id) else { return "?" }
        return entries[id].names(language).first ?? entries[id].key
    }

    /// The class a query means (find-object.md §2): exact main names, then exact alternatives (the user's
    /// language first, then the others, then the model's own keys), then the best partial match of at least
    /// 3 characters. Nil when nothing fits.
    public func resolve(_ query: String) -> Int? {
        if let exact = exactly(query) { return exact }
        let wanted = Self.fold(query)
        guard wanted.count >= 3 else { return nil }
        let (mains, alternatives) = allNames()
        var best: (id: Int, score: Int)?
        for (id, name) in mains + alternatives {
            let score = Self.partialScore(query: wanted, name: name)
            if score >= 3, score > (best?.score ?? 0) { best = (id, score) }
        }
        return best?.id
    }

    /// The class whose name, in any language, or whose model key is exactly `query` (case and the spaces around
    /// aside): a thing taught as "cup" shares its name with the detector's cup; one taught as "zz bus" does not.
    public func exactly(_ query: String) -> Int? {
        let wanted = Self.fold(query)
        guard !wanted.isEmpty else { return nil }
        let (mains, alternatives) = allNames()
        return (mains.first(where: { $0.1 == wanted }) ?? alternatives.first(where: { $0.1 == wanted }))?.0
    }

    /// Every (class, folded name): the main names, then the alternatives and the model's keys, in the order ties
    /// are broken (the user's language first).
    private func allNames() -> (mains: [(Int, String)], alternatives: [(Int, String)]) {
        let languages = [language] + ["en", "ru", "zh", "es"].filter { $0 != language }
        // (class, name, is main) in the order ties are broken.
        var mains: [(Int, String)] = []
        var alternatives: [(Int, String)] = []
        for lang in languages {
            for (id, entry) in entries.enumerated() {
                let names = entry.names(lang).map(Self.fold)
                if let main = names.first { mains.append((id, main)) }
                alternatives += names.dropFirst().map { (id, $0) }
            }
        }
        alternatives += entries.enumerated().map { ($0.offset, Self.fold($0.element.key)) }
        return (mains, alternatives)
    }

    /// The closest names to an unknown query, for "did you mean".
    public func suggestions(for query: String, count: Int = 3) -> [String] {
        let wanted = Self.fold(query)
        let names = entries.indices.map { mainName($0) }
        return names.map { ($0, EditDistance.between(wanted, Self.fold($0))) }
            .sorted { $0.1 < $1.1 }.prefix(count).map(\.0)
    }

    static func partialScore(query: String, name: String) -> Int {
        if name.contains(query) { return query.count }
        if query.contains(name) { return name.count }
        var best = 0
        for queryWord in query.split(separator: " ") where queryWord.count >= 3 {
            for nameWord in name.split(separator: " ") where nameWord.count >= 3 {
                if queryWord.contains(nameWord) || nameWord.contains(queryWord) {
                    best = max(best, min(queryWord.count, nameWord.count))
                }
            }
        }
        return best
    }

    static func fold(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}

/// Levenshtein distance over characters.
public enum EditDistance {
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

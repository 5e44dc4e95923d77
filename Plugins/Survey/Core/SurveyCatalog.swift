import Foundation

/// Where definitions come from: the ones shipped in the survey's own `surveys/` folder (in the source,
/// `Plugins/Survey/share/surveys/`; installed, `share/assist/survey/surveys/`), then the admin's in
/// `/etc/assist/surveys/` (or the folder in setting `survey.definitions-dir`), which win for the same id.
public enum SurveyCatalog {
    public struct Entry: Sendable {
        public var url: URL
        public var result: DefinitionOutcome
    }

    public static let adminFolder = "/etc/assist/surveys"

    /// The folders searched, in order.
    public static func folders(shareDirectory: String?, adminFolder: String?) -> [URL] {
        var folders: [URL] = []
        if let shareDirectory {
            folders.append(URL(fileURLWithPath: shareDirectory).appendingPathComponent("surveys"))
        }
        folders.append(URL(fileURLWithPath: adminFolder ?? Self.adminFolder))
        return folders
    }

    /// Every `*.json` file in `folders`, read and checked.
    public static func load(_ folders: [URL]) -> [Entry] {
        var entries: [Entry] = []
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".json") {
                let url = folder.appendingPathComponent(name)
                entries.append(Entry(url: url, result: DefinitionLoader.load(contentsOf: url)))
            }
        }
        return entries
    }

    /// The definition `id`: the last valid one found (admin over shipped), or the problems of the last file
    /// that claimed the id, or nil when no file has it.
    public static func find(_ id: String, in entries: [Entry]) -> Entry? {
        let claiming = entries.filter { entry in
            switch entry.result {
            case .valid(let definition): return definition.id == id
            case .invalid: return entry.url.deletingPathExtension().lastPathComponent == id
            }
        }
        return claiming.last { if case .valid = $0.result { true } else { false } } ?? claiming.last
    }
}

import Foundation
import PluginKit
import Storage

/// The training clips collect-videos filmed of one of its things on this device, for
/// `teach NAME --from-collect-videos LABEL`: its database is read, never changed, and nothing is sent.
/// collect-videos keeps a clip in its media folder until the ORBIT server has it, then in its cache, which may
/// have been cleared.
struct CollectedClips: Equatable {
    static let pluginID = "assist.collect-videos"

    /// The thing's label as collect-videos has it.
    let label: String
    /// The clips' files that are still on this device, in slot order.
    let paths: [String]

    enum Problem: Error, Equatable {
        /// collect-videos was never used here (no database).
        case nothingFilmed
        /// Its database cannot be read; the cause.
        case unreadable(String)
        /// No thing has that label; the labels there are.
        case unknown(labels: [String])
        /// The thing has no training clip.
        case noClips(label: String)
        /// Its clips were sent and cleared from this device.
        case gone(label: String)
    }

    /// The clips of `label` (exactly, else the only thing whose label differs from it in case alone, as
    /// collect-videos matches), found from the folders of this plugin: collect-videos' are beside them.
    static func find(_ label: String, data: String, cache: String?) -> Result<CollectedClips, Problem> {
        let own = URL(fileURLWithPath: data).deletingLastPathComponent().appendingPathComponent(pluginID)
        let cached = cache.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(pluginID) }
        var rows: [(label: String, filename: String?, location: String?)] = []
        do {
            let database = try PluginDatabase(readingOnly: own.appendingPathComponent("orbit.sqlite"))
            try database.execute(
                """
                SELECT thing.label, video.filename, video.location FROM thing
                LEFT JOIN video ON video.thing_id = thing.id AND video.kind = 'T' AND video.state = 'ready'
                ORDER BY thing.id, video.slot
                """
            ) { _, values in
                guard case .text(let label) = values[0] else { return true }
                if case .text(let filename) = values[1], case .text(let location) = values[2] {
                    rows.append((label, filename, location))
                } else {
                    rows.append((label, nil, nil))
                }
                return true
            }
        } catch {
            return .failure(error.code == .missing ? .nothingFilmed : .unreadable(error.message))
        }
        let labels = rows.map(\.label).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard !labels.isEmpty else { return .failure(.nothingFilmed) }
        let wanted = label.trimmingCharacters(in: .whitespacesAndNewlines)
        let alike = labels.filter { NameKey.of($0) == NameKey.of(wanted) }
        guard let found = labels.first(where: { $0 == wanted }) ?? (alike.count == 1 ? alike[0] : nil) else {
            return .failure(.unknown(labels: labels))
        }
        let clips = rows.filter { $0.label == found }.compactMap { row -> URL? in
            guard let filename = row.filename, !filename.hasPrefix("/"), !filename.contains("..") else { return nil }
            switch row.location {
            case "data": return own.appendingPathComponent("media").appendingPathComponent(filename)
            case "cache": return cached?.appendingPathComponent(filename)
            default: return nil
            }
        }
        guard !clips.isEmpty else { return .failure(.noClips(label: found)) }
        let present = clips.map(\.path).filter { FileManager.default.isReadableFile(atPath: $0) }
        guard !present.isEmpty else { return .failure(.gone(label: found)) }
        return .success(CollectedClips(label: found, paths: present))
    }
}

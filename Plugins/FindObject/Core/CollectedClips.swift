import Foundation
import PluginKit

/// The training clips collect-videos filmed of one of its things on this device, for
/// `teach NAME --from-collect-videos LABEL`: read from what collect-videos offers find-object (both manifests
/// say so: collect-videos' `offers`, find-object's `reads`), which the host shows in find-object's own
/// `offered/assist.collect-videos/` folder. Its `training-clips/things.json` lists each thing's label and its
/// clips as "media/<file>" or "cache/<file>", beside it there; collect-videos keeps a clip in its media folder
/// until the ORBIT server has it, then in its cache, which may have been cleared. Nothing is changed or sent.
struct CollectedClips: Equatable {
    static let pluginID = "assist.collect-videos"
    static let offer = "training-clips"

    /// The thing's label as collect-videos has it.
    let label: String
    /// The clips' files that are still on this device, in slot order.
    let paths: [String]

    enum Problem: Error, Equatable {
        /// collect-videos was never used here, or offers nothing to this feature.
        case nothingFilmed
        /// Its offer cannot be read; the cause.
        case unreadable(String)
        /// No thing has that label; the labels there are.
        case unknown(labels: [String])
        /// The thing has no training clip.
        case noClips(label: String)
        /// Its clips were sent and cleared from this device.
        case gone(label: String)
    }

    /// The offer's file, as collect-videos writes it.
    struct Offer: Decodable {
        struct Thing: Decodable {
            var label: String
            var clips: [String]
        }
        var things: [Thing]
    }

    /// The clips of `label` (exactly, else the only thing whose label differs from it in case alone, as
    /// collect-videos matches), from the offer shown in the plugin's data folder `data`.
    static func find(_ label: String, data: String) -> Result<CollectedClips, Problem> {
        let offered = URL(fileURLWithPath: data).appendingPathComponent("offered").appendingPathComponent(pluginID)
        let file = offered.appendingPathComponent(offer).appendingPathComponent("things.json")
        let things: [Offer.Thing]
        do {
            things = try JSONDecoder().decode(Offer.self, from: Data(contentsOf: file)).things
        } catch CocoaError.fileReadNoSuchFile, CocoaError.fileNoSuchFile {
            return .failure(.nothingFilmed)
        } catch is DecodingError {
            return .failure(.unreadable("\(file.lastPathComponent) is not what collect-videos writes"))
        } catch {
            return .failure(.unreadable((error as NSError).localizedDescription))
        }
        let labels = things.map(\.label).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard !labels.isEmpty else { return .failure(.nothingFilmed) }
        let wanted = label.trimmingCharacters(in: .whitespacesAndNewlines)
        let alike = labels.filter { NameKey.of($0) == NameKey.of(wanted) }
        guard let found = labels.first(where: { $0 == wanted }) ?? (alike.count == 1 ? alike[0] : nil) else {
            return .failure(.unknown(labels: labels))
        }
        let clips = things.filter { $0.label == found }.flatMap(\.clips).compactMap { clip -> URL? in
            let parts = clip.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 2, ["media", "cache"].contains(parts[0]), !parts.contains("..") else { return nil }
            return offered.appendingPathComponent(clip)
        }
        guard !clips.isEmpty else { return .failure(.noClips(label: found)) }
        let present = clips.map(\.path).filter { FileManager.default.isReadableFile(atPath: $0) }
        guard !present.isEmpty else { return .failure(.gone(label: found)) }
        return .success(CollectedClips(label: found, paths: present))
    }
}

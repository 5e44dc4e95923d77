import Foundation
import PluginKit

/// What collect-videos offers find-object (its manifest's `offers`, issue 69): each thing's label and its
/// training clips, as `things.json` in `<data>/offers/training-clips/`, written whole after every change of
/// things or clips, so find-object never reads the database. The clips stay where they are; the file names
/// them as find-object sees them through the offer, "media/<file>" or "cache/<file>" (the offer brings those
/// two folders). Leaving the study empties it.
public struct TrainingClipsOffer: Codable, Equatable, Sendable {
    public static let name = "training-clips"
    public static let file = "things.json"

    public struct Thing: Codable, Equatable, Sendable {
        public var label: String
        public var clips: [String]

        public init(label: String, clips: [String]) {
            self.label = label
            self.clips = clips
        }
    }

    public var version = 1
    public var things: [Thing]

    public init(things: [Thing]) { self.things = things }

    /// The offer as `database` has it: every thing, oldest first, with its ready training clips in slot order.
    static func read(_ database: PluginDatabaseHandle) throws(PluginStatus) -> TrainingClipsOffer {
        var things: [Thing] = []
        var last: String?
        try database.execute(
            """
            SELECT thing.id, thing.label, video.filename, video.location FROM thing
            LEFT JOIN video ON video.thing_id = thing.id AND video.kind = 'T' AND video.state = 'ready'
            ORDER BY thing.id, video.slot
            """
        ) { row in
            if last != row[0] { things.append(Thing(label: row[1], clips: [])) }
            last = row[0]
            let folder = row[3] == "cache" ? "cache" : "media"
            if !row[2].isEmpty { things[things.count - 1].clips.append("\(folder)/\(row[2])") }
        }
        return TrainingClipsOffer(things: things)
    }

    /// Writes the offer into `data`'s offer folder (0700), whole: a reader finds the old file or the new one.
    /// With no things (none made yet, or the participant left the study) there is no offer.
    public func write(into data: String) throws {
        let folder = URL(fileURLWithPath: data).appendingPathComponent("offers").appendingPathComponent(Self.name)
        let files = FileManager.default
        guard !things.isEmpty else {
            if files.fileExists(atPath: folder.path) { try files.removeItem(at: folder) }
            return
        }
        for url in [folder.deletingLastPathComponent(), folder] where !files.fileExists(atPath: url.path) {
            try files.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard PrivateFile.writeWhole(try encoder.encode(self), to: folder.appendingPathComponent(Self.file)) else {
            throw CocoaError(.fileWriteUnknown)
        }
    }
}

import Foundation
import HostTesting
import Storage
import Testing

@testable import FindObjectCore

/// Which of collect-videos' clips teach a thing (issue 39): training clips only, where collect-videos keeps
/// them, a label matched as collect-videos matches it, and a database that is not one said as such. The CLI test
/// (`TeachFromClipsTests`) films the clips with collect-videos itself.
@Suite("collect-videos' clips for teaching")
struct CollectedClipsTests {
    let root: TemporaryDirectory
    var data: String { root.path("data/plugins/assist.find-object").path }
    var cache: String { root.path("cache/plugins/assist.find-object").path }
    var theirs: URL { root.path("data/plugins/assist.collect-videos") }

    init() throws { root = try TemporaryDirectory("assist-collected") }

    /// collect-videos' tables as far as teaching reads them, with `things` and their clips.
    func database(_ things: [String], clips: [(thing: Int, kind: String, file: String, location: String)]) throws {
        let database = try PluginDatabase(url: theirs.appendingPathComponent("orbit.sqlite"))
        try database.execute(
            "CREATE TABLE thing (id INTEGER PRIMARY KEY, label TEXT NOT NULL, created_at INTEGER NOT NULL)")
        try database.execute(
            """
            CREATE TABLE video (id INTEGER PRIMARY KEY, thing_id INTEGER NOT NULL, kind TEXT NOT NULL,
                slot INTEGER NOT NULL, filename TEXT NOT NULL, location TEXT NOT NULL, state TEXT NOT NULL)
            """)
        for (index, label) in things.enumerated() {
            try database.execute(
                "INSERT INTO thing VALUES (?, ?, 0)", arguments: [.integer(Int64(index + 1)), .text(label)])
        }
        for (slot, clip) in clips.enumerated() {
            try database.execute(
                "INSERT INTO video (thing_id, kind, slot, filename, location, state) VALUES (?, ?, ?, ?, ?, 'ready')",
                arguments: [
                    .integer(Int64(clip.thing)), .text(clip.kind), .integer(Int64(slot)), .text(clip.file),
                    .text(clip.location),
                ])
        }
    }

    func file(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("clip".utf8).write(to: url)
    }

    @Test func trainingClipsAreFoundWhereCollectVideosKeepsThem() throws {
        try database(
            ["Red mug", "Keys"],
            clips: [
                (1, "T", "videos/a.mp4", "data"), (1, "S", "videos/b.mp4", "data"), (1, "T", "videos/c.mp4", "cache"),
                (1, "T", "../../elsewhere.mp4", "data"), (2, "T", "videos/d.mp4", "cache"),
            ])
        let a = theirs.appendingPathComponent("media/videos/a.mp4")
        let c = root.path("cache/plugins/assist.collect-videos/videos/c.mp4")
        try file(a)
        try file(c)
        try file(theirs.appendingPathComponent("media/videos/b.mp4"))
        let found = CollectedClips.find("red MUG", data: data, cache: cache)
        #expect(found == .success(CollectedClips(label: "Red mug", paths: [a.path, c.path])))
        #expect(CollectedClips.find("Keys", data: data, cache: cache) == .failure(.gone(label: "Keys")))
        #expect(
            CollectedClips.find("wallet", data: data, cache: cache) == .failure(.unknown(labels: ["Red mug", "Keys"])))
    }

    @Test func aThingWithoutTrainingClipsAndLabelsAlikeInCaseAreNotGuessed() throws {
        try database(["Mug", "MUG", "Cane"], clips: [(3, "S", "videos/x.mp4", "data")])
        #expect(CollectedClips.find("Cane", data: data, cache: cache) == .failure(.noClips(label: "Cane")))
        #expect(
            CollectedClips.find("mug", data: data, cache: cache) == .failure(.unknown(labels: ["Mug", "MUG", "Cane"])))
        #expect(CollectedClips.find("MUG", data: data, cache: cache) == .failure(.noClips(label: "MUG")))
    }

    @Test func noDatabaseOrADamagedOneIsSaidAndNothingIsMade() throws {
        #expect(CollectedClips.find("Mug", data: data, cache: cache) == .failure(.nothingFilmed))
        #expect(!FileManager.default.fileExists(atPath: theirs.path), "reading made nothing")
        try file(theirs.appendingPathComponent("orbit.sqlite"))
        guard case .failure(.unreadable(let reason)) = CollectedClips.find("Mug", data: data, cache: cache) else {
            Issue.record("a file that is not a database is unreadable")
            return
        }
        #expect(!reason.isEmpty)
    }
}

import CollectVideosCore
import Foundation
import HostTesting
import Testing

@testable import FindObjectCore

/// Which of collect-videos' clips teach a thing (issues 39 and 69): read from the offer collect-videos writes
/// (`TrainingClipsOffer`, its own writer here), through the links the host shows in find-object's data folder,
/// never collect-videos' database; a label matched as collect-videos matches it; an offer that is not one said
/// as such. The host's side (who is shown what) is `PluginOffersTests`; the CLI test (`TeachFromClipsTests`)
/// films the clips with collect-videos itself.
@Suite("collect-videos' clips for teaching")
struct CollectedClipsTests {
    let root: TemporaryDirectory
    var data: String { root.path("data/plugins/assist.find-object").path }
    var theirs: URL { root.path("data/plugins/assist.collect-videos") }
    var theirCache: URL { root.path("cache/plugins/assist.collect-videos") }

    init() throws { root = try TemporaryDirectory("assist-collected") }

    /// collect-videos' offer of `things`, and the links the host makes to it.
    func offer(_ things: [TrainingClipsOffer.Thing]) throws {
        try TrainingClipsOffer(things: things).write(into: theirs.path)
        try showOffer()
    }

    /// The links the host makes in find-object's folder when both manifests say so.
    func showOffer() throws {
        let shown = URL(fileURLWithPath: data).appendingPathComponent("offered/assist.collect-videos")
        try FileManager.default.createDirectory(at: shown, withIntermediateDirectories: true)
        for (name, target) in [
            ("training-clips", theirs.appendingPathComponent("offers/training-clips")),
            ("media", theirs.appendingPathComponent("media")), ("cache", theirCache),
        ]
        where (try? FileManager.default.destinationOfSymbolicLink(atPath: shown.appendingPathComponent(name).path))
            == nil
        {
            try FileManager.default.createSymbolicLink(
                at: shown.appendingPathComponent(name), withDestinationURL: target)
        }
    }

    func file(_ url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("clip".utf8).write(to: url)
    }

    /// The path find-object reads a clip by: through its own folder's link.
    func seen(_ clip: String) -> String { data + "/offered/assist.collect-videos/" + clip }

    @Test func trainingClipsAreFoundWhereCollectVideosKeepsThem() throws {
        try offer([
            .init(label: "Red mug", clips: ["media/videos/a.mp4", "cache/videos/c.mp4", "media/../../elsewhere.mp4"]),
            .init(label: "Keys", clips: ["cache/videos/d.mp4"]),
        ])
        try file(theirs.appendingPathComponent("media/videos/a.mp4"))
        try file(theirCache.appendingPathComponent("videos/c.mp4"))
        try file(root.path("data/plugins/elsewhere.mp4"))
        let found = CollectedClips.find("red MUG", data: data)
        #expect(
            found
                == .success(
                    CollectedClips(label: "Red mug", paths: [seen("media/videos/a.mp4"), seen("cache/videos/c.mp4")])))
        #expect(CollectedClips.find("Keys", data: data) == .failure(.gone(label: "Keys")))
        #expect(CollectedClips.find("wallet", data: data) == .failure(.unknown(labels: ["Red mug", "Keys"])))
    }

    @Test func aThingWithoutTrainingClipsAndLabelsAlikeInCaseAreNotGuessed() throws {
        try offer([.init(label: "Mug", clips: []), .init(label: "MUG", clips: []), .init(label: "Cane", clips: [])])
        #expect(CollectedClips.find("Cane", data: data) == .failure(.noClips(label: "Cane")))
        #expect(CollectedClips.find("mug", data: data) == .failure(.unknown(labels: ["Mug", "MUG", "Cane"])))
        #expect(CollectedClips.find("MUG", data: data) == .failure(.noClips(label: "MUG")))
    }

    @Test func theDatabaseIsNeverRead() throws {
        // What the older find-object read by path: a database beside the offer is not an offer.
        try file(theirs.appendingPathComponent("orbit.sqlite"))
        try showOffer()
        #expect(CollectedClips.find("Mug", data: data) == .failure(.nothingFilmed))
    }

    @Test func noOfferOrADamagedOneIsSaidAndNothingIsMade() throws {
        #expect(CollectedClips.find("Mug", data: data) == .failure(.nothingFilmed))
        #expect(!FileManager.default.fileExists(atPath: theirs.path), "reading made nothing")
        try file(theirs.appendingPathComponent("offers/training-clips/things.json"))
        try showOffer()
        guard case .failure(.unreadable(let reason)) = CollectedClips.find("Mug", data: data) else {
            Issue.record("a file that is not an offer is unreadable")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test func theOfferIsWrittenWholeAndPrivate() throws {
        try offer([.init(label: "Cane", clips: ["media/videos/x.mp4"])])
        let folder = theirs.appendingPathComponent("offers/training-clips")
        let attributes = try FileManager.default.attributesOfItem(
            atPath: folder.appendingPathComponent("things.json").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder.path)
        #expect((folderAttributes[.posixPermissions] as? Int) == 0o700)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["things.json"],
            "no temporary file is left")
    }
}

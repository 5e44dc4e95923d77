import AssistCore
import Foundation
import HostTesting
import PluginHost
import Testing

/// What one plugin may read of another's (issue 69, docs/plugin-abi.md §2): an offer is shown only when the
/// offering plugin names the reader and the reader names the offer, a first-party offer only to a first-party
/// reader, and the links are made anew at each load, so an offer taken back is gone.
@Suite("offers between plugins")
struct PluginOffersTests {
    let folder: TemporaryDirectory
    let paths: AssistPaths

    init() throws {
        folder = try TemporaryDirectory("assist-offers")
        paths = AssistPaths.resolve(dataDir: folder.path("data").path, shareDir: folder.path("share").path)
    }

    func manifest(_ id: String, extra: String) throws -> PluginManifest {
        let url = folder.path("\(id).json")
        let json = #"{"id":"\#(id)","name":"N","version":"1.0.0","library":"libN.so","abi":"1.0"\#(extra)}"#
        try Data(json.utf8).write(to: url)
        return try PluginManifest.load(from: url)
    }

    func plugin(_ manifest: PluginManifest, firstParty: Bool = true) -> OfferingPlugin {
        OfferingPlugin(
            manifest: manifest, folders: .of(manifest.id, paths: paths, share: paths.share), firstParty: firstParty)
    }

    var offerer: PluginManifest {
        get throws {
            try manifest(
                "assist.collect-videos",
                extra: #","offers":[{"name":"training-clips","to":["assist.find-object"],"folders":["media","cache"]}]"#
            )
        }
    }

    @Test func anOfferIsShownOnlyWhenBothSaySo() throws {
        let reader = try manifest("assist.find-object", extra: #","reads":["assist.collect-videos/training-clips"]"#)
        let everyone = [plugin(try offerer), plugin(reader)]
        let grants = PluginOffers.grants(for: plugin(reader), among: everyone)
        let theirs = paths.data.appendingPathComponent("plugins/assist.collect-videos")
        #expect(
            grants == [
                OfferGrant(
                    offerer: "assist.collect-videos", name: "training-clips",
                    links: [
                        "training-clips": theirs.appendingPathComponent("offers/training-clips"),
                        "media": theirs.appendingPathComponent("media"),
                        "cache": paths.cache.appendingPathComponent("plugins/assist.collect-videos"),
                    ])
            ])
        // Not named in `to`: a plugin that reads it anyway gets nothing, even one of Assist's own.
        let stranger = try manifest("org.example.peek", extra: #","reads":["assist.collect-videos/training-clips"]"#)
        #expect(PluginOffers.grants(for: plugin(stranger), among: everyone + [plugin(stranger)]).isEmpty)
        #expect(PluginOffers.grants(for: plugin(stranger, firstParty: false), among: everyone).isEmpty)
        // A third-party plugin that takes find-object's id is not given a first-party offer.
        #expect(PluginOffers.grants(for: plugin(reader, firstParty: false), among: everyone).isEmpty)
        // The reader must ask: named in `to` is not enough.
        let silent = try manifest("assist.find-object", extra: "")
        #expect(PluginOffers.grants(for: plugin(silent), among: everyone).isEmpty)
        // An offer that does not exist, or a plugin that is not there.
        let wrong = try manifest(
            "assist.find-object", extra: #","reads":["assist.collect-videos/orbit","assist.gone/x"]"#)
        #expect(PluginOffers.grants(for: plugin(wrong), among: everyone).isEmpty)
    }

    @Test func theLinksAreMadeAnewAndTakenBack() throws {
        let reader = try manifest("assist.find-object", extra: #","reads":["assist.collect-videos/training-clips"]"#)
        let grants = PluginOffers.grants(for: plugin(reader), among: [plugin(try offerer), plugin(reader)])
        let data = paths.data.appendingPathComponent("plugins/assist.find-object")
        try PluginOffers.show(grants, in: data)
        let shown = data.appendingPathComponent("offered/assist.collect-videos")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: shown.path).sorted() == [
                "cache", "media", "training-clips",
            ])
        #expect(
            try FileManager.default.destinationOfSymbolicLink(
                atPath: shown.appendingPathComponent("training-clips").path)
                == paths.data.appendingPathComponent("plugins/assist.collect-videos/offers/training-clips").path)
        let mode = try FileManager.default.attributesOfItem(atPath: data.appendingPathComponent("offered").path)[
            .posixPermissions]
        #expect((mode as? Int) == 0o700)
        // Shown twice: the same links. A file the offering plugin keeps is never touched.
        let offered = paths.data.appendingPathComponent("plugins/assist.collect-videos/offers/training-clips")
        try FileManager.default.createDirectory(at: offered, withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: offered.appendingPathComponent("things.json"))
        try PluginOffers.show(grants, in: data)
        // Taken back (collect-videos no longer offers, or find-object no longer reads): the links go, the
        // offer itself stays.
        try PluginOffers.show([], in: data)
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("offered").path))
        #expect(FileManager.default.fileExists(atPath: offered.appendingPathComponent("things.json").path))
    }

    @Test func offersAndReadsThatAreNotUsableRefuseTheManifest() throws {
        let wrong = [
            (#","offers":[{"name":"Clips","to":["a.b"]}]"#, "an offer is named \"Clips\""),
            (#","offers":[{"name":"media","to":["a.b"]}]"#, "an offer is named \"media\""),
            (#","offers":[{"name":"x","to":[]}]"#, "the offer \"x\" must name"),
            (#","offers":[{"name":"x","to":["a.b"],"folders":[".."]}]"#, "lists the folder \"..\""),
            (#","offers":[{"name":"x","to":["a.b"]},{"name":"x","to":["a.b"]}]"#, "two offers are named \"x\""),
            (#","reads":["../../x"]"#, "reads lists \"../../x\""),
            (#","reads":["org.example.n/x"]"#, "reads lists \"org.example.n/x\""),
        ]
        for (extra, said) in wrong {
            do {
                _ = try manifest("org.example.n", extra: extra)
                Issue.record("\(extra) was taken")
            } catch let refusal as PluginRefusal {
                #expect(refusal.message.contains(said), "\(refusal.message)")
            }
        }
        // Assist's own say what they offer and read.
        let root = BuildProducts.packageRoot.appendingPathComponent("Plugins")
        let collect = try PluginManifest.load(from: root.appendingPathComponent("CollectVideos/manifest.json"))
        let find = try PluginManifest.load(from: root.appendingPathComponent("FindObject/manifest.json"))
        let granted = PluginOffers.grants(for: plugin(find), among: [plugin(collect), plugin(find)])
        #expect(granted.map(\.name) == ["training-clips"])
    }
}

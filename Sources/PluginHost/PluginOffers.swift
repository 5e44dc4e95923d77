import AssistCore
import Foundation

/// One plugin's files shown to another (issue 69): a thing taught "from collect-videos" reads what
/// collect-videos offers, never its database by path. An offer is granted only when both manifests say so: the
/// offering plugin names the reader in its offer's `to`, and the reader names "<id>/<offer>" in `reads`; an
/// offer of a first-party plugin goes to first-party readers only. The host shows a granted offer as links in
/// the reader's `<data>/offered/<id>/`, made anew each time the reader is loaded, and a sandboxed reader's
/// helper may read their targets and nothing else of the other plugin's.
package struct OfferGrant: Equatable, Sendable {
    /// The offering plugin's id.
    package var offerer: String
    /// The offer's name ("training-clips").
    package var name: String
    /// What the reader sees in `<data>/offered/<offerer>/`: the offer's folder under its name, and each folder
    /// the offer brings ("media", "cache") under that name.
    package var links: [String: URL]

    package init(offerer: String, name: String, links: [String: URL]) {
        self.offerer = offerer
        self.name = name
        self.links = links
    }

    /// The folders the reader may read: the links' targets.
    package var targets: [URL] { links.keys.sorted().compactMap { links[$0] } }
}

/// A plugin as offers see it: its manifest, its private folders, and whether Assist installed it.
package struct OfferingPlugin: Sendable {
    package var manifest: PluginManifest
    package var folders: PluginFolders
    package var firstParty: Bool

    package init(manifest: PluginManifest, folders: PluginFolders, firstParty: Bool) {
        self.manifest = manifest
        self.folders = folders
        self.firstParty = firstParty
    }
}

package enum PluginOffers {
    /// The folders an offer may bring besides its own.
    package static let folderNames = ["media", "cache"]

    /// The offers `reader` is granted among `plugins`, in the order it reads them.
    package static func grants(for reader: OfferingPlugin, among plugins: [OfferingPlugin]) -> [OfferGrant] {
        (reader.manifest.reads ?? []).compactMap { wanted -> OfferGrant? in
            let parts = wanted.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2, parts[0] != reader.manifest.id,
                let offerer = plugins.first(where: { $0.manifest.id == parts[0] }),
                let offer = offerer.manifest.offers?.first(where: { $0.name == parts[1] }),
                offer.to.contains(reader.manifest.id), reader.firstParty || !offerer.firstParty
            else { return nil }
            var links = [
                offer.name: offerer.folders.data.appendingPathComponent("offers").appendingPathComponent(offer.name)
            ]
            for folder in offer.folders ?? [] {
                links[folder] =
                    folder == "cache" ? offerer.folders.cache : offerer.folders.data.appendingPathComponent(folder)
            }
            return OfferGrant(offerer: offerer.manifest.id, name: offer.name, links: links)
        }
    }

    /// Shows `grants` in `data`'s `offered/` folder, made anew: what was granted before and is no longer
    /// goes. Links only: nothing of the offering plugin is copied, and nothing it has is changed.
    package static func show(_ grants: [OfferGrant], in data: URL) throws {
        let offered = data.appendingPathComponent("offered")
        let files = FileManager.default
        if files.fileExists(atPath: offered.path) || (try? files.destinationOfSymbolicLink(atPath: offered.path)) != nil
        {
            try files.removeItem(at: offered)
        }
        guard !grants.isEmpty else { return }
        try AssistPaths.ensurePrivateDirectory(data)
        try AssistPaths.ensurePrivateDirectory(offered)
        for grant in grants {
            let folder = offered.appendingPathComponent(grant.offerer)
            try AssistPaths.ensurePrivateDirectory(folder)
            for (name, target) in grant.links {
                let link = folder.appendingPathComponent(name)
                if (try? files.destinationOfSymbolicLink(atPath: link.path)) != nil { continue }
                try files.createSymbolicLink(at: link, withDestinationURL: target)
            }
        }
    }
}

extension PluginManifest {
    /// Checks `offers` and `reads`: plain names, readers named by id, folders Assist knows.
    func validateOffers(path: String) throws(PluginRefusal) {
        let plain = CharacterSet.lowercaseLetters.union(.decimalDigits).union(CharacterSet(charactersIn: "-"))
        let isPlain = { (name: String) in
            !name.isEmpty && name.count <= 40 && name.unicodeScalars.allSatisfy { plain.contains($0) && $0.isASCII }
        }
        var names = Set<String>()
        for offer in offers ?? [] {
            guard isPlain(offer.name), !PluginOffers.folderNames.contains(offer.name) else {
                throw .manifestInvalid(
                    path,
                    "an offer is named \"\(PlainText.value(offer.name, limit: 40))\": use lower-case letters, digits and dashes, not media or cache"
                )
            }
            guard names.insert(offer.name).inserted else {
                throw .manifestInvalid(path, "two offers are named \"\(offer.name)\"")
            }
            guard !offer.to.isEmpty, offer.to.allSatisfy({ $0.contains(".") && $0 != id }) else {
                throw .manifestInvalid(
                    path, "the offer \"\(offer.name)\" must name the ids of the plugins it is for in \"to\"")
            }
            for folder in offer.folders ?? [] where !PluginOffers.folderNames.contains(folder) {
                throw .manifestInvalid(
                    path,
                    "the offer \"\(offer.name)\" lists the folder \"\(PlainText.value(folder, limit: 40))\": only media and cache"
                )
            }
        }
        for wanted in reads ?? [] {
            let parts = wanted.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, parts[0].contains("."), parts[0] != id, isPlain(parts[1]) else {
                throw .manifestInvalid(
                    path,
                    "reads lists \"\(PlainText.value(wanted, limit: 80))\": give another plugin's id and its offer, like assist.collect-videos/training-clips"
                )
            }
        }
    }
}

extension PluginFolders {
    /// The private folders Assist gives the plugin `id` under `paths`, and `share`.
    package static func of(_ id: String, paths: AssistPaths, share: URL) -> PluginFolders {
        PluginFolders(
            data: paths.data.appendingPathComponent("plugins").appendingPathComponent(id),
            cache: paths.cache.appendingPathComponent("plugins").appendingPathComponent(id), share: share)
    }
}

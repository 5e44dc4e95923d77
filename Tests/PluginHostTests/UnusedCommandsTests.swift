import Foundation
import HostTesting
import PluginHost
import Testing

/// A small plugin's manifest with `field` set to the JSON `value`, read as the host reads one.
func quietManifest(_ field: String, _ value: String) throws -> PluginManifest {
    let folder = try TemporaryDirectory("assist-manifest-field")
    let url = folder.path("manifest.json")
    let json =
        #"{"id":"org.example.quiet","name":"Quiet","version":"1.0.0","library":"libQuiet.so","abi":"1.0",""#
        + field + #"":"# + value + "}"
    try Data(json.utf8).write(to: url)
    return try PluginManifest.load(from: url)
}

/// A manifest's `unused_commands` (docs/plugin-abi.md): the shared commands a feature does nothing with.
@Suite("unused_commands in a manifest")
struct UnusedCommandsTests {
    func load(_ unused: String) throws -> PluginManifest { try quietManifest("unused_commands", unused) }

    @Test func theSharedCommandsMayBeNamedAndNothingElse() throws {
        #expect(try load(#"["next","faster"]"#).unusedCommands == ["next", "faster"])
        for wrong in [#"["stop"]"#, #"["help"]"#, #"["Next"]"#] {
            do {
                _ = try load(wrong)
                Issue.record("\(wrong) was taken")
            } catch let refusal as PluginRefusal {
                #expect(
                    refusal.message.hasSuffix(
                        "unused_commands may name next, previous, faster, slower, not \""
                            + (wrong.dropFirst(2).dropLast(2)) + "\""), "\(refusal.message)")
            }
        }
        // The first-party features say what they do not use: find-object none of the four.
        let shipped = BuildProducts.packageRoot.appendingPathComponent("Plugins/FindObject/manifest.json")
        #expect(try PluginManifest.load(from: shipped).unusedCommands == ["next", "previous", "faster", "slower"])
    }
}

/// A manifest's `first_use` (docs/plugin-abi.md): `needs_settings` names only the plugin's own settings, so no
/// plugin learns from the first-use question whether another's are set.
@Suite("first_use in a manifest")
struct FirstUseManifestTests {
    func load(_ firstUse: String) throws -> PluginManifest { try quietManifest("first_use", firstUse) }

    @Test func needsSettingsNamesOnlyItsOwn() throws {
        let own = try load(#"{"not_for":["--image"],"needs_settings":["quiet.server-url"]}"#)
        #expect(own.firstUse?.notFor == ["--image"] && own.firstUse?.needsSettings == ["quiet.server-url"])
        let sends = try load(#"{"network_needs_settings":["quiet.lookup-url"]}"#)
        #expect(sends.firstUse?.networkNeedsSettings == ["quiet.lookup-url"])
        for other in ["collect-videos.app-credential", "quiet", "quietly.x"] {
            do {
                _ = try load(#"{"needs_settings":[""# + other + #""]}"#)
                Issue.record("\(other) was taken")
            } catch let refusal as PluginRefusal {
                #expect(refusal.message.contains("which is not one of its own settings"), "\(refusal.message)")
            }
            do {
                _ = try load(#"{"network_needs_settings":[""# + other + #""]}"#)
                Issue.record("\(other) was taken")
            } catch let refusal as PluginRefusal {
                #expect(refusal.message.contains("which is not one of its own settings"), "\(refusal.message)")
            }
        }
    }
}

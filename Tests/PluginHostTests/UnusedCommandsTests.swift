import Foundation
import HostTesting
import PluginHost
import Testing

/// A manifest's `unused_commands` (docs/plugin-abi.md): the shared commands a feature does nothing with.
@Suite("unused_commands in a manifest")
struct UnusedCommandsTests {
    func load(_ unused: String) throws -> PluginManifest {
        let folder = try TemporaryDirectory("assist-unused")
        let url = folder.path("manifest.json")
        let json =
            #"{"id":"org.example.quiet","name":"Quiet","version":"1.0.0","library":"libQuiet.so","abi":"1.0","unused_commands":"#
            + unused + "}"
        try Data(json.utf8).write(to: url)
        return try PluginManifest.load(from: url)
    }

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

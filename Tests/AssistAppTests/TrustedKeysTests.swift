import Foundation
import HostTesting
import PluginPackage
import Testing

/// The publishers a user trusts (`~/.config/assist/trusted-keys.d/*.pub`), as `plugins list` and discovery read
/// them: once for all the plugins they describe, and never a file others may write.
@Suite("Trusted keys")
struct TrustedKeysTests {
    /// A `.pub` file for a new key, in `folder`, with `mode`.
    static func publish(_ publisher: String, in folder: TemporaryDirectory, mode: Int = 0o644) throws -> [UInt8] {
        let key = try #require(SigningKey.generate()).publicKey
        let file = folder.path("\(publisher).pub").path
        try PublicKey.line(key, publisher: publisher).write(toFile: file, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        return key
    }

    @Test func theFoldersAreReadOnceForEveryPluginDescribed() throws {
        let folder = try TemporaryDirectory("assist-trusted")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
        let first = try Self.publish("Example Ltd", in: folder)
        let trusted = TrustedKeysOnce(folders: [folder.url])
        #expect(trusted.keys.publisher(of: first) == "Example Ltd")
        // A key added after the first reading is not read again by the same listing; the next one reads it.
        let second = try Self.publish("Other Co", in: folder)
        #expect(trusted.keys.publishers.count == 1)
        #expect(trusted.keys.publisher(of: second) == nil)
        #expect(TrustedKeysOnce(folders: [folder.url]).keys.publisher(of: second) == "Other Co")
    }

    @Test func aKeyFileOthersMayWriteIsNotTrustedAndSaysWhy() throws {
        let folder = try TemporaryDirectory("assist-trusted")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
        let key = try Self.publish("Anyone", in: folder, mode: 0o666)
        let keys = TrustedKeys.load(folders: [folder.url])
        #expect(keys.publisher(of: key) == nil)
        #expect(
            keys.problems == [
                "The trusted key \(folder.path("Anyone.pub").path) is not used: others may write it (chmod go-w \(folder.path("Anyone.pub").path))."
            ])
    }
}

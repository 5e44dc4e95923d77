import Foundation
import HostTesting
import Testing

/// Signed packages (issue 34, docs/security.md): `assist plugins keygen`, `pack --sign`, trusted publishers in
/// trusted-keys.d, and an install that says who vouches for a package, refuses one whose files do not match
/// its signature, and (with plugins.require-signature) one no trusted publisher signed.
@Suite("Signed plugin packages")
struct SignedPackageTests {
    let fixture: PackageFixture
    var key: URL { fixture.home.path("keys/example") }
    var trustedFolder: URL { fixture.home.path("config/assist/trusted-keys.d") }

    init() throws {
        fixture = try PackageFixture()
        try FileManager.default.createDirectory(at: fixture.home.path("keys"), withIntermediateDirectories: true)
    }

    /// A new key for "Example Ltd"; its public line.
    func keygen() throws -> String {
        let made = try fixture.assist(["plugins", "keygen", key.path, "--publisher", "Example Ltd"])
        #expect(made.status == 0, "\(made.standardError)")
        return try String(contentsOf: URL(fileURLWithPath: key.path + ".pub"), encoding: .utf8)
    }

    func signedPackage() throws -> URL {
        let folder = try fixture.plugin(version: "1.0.0", extra: ["author": "Example Ltd"])
        let packed = try fixture.assist([
            "plugins", "pack", folder.path, "--output", fixture.home.path("packages").path, "--sign", key.path,
        ])
        #expect(packed.status == 0, "\(packed.standardError)")
        #expect(packed.lines.first?.contains("Signed with key ") == true, "\(packed.lines)")
        return fixture.home.path("packages/org.example.counter-1.0.0.assist-plugin")
    }

    func trust(_ line: String) throws {
        try FileManager.default.createDirectory(at: trustedFolder, withIntermediateDirectories: true)
        chmod(trustedFolder.path, 0o755)
        try line.write(to: trustedFolder.appendingPathComponent("example.pub"), atomically: true, encoding: .utf8)
        chmod(trustedFolder.appendingPathComponent("example.pub").path, 0o644)
    }

    @Test func aKeyIsMadeOnceKeptPrivateAndASignedPackageNamesItsPublisherOnceTrusted() throws {
        let line = try keygen()
        #expect(line.hasPrefix("assist-ed25519 ") && line.hasSuffix(" Example Ltd\n"), "\(line)")
        let attributes = try FileManager.default.attributesOfItem(atPath: key.path)
        #expect(attributes[.size] as? Int == 32)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let again = try fixture.assist(["plugins", "keygen", key.path, "--publisher", "Someone"])
        #expect(again.status == 73)
        #expect(again.standardError.contains("keys are never overwritten"), "\(again.standardError)")

        let package = try signedPackage()
        // Not trusted yet: signed, by whom nobody here knows.
        let unknown = try fixture.assist(["plugins", "install", package.path], input: "n\n")
        #expect(
            unknown.lines.first?.hasPrefix(
                "Install Counter 1.0.0 for you? It is signed by an unknown publisher (key ") == true,
            "\(unknown.lines)")
        try trust(line)
        let trusted = try fixture.assist(["plugins", "install", package.path], input: "y\n")
        #expect(trusted.status == 0, "\(trusted.standardError)")
        #expect(
            trusted.lines.first
                == "Install Counter 1.0.0 by Example Ltd for you? It is signed by Example Ltd, a publisher you trust. It asks for no camera, microphone or network. Y or N.",
            "\(trusted.lines)")
        #expect(try fixture.listed()?.contains("available; user, signed by Example Ltd (trusted), SHA-256 ") == true)
        #expect(try fixture.runs())
    }

    @Test func aPackageWhoseFilesDoNotMatchItsSignatureIsRefusedWhateverTheSettings() throws {
        let line = try keygen()
        try trust(line)
        let package = try signedPackage()
        // The signature of the real package, put in one whose manifest was changed (its SHA256SUMS made anew).
        let script =
            "import tarfile,sys; print(tarfile.open(sys.argv[1]).extractfile('SIGNATURE').read().decode(), end='')"
        let signature = try ProcessRunner.run("/usr/bin/python3", ["-c", script, package.path]).standardOutput
        #expect(signature.hasPrefix("assist-signature 1\n"), "\(signature)")
        let other = try fixture.plugin(version: "1.0.0", defines: ["FORGED=1"], extra: ["author": "Someone Else"])
        let forged = try fixture.hostile(
            "forged", fixture.entries(of: other) + [["name": "SIGNATURE", "data": signature, "unlisted": true]])
        let refused = try fixture.assist(["plugins", "install", forged.path, "--yes"])
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                "Counter 1.0.0 is refused: its files do not match its signature, so it was changed after it was signed."
            ),
            "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: fixture.installed.path))
        // A signature of the wrong size is a damaged package.
        let garbled = try fixture.hostile(
            "garbled",
            fixture.entries(of: other) + [
                ["name": "SIGNATURE", "data": "assist-signature 1\nkey AAAA\nsignature AAAA\n", "unlisted": true]
            ])
        let damaged = try fixture.assist(["plugins", "install", garbled.path, "--yes"])
        #expect(damaged.status == 1)
        #expect(damaged.standardError.contains("SIGNATURE does not hold"), "\(damaged.standardError)")
    }

    @Test func withASignatureRequiredOnlyATrustedPublishersPackageIsInstalled() throws {
        let line = try keygen()
        try FileManager.default.createDirectory(
            at: fixture.home.path("config/assist"), withIntermediateDirectories: true)
        try "plugins.require-signature = true\n".write(
            to: fixture.home.path("config/assist/config.toml"), atomically: true, encoding: .utf8)
        let unsigned = try fixture.pack(try fixture.plugin(version: "1.0.0"))
        let refused = try fixture.assist(["plugins", "install", unsigned.path, "--yes"])
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains(
                "Counter 1.0.0 is not signed, and this computer installs only packages signed by a trusted publisher (plugins.require-signature)."
            ), "\(refused.standardError)")
        let package = try signedPackage()
        let unknown = try fixture.assist(["plugins", "install", package.path, "--yes"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("is signed by an unknown publisher"), "\(unknown.standardError)")
        // A trusted-keys folder anyone may write vouches for nothing, and says why.
        try trust(line)
        chmod(trustedFolder.path, 0o777)
        let open = try fixture.assist(["plugins", "install", package.path, "--yes"])
        #expect(open.status == 1)
        #expect(open.standardError.contains("others may write that folder (chmod go-w"), "\(open.standardError)")
        chmod(trustedFolder.path, 0o755)
        let installed = try fixture.assist(["plugins", "install", package.path, "--yes"])
        #expect(installed.status == 0, "\(installed.standardError)")
    }

    /// The admin's rules name publishers: a package from a publisher the rules deny is refused before anything
    /// is written; one the rules allow by publisher installs and runs, told without the network the admin
    /// does not let users give.
    @Test func theAdminsRulesAllowAndDenyPackagesByPublisher() throws {
        let line = try keygen()
        try trust(line)
        let rules = fixture.home.path("etc/plugins.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try "deny-publishers = [\"Example Ltd\"]\n".write(
            to: rules.appendingPathComponent("10-deny.toml"), atomically: true, encoding: .utf8)
        chmod(rules.appendingPathComponent("10-deny.toml").path, 0o644)
        let folder = try fixture.plugin(
            version: "1.0.0", extra: ["author": "Example Ltd", "network": ["data.example.org"]])
        _ = try fixture.assist([
            "plugins", "pack", folder.path, "--output", fixture.home.path("packages").path, "--sign", key.path,
        ])
        let package = fixture.home.path("packages/org.example.counter-1.0.0.assist-plugin")
        let denied = try fixture.assist(["plugins", "install", package.path, "--yes"])
        #expect(denied.status == 1)
        #expect(
            denied.standardError.contains(
                "Counter 1.0.0 cannot be installed: your administrator does not allow plugins from Example Ltd ("),
            "\(denied.standardError)")
        #expect(!FileManager.default.fileExists(atPath: fixture.installed.path))

        try FileManager.default.removeItem(at: rules.appendingPathComponent("10-deny.toml"))
        try "allow-publishers = [\"Example Ltd\"]\nuser-may-grant = [\"camera\", \"microphone\"]\n".write(
            to: rules.appendingPathComponent("20-allow.toml"), atomically: true, encoding: .utf8)
        chmod(rules.appendingPathComponent("20-allow.toml").path, 0o644)
        let allowed = try fixture.assist(["plugins", "install", package.path], input: "y\n")
        #expect(allowed.status == 0, "\(allowed.standardError)")
        #expect(
            allowed.lines.first
                == "Install Counter 1.0.0 by Example Ltd for you? It is signed by Example Ltd, a publisher you trust. It asks for the network (data.example.org). Your administrator does not let plugins have the network, so it will not get it. Y or N.",
            "\(allowed.lines)")
        #expect(try fixture.runs())
        // Unsigned, the same plugin is no publisher's: the allow list leaves it out.
        let unsigned = try fixture.pack(try fixture.plugin(version: "1.0.1"))
        let other = try fixture.assist(["plugins", "install", unsigned.path, "--yes"])
        #expect(other.status == 1)
        #expect(
            other.standardError.contains("your administrator allows only the plugins they chose"),
            "\(other.standardError)")
    }

    @Test func aKeyFileOfTheWrongSizeIsRefusedWithWhatToDo() throws {
        try Data("short".utf8).write(to: key)
        let folder = try fixture.plugin(version: "1.0.0")
        let packed = try fixture.assist(["plugins", "pack", folder.path, "--sign", key.path])
        #expect(packed.status == 66)
        #expect(
            packed.standardError.contains(
                "has 5 bytes; an Assist signing key has 32. Make one with assist plugins keygen."),
            "\(packed.standardError)")
    }
}

import Digest
import Foundation

/// A package's signature (docs/security.md): the file `SIGNATURE` beside `SHA256SUMS`, an Ed25519 signature
/// over `SHA256SUMS`, which holds the SHA-256 of every other file, the manifest's included. So a package whose
/// files do not match its signature is refused however it was changed.
///
///     assist-signature 1
///     key <the public key, base64>
///     signature <the signature, base64>
package struct PackageSignature: Sendable, Equatable {
    package static let fileName = "SIGNATURE"
    package var publicKey: [UInt8]
    package var signature: [UInt8]

    /// What is signed: a fixed first line, so the signature means nothing outside a package, then SHA256SUMS.
    package static func message(checksums: Data) -> Data { Data("assist-plugin-signature 1\n".utf8) + checksums }

    /// The key's short name: the first 16 hex digits of its SHA-256.
    package var keyID: String { PublicKey.id(publicKey) }

    /// Reads `SIGNATURE`; a file that is not one is a damaged package.
    package static func parse(_ data: Data) throws(PackageProblem) -> PackageSignature {
        var fields: [String: String] = [:]
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard lines.first == "assist-signature 1" else {
            throw .damaged("SIGNATURE is not an Assist package signature")
        }
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let key = fields["key"].flatMap({ Data(base64Encoded: $0) }), key.count == Ed25519.publicKeySize,
            let signature = fields["signature"].flatMap({ Data(base64Encoded: $0) }),
            signature.count == Ed25519.signatureSize
        else { throw .damaged("SIGNATURE does not hold a 32-byte key and a 64-byte signature") }
        return PackageSignature(publicKey: Array(key), signature: Array(signature))
    }

    /// The file's bytes.
    package var text: Data {
        Data(
            "assist-signature 1\nkey \(Data(publicKey).base64EncodedString())\nsignature \(Data(signature).base64EncodedString())\n"
                .utf8)
    }

    /// True when it signs exactly `checksums`.
    package func verifies(checksums: Data) -> Bool {
        Ed25519.verify(signature, of: Self.message(checksums: checksums), publicKey: publicKey)
    }
}

/// A publisher's public key as a trusted-keys file holds it: one line, `assist-ed25519 <base64> <publisher>`.
package enum PublicKey {
    package static func id(_ key: [UInt8]) -> String { String(SHA256Digest.hex(of: Data(key)).prefix(16)) }

    package static func line(_ key: [UInt8], publisher: String) -> String {
        "assist-ed25519 \(Data(key).base64EncodedString()) \(publisher)\n"
    }

    /// The key and publisher of a `.pub` file's text; nil when it is not one.
    package static func parse(_ text: String) -> (key: [UInt8], publisher: String)? {
        let line = text.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty } ?? ""
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "assist-ed25519", let key = Data(base64Encoded: String(parts[1])),
            key.count == Ed25519.publicKeySize
        else { return nil }
        let publisher = parts.count == 3 ? parts[2].trimmingCharacters(in: .whitespaces) : ""
        return (Array(key), publisher.isEmpty ? "key \(id(Array(key)))" : publisher)
    }
}

/// A signing key: its 32-byte seed, in a file of exactly those bytes (0600), made by `assist plugins keygen`.
package struct SigningKey: Sendable {
    package let seed: [UInt8]
    package let publicKey: [UInt8]

    /// A new key; nil only when the random generator fails.
    package static func generate() -> SigningKey? {
        guard let seed = Ed25519.newSeed(), let key = Ed25519.publicKey(seed: seed) else { return nil }
        return SigningKey(seed: seed, publicKey: key)
    }

    /// Reads a key file; the error is one sentence saying what is wrong and what to do.
    package static func load(_ url: URL) throws(KeyFileProblem) -> SigningKey {
        guard let bytes = try? Data(contentsOf: url) else {
            throw KeyFileProblem(message: "The key file \(url.path) cannot be read.")
        }
        guard bytes.count == Ed25519.seedSize, let key = Ed25519.publicKey(seed: Array(bytes)) else {
            throw KeyFileProblem(
                message:
                    "The key file \(url.path) has \(bytes.count) bytes; an Assist signing key has \(Ed25519.seedSize). Make one with assist plugins keygen."
            )
        }
        return SigningKey(seed: Array(bytes), publicKey: key)
    }

    /// The signature of a package whose SHA256SUMS is `checksums`.
    package func sign(checksums: Data) -> PackageSignature? {
        Ed25519.sign(PackageSignature.message(checksums: checksums), seed: seed).map {
            PackageSignature(publicKey: publicKey, signature: $0)
        }
    }
}

/// A key file that cannot be used, as one sentence.
package struct KeyFileProblem: Error, Sendable {
    package let message: String
}

/// The publishers the user and the admin trust: every `*.pub` file in `/etc/assist/trusted-keys.d/` and
/// `~/.config/assist/trusted-keys.d/`. A folder or file others may write is not used, and says why.
package struct TrustedKeys: Sendable {
    package var publishers: [(key: [UInt8], publisher: String)] = []
    /// Why a folder or file was not used, one sentence each.
    package var problems: [String] = []

    package init() {}

    package static func load(folders: [URL]) -> TrustedKeys {
        var trusted = TrustedKeys()
        for folder in folders {
            var status = stat()
            guard lstat(folder.path, &status) == 0 else { continue }
            guard !writableByOthers(status) else {
                trusted.problems.append(
                    "The trusted keys in \(folder.path) are not used: others may write that folder (chmod go-w \(folder.path))."
                )
                continue
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".pub") {
                let file = folder.appendingPathComponent(name)
                guard lstat(file.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { continue }
                guard !writableByOthers(status) else {
                    trusted.problems.append(
                        "The trusted key \(file.path) is not used: others may write it (chmod go-w \(file.path)).")
                    continue
                }
                guard let text = try? String(contentsOf: file, encoding: .utf8), let entry = PublicKey.parse(text)
                else {
                    trusted.problems.append(
                        "The trusted key \(file.path) is not used: it is not an assist-ed25519 line from assist plugins keygen."
                    )
                    continue
                }
                trusted.publishers.append(entry)
            }
        }
        return trusted
    }

    /// The publisher's name for `key`, or nil when no trusted file holds it.
    package func publisher(of key: [UInt8]) -> String? { publishers.first { $0.key == key }?.publisher }

    private static func writableByOthers(_ status: stat) -> Bool { status.st_mode & (S_IWGRP | S_IWOTH) != 0 }
}

/// The trusted keys read once, when first asked for: discovery and `plugins list` ask for each plugin, and a
/// host with no signed plugin never reads the folders.
package final class TrustedKeysOnce: @unchecked Sendable {  // because: `read` is under `lock`
    private let folders: [URL]
    private let lock = NSLock()
    private var read: TrustedKeys?

    package init(folders: [URL]) { self.folders = folders }

    package var keys: TrustedKeys {
        lock.withLock {
            if let read { return read }
            let loaded = TrustedKeys.load(folders: folders)
            read = loaded
            return loaded
        }
    }
}

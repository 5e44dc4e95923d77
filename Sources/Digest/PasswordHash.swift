import CLibCrypto
import Foundation

/// A secret kept as a salted, slow hash (PBKDF2-HMAC-SHA256 from OpenSSL), written as one line:
/// `pbkdf2-sha256$ITERATIONS$SALT$HASH` with the salt and hash in hexadecimal. The kiosk's admin PIN is kept
/// so: the file that holds it tells nobody the PIN, and guessing one costs each try the iterations.
package struct PasswordHash: Equatable, Sendable {
    package var iterations: Int
    package var salt: [UInt8]
    package var hash: [UInt8]

    /// 200,000 iterations: about 0.1 s on a small machine, once per try.
    package static let defaultIterations = 200_000
    private static let scheme = "pbkdf2-sha256"

    /// Hashes `secret` with a fresh 16-byte salt.
    package static func make(_ secret: String, iterations: Int = defaultIterations) -> PasswordHash {
        var salt = [UInt8](repeating: 0, count: 16)
        precondition(RAND_bytes(&salt, Int32(salt.count)) == 1, "OpenSSL could not give random bytes")
        return PasswordHash(
            iterations: iterations, salt: salt, hash: derive(secret, salt: salt, iterations: iterations))
    }

    /// Reads the one-line form; nil when it is not one.
    package init?(line: String) {
        let parts = line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == Self.scheme, let iterations = Int(parts[1]),
            (1_000...10_000_000).contains(iterations), let salt = Self.bytes(hex: parts[2]), salt.count >= 8,
            let hash = Self.bytes(hex: parts[3]), hash.count == 32
        else { return nil }
        self.init(iterations: iterations, salt: salt, hash: hash)
    }

    package init(iterations: Int, salt: [UInt8], hash: [UInt8]) {
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    /// The one-line form.
    package var line: String {
        "\(Self.scheme)$\(iterations)$\(SHA256Digest.hexadecimal(salt))$\(SHA256Digest.hexadecimal(hash))"
    }

    /// True when `secret` is the one hashed; compared in constant time.
    package func matches(_ secret: String) -> Bool {
        let tried = Self.derive(secret, salt: salt, iterations: iterations)
        return tried.count == hash.count && CRYPTO_memcmp(tried, hash, hash.count) == 0
    }

    private static func derive(_ secret: String, salt: [UInt8], iterations: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let secretBytes = Array(secret.utf8)
        let status = secretBytes.withUnsafeBufferPointer { secretBuffer in
            secretBuffer.withMemoryRebound(to: CChar.self) { chars in
                PKCS5_PBKDF2_HMAC(
                    chars.baseAddress, Int32(chars.count), salt, Int32(salt.count), Int32(iterations), EVP_sha256(),
                    Int32(out.count), &out)
            }
        }
        precondition(status == 1, "PKCS5_PBKDF2_HMAC failed")
        return out
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

extension SHA256Digest {
    /// The digest of the file at `url`, read in 1 MiB pieces, as 64 lowercase hexadecimal digits; nil when it
    /// cannot be read.
    package static func hex(ofFileAt url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var digest = SHA256Digest()
        while true {
            // nil or empty at the end of the file; a read error gives no digest.
            let piece: Data?
            do { piece = try handle.read(upToCount: 1 << 20) } catch { return nil }
            guard let piece, !piece.isEmpty else { break }
            digest.update(data: piece)
        }
        return hexadecimal(digest.finalize())
    }
}

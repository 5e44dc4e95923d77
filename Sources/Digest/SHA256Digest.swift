import CLibCrypto
import Foundation

/// SHA-256 through OpenSSL's EVP interface (libcrypto, on every Debian system): the checksums of downloaded
/// models and the content hashes of photo-sensor's index. Feed it with `update`, read it once with `finalize`.
package struct SHA256Digest: ~Copyable {
    private let context: OpaquePointer

    package init() {
        // Allocation is the only way these fail; there is no SHA-256 without memory.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("OpenSSL could not start a SHA-256 digest (out of memory)")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `data` to what is hashed.
    package mutating func update(data: Data) {
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "EVP_DigestUpdate failed")
        }
    }

    /// The 32 bytes of the digest; the value is used up.
    package consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32, "EVP_DigestFinal_ex failed")
        return Array(digest.prefix(Int(length)))
    }

    /// The digest of `data` as 64 lowercase hexadecimal digits.
    package static func hex(of data: Data) -> String {
        var digest = SHA256Digest()
        digest.update(data: data)
        return hexadecimal(digest.finalize())
    }

    /// Bytes as lowercase hexadecimal digits, two a byte.
    package static func hexadecimal(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

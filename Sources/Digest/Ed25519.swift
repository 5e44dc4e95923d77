import CLibCrypto
import Foundation

/// Ed25519 through OpenSSL's EVP interface (libcrypto): the signatures of plugin packages
/// (docs/security.md). A private key is its 32-byte seed; a public key 32 bytes; a signature 64.
package enum Ed25519 {
    package static let seedSize = 32
    package static let publicKeySize = 32
    package static let signatureSize = 64

    /// 32 bytes from OpenSSL's random generator, for a new key.
    package static func newSeed() -> [UInt8]? {
        var seed = [UInt8](repeating: 0, count: seedSize)
        return RAND_bytes(&seed, Int32(seedSize)) == 1 ? seed : nil
    }

    /// The public key of `seed`; nil for a seed that is not 32 bytes.
    package static func publicKey(seed: [UInt8]) -> [UInt8]? {
        guard seed.count == seedSize, let key = EVP_PKEY_new_raw_private_key(NID_ED25519, nil, seed, seed.count)
        else { return nil }
        defer { EVP_PKEY_free(key) }
        var out = [UInt8](repeating: 0, count: publicKeySize)
        var length = publicKeySize
        guard EVP_PKEY_get_raw_public_key(key, &out, &length) == 1, length == publicKeySize else { return nil }
        return out
    }

    /// `message` signed with `seed`; nil for a seed that is not 32 bytes.
    package static func sign(_ message: Data, seed: [UInt8]) -> [UInt8]? {
        guard seed.count == seedSize, let key = EVP_PKEY_new_raw_private_key(NID_ED25519, nil, seed, seed.count),
            let context = EVP_MD_CTX_new()
        else { return nil }
        defer {
            EVP_MD_CTX_free(context)
            EVP_PKEY_free(key)
        }
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: signatureSize)
        var length = signatureSize
        let signed = message.withUnsafeBytes { bytes in
            EVP_DigestSign(
                context, &signature, &length, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
        }
        return signed == 1 && length == signatureSize ? signature : nil
    }

    /// True when `signature` is `publicKey`'s over `message`.
    package static func verify(_ signature: [UInt8], of message: Data, publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureSize, publicKey.count == publicKeySize,
            let key = EVP_PKEY_new_raw_public_key(NID_ED25519, nil, publicKey, publicKey.count),
            let context = EVP_MD_CTX_new()
        else { return false }
        defer {
            EVP_MD_CTX_free(context)
            EVP_PKEY_free(key)
        }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        return message.withUnsafeBytes { bytes in
            EVP_DigestVerify(
                context, signature, signature.count, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count) == 1
        }
    }
}

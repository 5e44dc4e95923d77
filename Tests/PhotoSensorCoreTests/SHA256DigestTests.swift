import Digest
import Foundation
import Testing

/// SHA-256 through OpenSSL: FIPS 180-2's test vectors, fed whole and in pieces.
@Suite("SHA-256 digests")
struct SHA256DigestTests {
    @Test func theStandardVectorsMatch() {
        #expect(
            SHA256Digest.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256Digest.hex(of: Data("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256Digest.hex(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func piecesOfAnyLengthGiveTheWholeDigest() {
        // One million "a": the third vector of FIPS 180-2, fed in pieces of uneven lengths.
        var digest = SHA256Digest()
        var left = 1_000_000
        var piece = 1
        while left > 0 {
            let count = min(piece, left)
            digest.update(data: Data(repeating: UInt8(ascii: "a"), count: count))
            left -= count
            piece = piece * 3 + 1
        }
        digest.update(data: Data())
        #expect(
            SHA256Digest.hexadecimal(digest.finalize())
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

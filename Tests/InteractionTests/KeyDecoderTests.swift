import Interaction
import Testing

@Suite("Key decoding")
struct KeyDecoderTests {
    @Test(
        arguments: [
            ([0x1B, 0x5B, 0x41], Key.up), ([0x1B, 0x5B, 0x44], .left), ([0x1B, 0x4F, 0x50], .function(1)),
            ([0x1B, 0x5B, 0x31, 0x35, 0x7E], .function(5)), ([0x1B, 0x5B, 0x33, 0x7E], .delete),
            ([0x13], .control("s")),
            ([0x20], .space), ([0x0D], .enter), ([0x7F], .backspace), ([0xD1, 0x8F], .character("я")),
        ] as [([UInt8], Key)])
    func decodesSequences(bytes: [UInt8], key: Key) {
        var decoder = KeyDecoder()
        #expect(decoder.feed(bytes) == [key])
        #expect(!decoder.isHolding)
    }

    @Test func aLoneEscapeWaitsForFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]).isEmpty)
        #expect(decoder.isHolding)
        #expect(decoder.flush() == [.escape])
    }

    @Test func splitSequencesJoin() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B, 0x5B]).isEmpty)
        #expect(decoder.feed([0x43, 0x61]) == [.right, .character("a")])
        #expect(decoder.feed([0xE4, 0xBD]).isEmpty)
        #expect(decoder.feed([0xA0]) == [.character("你")])
    }

    @Test(arguments: [
        ("ctrl+s", Key.control("s")), ("space", .space), ("F5", .function(5)), ("w", .character("w")), ("Left", .left),
    ])
    func keyNames(name: String, key: Key) {
        #expect(Key(name: name) == key)
        #expect(Key(name: key.description) == key)
    }

    @Test func unknownKeyNamesAreRejected() {
        #expect(Key(name: "hyper+x") == nil)
        #expect(Key(name: "f13") == nil)
    }
}

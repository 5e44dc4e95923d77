import Camera
import Testing

@Suite("Frame memory")
struct FrameMemoryTests {
    /// Frames of one size come 30 a second: the memory of one that is gone is the next one's, already touched,
    /// rather than a fresh mapping faulted in page by page; memory a frame still views is never handed out.
    @Test func aFramesMemoryIsTakenAgainByTheNextFrameOfItsSize() {
        let size = 1_234_567  // a size no other test makes, so that tests running beside this one take none
        var first: FrameStorage? = FrameStorage(capacity: size)
        let address = first?.bytes
        let held = FrameStorage(capacity: size)
        #expect(held.bytes != address)
        // As if a converter had written past the last pixel: the next frame's padding must be zero again.
        (first?.bytes)?.initializeMemory(as: UInt8.self, repeating: 0xAB, count: size + FrameStorage.readPadding)
        first = nil
        let next = FrameStorage(capacity: size)
        // Sanitizer builds give every block back to the allocator they watch (which may or may not hand it out
        // again at once).
        if FrameStorage.reusesMemory { #expect(next.bytes == address) }
        #expect(next.bytes != held.bytes)
        let padding = (0..<FrameStorage.readPadding).map { next.bytes.load(fromByteOffset: size + $0, as: UInt8.self) }
        #expect(padding.allSatisfy { $0 == 0 })
    }
}

import Foundation
import HostTesting
import OCR
import Testing

/// Photo files from outside, as read-text's reader meets them.
@Suite("Photo files read by read-text")
struct PhotoFileTests {
    /// Found by the `photo` fuzz target: 276 bytes whose ancillary chunk claims 1.9 GB, which libpng allocated
    /// (and Leptonica let it) before reading. It must be refused before libpng sees it.
    @Test func aPNGWhoseChunkClaimsMoreThanTheFileIsRefused() throws {
        let url = BuildProducts.packageRoot.appendingPathComponent(
            "Tests/Fuzz/regressions/photo/png-chunk-claims-1.9GB.png")
        #expect {
            _ = try TesseractEngine.loadGray(url)
        } throws: { error in
            (error as? OCRError)?.message.hasSuffix("cannot be read: it is damaged or cut short.") == true
        }
    }

    @Test func aWholePNGIsStillRead() throws {
        let folder = try TemporaryDirectory("assist-photo-files")
        let url = folder.path("page.png")
        try PageRenderer(width: 400, height: 200).render([.init(["Fine"], x: 40, y: 80)], to: url)
        let photo = try TesseractEngine.loadGray(url)
        #expect(photo.width == 400 && photo.height == 200 && photo.pixels.count == 80_000)
    }
}

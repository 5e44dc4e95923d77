import Foundation
import HostTesting
import OCR
import Testing

/// Photo files from outside, as read-text's reader meets them.
@Suite("Photo files read by read-text")
struct PhotoFileTests {
    /// Pictures decoded on many threads at once (a document's pages, two sessions in one process) give standard
    /// error back as it was: each decoding parks it on /dev/null while libpng may print, and the old code, each
    /// swapping it for itself, could keep the null device another had put there for the rest of the process.
    @Test func standardErrorComesBackAfterDecodingsOnManyThreadsAtOnce() throws {
        // Other suites in this process may be decoding a photo now, with standard error parked: the copy is of
        // the one the process has, or gets back when they end, before and after alike.
        let mine = LeptonicaMessages.standardErrorCopy()
        try #require(mine >= 0)
        defer { close(mine) }
        var before = stat()
        fstat(mine, &before)
        // Eight threads, each decoding twenty times, their lengths drawn so that they overlap every which way.
        let group = DispatchGroup()
        for thread in 0..<8 {
            group.enter()
            Thread {
                for round in 0..<20 {
                    _ = LeptonicaMessages.quietly { usleep(UInt32((thread * 20 + round) * 7919 % 2000)) }
                }
                group.leave()
            }.start()
        }
        group.wait()
        let now = LeptonicaMessages.standardErrorCopy()
        try #require(now >= 0)
        defer { close(now) }
        var after = stat()
        fstat(now, &after)
        let same = after.st_dev == before.st_dev && after.st_ino == before.st_ino
        // Put it back when it was lost, so the failure is still reported on standard error.
        if !same { dup2(mine, 2) }
        #expect(same, "standard error left elsewhere")
    }

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

import Camera
import Foundation
import HostTesting
import Testing

/// Picture, folder and video sources on real files made by ImageMagick and FFmpeg's command-line tools.
@Suite("Picture, folder and video sources")
struct FileSourceTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory("assist-files")
    }

    /// A 160x120 picture: left half red, right half blue.
    func halves(_ name: String) throws -> URL {
        let url = folder.path(name)
        let result = try ProcessRunner.run(
            "/usr/bin/convert",
            ["-size", "80x120", "xc:#ff0000", "-size", "80x120", "xc:#0000ff", "+append", url.path])
        try #require(result.status == 0, "\(result.standardError)")
        return url
    }

    /// The BGR value at (x, y) of a BGR24 frame.
    static func pixel(_ frame: Frame, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let at = frame.pixels.assumingMemoryBound(to: UInt8.self) + y * frame.stride + x * 3
        return (Int(at[0]), Int(at[1]), Int(at[2]))
    }

    @Test(arguments: ["halves.png", "halves.jpg", "halves.bmp"])
    func picturesDecodeToBGRAndRepeatWithNewSequenceNumbers(name: String) throws {
        let source = try ImageSource(url: try halves(name), framesPerSecond: 100)
        let first = try #require(try source.next())
        let second = try #require(try source.next())
        #expect(first.width == 160 && first.height == 120 && first.format == .bgr24)
        let left = Self.pixel(first, 20, 60)
        let right = Self.pixel(first, 140, 60)
        #expect(left.0 < 30 && left.2 > 220, "red on the left: \(left)")
        #expect(right.0 > 220 && right.2 < 30, "blue on the right: \(right)")
        #expect(second.sequence == first.sequence + 1 && second.storage === first.storage)
        #expect(second.timestampNs > first.timestampNs)
    }

    @Test func aFolderPlaysInNameOrderSkipsDamagedPicturesAndEnds() throws {
        let pictures = folder.path("seq")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        for (index, colour) in ["#ff0000", "#00ff00", "#0000ff"].enumerated() {
            _ = try ProcessRunner.run(
                "/usr/bin/convert",
                ["-size", "64x48", "xc:\(colour)", pictures.appendingPathComponent("f\(index * 5).png").path])
        }
        try folder.write("seq/f7.jpg", "not a picture")
        let source = try DirectorySource(url: pictures, framesPerSecond: 200)
        let skipped = Skips()
        source.onSkip = { skipped.add($0) }
        var colours: [(Int, Int, Int)] = []
        while let frame = try source.next() { colours.append(Self.pixel(frame, 10, 10)) }
        #expect(colours.count == 3, "f0, f5, f10 in natural order, the damaged f7 skipped")
        #expect(colours.map { $0.2 > 200 } == [true, false, false] && colours[2].0 > 200)
        #expect(skipped.lines == ["The picture f7.jpg is damaged; skipped."])
    }

    @Test(arguments: [("clip.mp4", "mpeg4"), ("clip.avi", "mjpeg"), ("clip.mkv", "ffv1")])
    func videosDecodeEveryFrame(name: String, codec: String) throws {
        let url = folder.path(name)
        let made = try ProcessRunner.run(
            "/usr/bin/ffmpeg",
            [
                "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-frames:v", "12",
                "-c:v", codec,
                url.path,
            ])
        try #require(made.status == 0, "\(made.standardError)")
        let source = try VideoSource(url: url, framesPerSecond: 500)
        #expect(source.width == 320 && source.height == 240)
        var count = 0
        var last: UInt64?
        while let frame = try source.next() {
            if let last { #expect(frame.sequence == last + 1) }
            last = frame.sequence
            count += 1
        }
        #expect(count == 12)
    }

    @Test func damagedOrMissingFilesGiveOneClearMessage() throws {
        let text = try folder.write("fake.mp4", "this is not a video")
        #expect(throws: CameraError.self) { try VideoSource(url: text) }
        do {
            _ = try ImageSource(url: folder.path("missing.png"))
            Issue.record("a missing picture opened")
        } catch let error as CameraError {
            #expect(
                error.message
                    == "The picture source \(folder.path("missing.png").path) cannot be used: it does not exist or cannot be read."
            )
        }
        let empty = folder.path("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: CameraError.self) { try DirectorySource(url: empty) }
    }
}

final class Skips: @unchecked Sendable {  // because: guarded by `lock`
    private let lock = NSLock()
    private var stored: [String] = []
    func add(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}

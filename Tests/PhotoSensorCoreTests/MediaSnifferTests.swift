import Foundation
import HostTesting
import PhotoSensorCore
import Testing

/// Content sniffing on real files made now by ImageMagick and ffmpeg, as cameras and phones write them.
@Suite("photo-sensor media sniffing")
struct MediaSnifferTests {
    static func header(_ url: URL) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return Array(try handle.read(upToCount: MediaSniffer.headerBytes) ?? Data())
    }

    @Test func realImagesAreKnownByTheirBytes() throws {
        let folder = try TemporaryDirectory("assist-sniff-images")
        let expected: [(String, MediaFormat)] = [
            ("a.jpg", .jpeg), ("a.png", .png), ("a.gif", .gif), ("a.webp", .webp), ("a.tif", .tiff), ("a.bmp", .bmp),
        ]
        for (name, format) in expected {
            let url = folder.path(name)
            let made = try ProcessRunner.run("/usr/bin/convert", ["-size", "32x24", "xc:orange", url.path])
            try #require(made.status == 0, "\(made.standardError)")
            #expect(MediaSniffer.sniff(try Self.header(url)) == format, "\(name)")
        }
    }

    @Test func realVideosAndSoundsAreKnownByTheirBytes() throws {
        guard let ffmpeg = ProcessRunner.which("ffmpeg") else { return }
        let folder = try TemporaryDirectory("assist-sniff-media")
        let cases: [(String, [String], MediaFormat)] = [
            ("v.mp4", ["-f", "lavfi", "-i", "testsrc=size=64x48:duration=0.2", "-pix_fmt", "yuv420p"], .isoVideo),
            ("v.mkv", ["-f", "lavfi", "-i", "testsrc=size=64x48:duration=0.2"], .matroska),
            ("v.avi", ["-f", "lavfi", "-i", "testsrc=size=64x48:duration=0.2"], .avi),
            ("s.wav", ["-f", "lavfi", "-i", "sine=duration=0.2"], .wave),
            ("s.flac", ["-f", "lavfi", "-i", "sine=duration=0.2"], .flac),
            ("s.m4a", ["-f", "lavfi", "-i", "sine=duration=0.2", "-c:a", "aac"], .isoAudio),
            ("s.ogg", ["-f", "lavfi", "-i", "sine=duration=0.2", "-c:a", "libvorbis"], .ogg),
        ]
        for (name, arguments, format) in cases {
            let url = folder.path(name)
            let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y"] + arguments + [url.path])
            guard made.status == 0 else {
                Issue.record("ffmpeg could not make \(name): \(made.standardError)")
                continue
            }
            #expect(MediaSniffer.sniff(try Self.header(url)) == format, "\(name)")
        }
    }

    @Test func contentWinsOverTheName() throws {
        let folder = try TemporaryDirectory("assist-sniff-names")
        let disguised = folder.path("holiday.txt")
        #expect(
            try ProcessRunner.run("/usr/bin/convert", ["-size", "8x8", "xc:blue", "jpg:" + disguised.path]).status == 0)
        #expect(
            MediaSniffer.classify(name: "holiday.txt", header: try Self.header(disguised), includeAudio: false) == .jpeg
        )
        #expect(
            MediaSniffer.classify(name: "fake.jpg", header: Array("not a picture".utf8), includeAudio: false) == nil)
        #expect(MediaSniffer.classify(name: "empty.jpg", header: [], includeAudio: false) == nil)
    }

    @Test func partialHiddenAndTemporaryNamesAreNeverLookedAt() {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]
        for name in [
            ".hidden.jpg", "photo.jpg~", "photo.jpg.part", "a.partial", "b.crdownload", "c.download",
            "d.tmp", "e.swp", ".goutputstream-X1",
        ] {
            #expect(MediaSniffer.classify(name: name, header: jpeg, includeAudio: true) == nil, "\(name)")
        }
        #expect(MediaSniffer.classify(name: "photo.jpg", header: jpeg, includeAudio: false) == .jpeg)
    }

    @Test func soundIsRecordedOnlyWithIncludeAudio() {
        let wave = Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)
        #expect(MediaSniffer.classify(name: "a.wav", header: wave, includeAudio: false) == nil)
        #expect(MediaSniffer.classify(name: "a.wav", header: wave, includeAudio: true) == .wave)
        #expect(MediaSniffer.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}XXXX".utf8)) == nil, "an unknown RIFF form")
    }

    @Test func isoBrandsDecideImageVideoOrSound() {
        func box(_ brand: String) -> [UInt8] { [0, 0, 0, 24] + Array("ftyp\(brand)".utf8) + [0, 0, 0, 0] }
        #expect(MediaSniffer.sniff(box("heic")) == .heif)
        #expect(MediaSniffer.sniff(box("mif1")) == .heif)
        #expect(MediaSniffer.sniff(box("avif")) == .avif)
        #expect(MediaSniffer.sniff(box("M4A ")) == .isoAudio)
        #expect(MediaSniffer.sniff(box("qt  ")) == .isoVideo)
        #expect(MediaSniffer.sniff(box("3gp4")) == .isoVideo)
    }

    @Test func inotifyRecordsAreReadWithoutTrustingTheirLength() {
        var bytes: [UInt8] = []
        func record(_ wd: Int32, _ mask: UInt32, _ cookie: UInt32, _ name: String, pad: Int) {
            for value in [UInt32(bitPattern: wd), mask, cookie, UInt32(name.utf8.count + pad)] {
                withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
            }
            bytes += Array(name.utf8) + [UInt8](repeating: 0, count: pad)
        }
        record(1, 0x8, 0, "a.jpg", pad: 3)
        record(2, 0x80, 7, "b.png", pad: 11)
        let parsed = InotifyEvents.parse(bytes)
        // wd, mask, cookie and name of each.
        #expect(parsed.map { "\($0.wd) \($0.mask) \($0.cookie) \($0.name)" } == ["1 8 0 a.jpg", "2 128 7 b.png"])
        // A length running past the end stops the walk instead of reading beyond.
        var truncated = bytes
        truncated[12] = 0xFF
        #expect(InotifyEvents.parse(truncated).isEmpty)
        #expect(InotifyEvents.parse(bytes.prefix(20)).count == 0)
    }
}

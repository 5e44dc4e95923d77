import Foundation
import HostTesting
import PhotoSensorCore
import Testing

/// Sizes, rotations, dates and durations (spec §3.12–3.14) from real files made now by ImageMagick and ffmpeg,
/// EXIF blocks as cameras write them, and damaged files that must give a plain 0×0 rather than a crash.
@Suite("photo-sensor media details")
struct MediaDetailsTests {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("assist-media-details") }

    func convert(_ arguments: [String], _ name: String) throws -> String {
        let path = folder.path(name).path
        let made = try ProcessRunner.run("/usr/bin/convert", arguments + [path])
        try #require(made.status == 0, "\(made.standardError)")
        return path
    }

    func ffmpeg(_ arguments: [String], _ name: String) throws -> String? {
        guard let ffmpeg = ProcessRunner.which("ffmpeg") else { return nil }
        let path = folder.path(name).path
        let made = try ProcessRunner.run(ffmpeg, ["-v", "error", "-y"] + arguments + [path])
        try #require(made.status == 0, "\(made.standardError)")
        return path
    }

    @Test func everyStillFormatGivesItsSize() throws {
        let cases: [(String, MediaFormat)] = [
            ("a.jpg", .jpeg), ("a.png", .png), ("a.gif", .gif), ("a.webp", .webp), ("a.tif", .tiff),
            ("a.bmp", .bmp), ("a.heic", .heif), ("a.avif", .avif),
        ]
        for (name, format) in cases {
            let path = try convert(["-size", "320x200", "gradient:red-blue"], name)
            let details = MediaDetails.read(path, format: format)
            #expect(details.readable && details.width == 320 && details.height == 200, "\(name): \(details)")
            #expect(details.duration == 0 && details.takenMs == nil, "\(name)")
        }
    }

    /// A JPEG with an EXIF block spliced in after its SOI marker, as a camera writes it.
    func photo(orientation: UInt16?, date: String?, offset: String?, name: String = "p.jpg") throws -> String {
        let path = try convert(["-size", "400x300", "xc:green"], name)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let segment = ExifBlock.app1(orientation: orientation, date: date, offset: offset)
        bytes.insert(contentsOf: segment, at: 2)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func exifOrientationsFiveToEightSwapTheSize() throws {
        for orientation in UInt16(1)...8 {
            let details = MediaDetails.read(
                try photo(orientation: orientation, date: nil, offset: nil, name: "o\(orientation).jpg"), format: .jpeg)
            let turned = orientation >= 5
            #expect(
                details.width == (turned ? 300 : 400) && details.height == (turned ? 400 : 300),
                "orientation \(orientation): \(details)")
        }
    }

    @Test func theOriginalDateWithItsOffsetIsTheCreationTime() throws {
        // 2024-05-17 08:30:15 at +05:30 is 03:00:15 UTC.
        let withOffset = MediaDetails.read(
            try photo(orientation: 1, date: "2024:05:17 08:30:15", offset: "+05:30", name: "d1.jpg"), format: .jpeg)
        #expect(withOffset.takenMs == 1_715_914_815_000, "\(withOffset)")
        // Without an offset the local time zone applies.
        let local = try #require(
            MediaDetails.read(
                try photo(orientation: nil, date: "2024:05:17 08:30:15", offset: nil, name: "d2.jpg"),
                format: .jpeg
            ).takenMs)
        let expected = MediaDetails.takenMs(date: "2024:05:17 08:30:15", offset: "", zone: .current)
        #expect(local == expected)
        // The date cameras write when their clock was never set: nil, so the mtime is used.
        let unset = MediaDetails.read(
            try photo(orientation: 6, date: "0000:00:00 00:00:00", offset: nil, name: "d3.jpg"), format: .jpeg)
        #expect(unset.takenMs == nil && unset.width == 300)
    }

    @Test func exifDatesAreReadStrictly() {
        let utc = TimeZone(identifier: "UTC")!
        #expect(MediaDetails.takenMs(date: "2024:05:17 08:30:15", offset: "", zone: utc) == 1_715_934_615_000)
        #expect(MediaDetails.takenMs(date: "2024:05:17 08:30:15", offset: "-03:00", zone: utc) == 1_715_945_415_000)
        for bad in [
            "0000:00:00 00:00:00", "2024:02:30 10:00:00", "2024:13:01 10:00:00", "2024-05-17 08:30:15",
            "    :  :     :  :  ", "2024:05:17", "", "2024:05:17 25:00:00",
        ] {
            #expect(MediaDetails.takenMs(date: bad, offset: "", zone: utc) == nil, "\(bad)")
        }
        // A malformed offset is ignored (local time), never a wrong shift.
        #expect(MediaDetails.takenMs(date: "2024:05:17 08:30:15", offset: "+5:30", zone: utc) == 1_715_934_615_000)
    }

    @Test func videosGiveTheirDisplayedSizeAndDuration() throws {
        guard
            let plain = try ffmpeg(
                ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=2", "-pix_fmt", "yuv420p"], "v.mp4"),
            let turned = try ffmpeg(
                ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=2", "-pix_fmt", "yuv420p"], "turned.mp4"),
            let ogv = try ffmpeg(
                ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1.5", "-c:v", "libtheora"], "v.ogv"),
            let vorbis = try ffmpeg(["-f", "lavfi", "-i", "sine=duration=1.5", "-c:a", "libvorbis"], "s.ogg"),
            let wave = try ffmpeg(["-f", "lavfi", "-i", "sine=duration=1.25"], "s.wav")
        else { return }
        let video = MediaDetails.read(plain, format: .isoVideo)
        #expect(video.width == 320 && video.height == 240 && abs(video.duration - 2) < 0.05, "\(video)")
        try Self.turnQuarter(turned)
        let rotated = MediaDetails.read(turned, format: .isoVideo)
        #expect(rotated.width == 240 && rotated.height == 320, "a phone held upright: \(rotated)")
        let theora = MediaDetails.read(ogv, format: .ogg)
        #expect(theora.hasVideo && theora.width == 160 && abs(theora.duration - 1.5) < 0.1, "\(theora)")
        let sound = MediaDetails.read(vorbis, format: .ogg)
        #expect(!sound.hasVideo && sound.width == 0 && abs(sound.duration - 1.5) < 0.1, "\(sound)")
        let wav = MediaDetails.read(wave, format: .wave)
        #expect(wav.width == 0 && wav.height == 0 && abs(wav.duration - 1.25) < 0.01, "\(wav)")
    }

    /// Writes a 90° display matrix into the video track's `tkhd`, as a phone held upright does.
    static func turnQuarter(_ path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let name = Array("tkhd".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == name })
        #expect(bytes[at + 4] == 0, "version 0 tkhd")
        let matrix: [UInt32] = [0, 0x0001_0000, 0, 0xFFFF_0000, 0, 0, 0, 0, 0x4000_0000]
        for (index, value) in matrix.enumerated() {
            for byte in 0..<4 { bytes[at + 4 + 40 + index * 4 + byte] = UInt8(value >> (24 - 8 * UInt32(byte)) & 0xFF) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func damagedFilesGiveNothingRatherThanNonsense() throws {
        // A JPEG cut after its first kilobyte, a PNG whose IHDR claims 0×0, a file of zeros named .png.
        let whole = try convert(["-size", "640x480", "plasma:"], "whole.jpg")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = folder.path("cut.jpg")
        try bytes.prefix(1024).write(to: cut)
        _ = MediaDetails.read(cut.path, format: .jpeg)  // the size may survive the cut; it must not crash

        let png = try convert(["-size", "64x48", "xc:white"], "lying.png")
        var pngBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        for index in 16..<24 { pngBytes[index] = 0 }  // IHDR width and height
        try Data(pngBytes).write(to: URL(fileURLWithPath: png))
        let lying = MediaDetails.read(png, format: .png)
        #expect(!lying.readable && lying.width == 0 && lying.height == 0, "\(lying)")

        let zeros = folder.path("zeros.png")
        try Data(count: 4096).write(to: zeros)
        #expect(!MediaDetails.read(zeros.path, format: .png).readable)
        #expect(!MediaDetails.read(folder.path("gone.jpg").path, format: .jpeg).readable)
    }
}

/// An EXIF APP1 segment (big-endian TIFF) with IFD0 Orientation and an Exif IFD holding DateTimeOriginal and
/// OffsetTimeOriginal, laid out as cameras do.
enum ExifBlock {
    static func app1(orientation: UInt16?, date: String?, offset: String?) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value & 0xFFFF) }
        var ifd0: [(tag: Int, type: Int, count: Int, value: [UInt8])] = []
        if let orientation { ifd0.append((0x0112, 3, 1, u16(Int(orientation)) + [0, 0])) }
        var exif: [(tag: Int, type: Int, count: Int, text: [UInt8])] = []
        if let date { exif.append((0x9003, 2, date.utf8.count + 1, Array(date.utf8) + [0])) }
        if let offset { exif.append((0x9011, 2, offset.utf8.count + 1, Array(offset.utf8) + [0])) }
        let hasExif = !exif.isEmpty
        let ifd0Count = ifd0.count + (hasExif ? 1 : 0)
        let ifd0Size = 2 + ifd0Count * 12 + 4
        let exifStart = 8 + ifd0Size
        let exifSize = 2 + exif.count * 12 + 4
        var tiff: [UInt8] = Array("MM".utf8) + u16(42) + u32(8)
        tiff += u16(ifd0Count)
        for entry in ifd0 { tiff += u16(entry.tag) + u16(entry.type) + u32(entry.count) + entry.value }
        if hasExif { tiff += u16(0x8769) + u16(4) + u32(1) + u32(exifStart) }
        tiff += u32(0)
        var data: [UInt8] = []
        var dataOffset = exifStart + exifSize
        if hasExif {
            tiff += u16(exif.count)
            for entry in exif {
                tiff += u16(entry.tag) + u16(entry.type) + u32(entry.count)
                if entry.text.count <= 4 {
                    tiff += entry.text + [UInt8](repeating: 0, count: 4 - entry.text.count)
                } else {
                    tiff += u32(dataOffset)
                    data += entry.text
                    dataOffset += entry.text.count
                }
            }
            tiff += u32(0)
        }
        let payload = Array("Exif".utf8) + [0, 0] + tiff + data
        return [0xFF, 0xE1] + u16(payload.count + 2) + payload
    }
}

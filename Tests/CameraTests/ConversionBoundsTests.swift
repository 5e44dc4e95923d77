import Foundation
import HostTesting
import Testing

@testable import Camera

/// swscale writes whole SIMD blocks and ran up to 9 bytes past a tightly packed BGR24 buffer (a 1261-pixel
/// wide picture: heap corruption in `assist run read-text`). Every picture decode and every conversion is
/// checked here against a guard region right after the caller's buffer, and pixel by pixel, for many widths.
@Suite("Picture decoding and conversion stay inside their buffers")
struct ConversionBoundsTests {
    let folder: TemporaryDirectory
    static let guardBytes = 4096
    static let guardValue: UInt8 = 0xA5
    /// Odd widths, widths around SIMD block sizes, and the sample picture's 1261.
    static let widths = Array(1...40) + [47, 63, 64, 65, 95, 127, 128, 129, 255, 257, 333, 1261, 1921]

    init() throws {
        folder = try TemporaryDirectory("assist-bounds")
    }

    /// The RGB byte at (x, y), channel c, of the test pattern: distinct along rows and columns.
    static func value(_ x: Int, _ y: Int, _ c: Int) -> UInt8 { UInt8(truncatingIfNeeded: x * 7 + y * 13 + c * 85 + 1) }

    /// A binary PPM (RGB) of the pattern, which FFmpeg decodes losslessly.
    func ppm(width: Int, height: Int) throws -> URL {
        var data = Data("P6\n\(width) \(height)\n255\n".utf8)
        for y in 0..<height { for x in 0..<width { for c in 0..<3 { data.append(Self.value(x, y, c)) } } }
        let url = folder.path("w\(width)x\(height).ppm")
        try data.write(to: url)
        return url
    }

    /// A buffer of `capacity` bytes followed by a guard region, both filled with the guard value.
    final class Guarded {
        let capacity: Int
        let bytes: UnsafeMutableRawPointer
        init(capacity: Int) {
            self.capacity = capacity
            bytes = .allocate(byteCount: capacity + ConversionBoundsTests.guardBytes, alignment: 1)
            bytes.initializeMemory(
                as: UInt8.self, repeating: ConversionBoundsTests.guardValue,
                count: capacity + ConversionBoundsTests.guardBytes)
        }
        deinit { bytes.deallocate() }
        /// How many guard bytes were changed.
        var guardWrites: Int {
            let tail = (bytes + capacity).assumingMemoryBound(to: UInt8.self)
            return (0..<ConversionBoundsTests.guardBytes).filter { tail[$0] != ConversionBoundsTests.guardValue }.count
        }
        subscript(offset: Int) -> UInt8 { bytes.load(fromByteOffset: offset, as: UInt8.self) }
    }

    @Test(arguments: [1, 2, 7])
    func decodingWritesEveryPixelAndNothingPastTheBuffer(height: Int) throws {
        for width in Self.widths {
            let file = try MediaFile(url: try ppm(width: width, height: height))
            let buffer = Guarded(capacity: width * 3 * height)
            _ = try #require(try file.nextPicture(into: buffer.bytes, stride: width * 3, capacity: buffer.capacity))
            #expect(buffer.guardWrites == 0, "\(width)x\(height): \(buffer.guardWrites) bytes written past the end")
            var wrong = 0
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<3 where buffer[y * width * 3 + x * 3 + c] != Self.value(x, y, 2 - c) { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(width)x\(height): \(wrong) bytes differ from the picture (BGR of its RGB)")
        }
    }

    /// JPEG decodes to YUV 4:2:0, the path the sample picture took when swscale wrote past its buffer.
    @Test func jpegPicturesOfManyWidthsWriteTheirLastColumnAndNothingPastTheBuffer() throws {
        let height = 8  // an even height: a height of 7 did not show the overflow
        for width in [1, 2, 3, 5, 7, 9, 15, 17, 31, 33, 63, 65, 127, 129, 1261, 1921] {
            let url = folder.path("light\(width).jpg")
            let made = try ProcessRunner.run(
                "/usr/bin/convert",
                [
                    "-size", "\(width)x\(height)", "xc:#f8f8f8", "-type", "TrueColor", "-sampling-factor", "2x2",
                    url.path,
                ])
            try #require(made.status == 0, "\(made.standardError)")
            let file = try MediaFile(url: url)
            let buffer = Guarded(capacity: width * 3 * height)
            _ = try #require(try file.nextPicture(into: buffer.bytes, stride: width * 3, capacity: buffer.capacity))
            #expect(buffer.guardWrites == 0, "\(width)x\(height): \(buffer.guardWrites) bytes written past the end")
            let unwritten = (0..<height).filter { buffer[$0 * width * 3 + (width - 1) * 3] < 240 }
            #expect(unwritten.isEmpty, "\(width)x\(height): the right-most pixel of rows \(unwritten) is not light")
        }
    }

    @Test func aShortBufferIsRefusedWithAReasonAndLeftAlone() throws {
        let file = try MediaFile(url: try ppm(width: 33, height: 5))
        let buffer = Guarded(capacity: 33 * 3 * 5 - 1)
        #expect(throws: CameraError.self) {
            try file.nextPicture(into: buffer.bytes, stride: 33 * 3, capacity: buffer.capacity)
        }
        #expect(buffer.guardWrites == 0 && buffer[0] == Self.guardValue, "nothing written")
        #expect(throws: CameraError.self) {
            try file.nextPicture(into: buffer.bytes, stride: 33 * 3 - 1, capacity: 10_000)
        }
    }

    @Test(arguments: [PixelFormat.bgr24, .gray8])
    func conversionsWriteNothingPastTheTarget(format: PixelFormat) throws {
        for width in Self.widths where width >= 2 {
            let height = 3
            let file = try MediaFile(url: try ppm(width: width, height: height))
            let (storage, _) = try #require(try file.nextPicture())
            let frame = Frame(
                storage: storage, format: .bgr24, width: width, height: height, stride: width * 3, timestampNs: 0,
                sequence: 0)
            for targetWidth in [width, max(1, width / 2), width + 3] {
                let scaler = try #require(
                    Scaler(
                        .init(
                            sourceWidth: width, sourceHeight: height, sourceFormat: .bgr24, targetWidth: targetWidth,
                            targetHeight: height, targetFormat: format)))
                let rowBytes = targetWidth * format.bytesPerPixel
                let buffer = Guarded(capacity: rowBytes * height)
                #expect(scaler.run(frame, into: buffer.bytes, stride: rowBytes, capacity: buffer.capacity))
                #expect(buffer.guardWrites == 0, "\(width) to \(targetWidth) \(format): wrote past the target")
                if targetWidth == width && format == .bgr24 {
                    let last = (height - 1) * rowBytes + (width - 1) * 3
                    #expect(
                        buffer[last] == Self.value(width - 1, height - 1, 2), "the right-most column is written")
                }
            }
        }
    }
}

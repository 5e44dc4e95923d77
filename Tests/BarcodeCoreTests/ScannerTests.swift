import Foundation
import HostTesting
import OCR
import Testing

@testable import BarcodeCore

/// Codes made with zint, placed on photographs with ImageMagick (turned in perspective, blurred, saved as a
/// poor JPEG, dimmed), read by zbar; photographs with no code read as none.
@Suite("Codes in pictures", .serialized)
struct ScannerTests {
    static let photos = "/usr/share/darknet/data"

    /// The kinds barcode reads, each with what zint is given and what zbar gives back.
    static let codes: [(kind: FoundCode.Kind, zint: String, data: String, text: String)] = [
        (.ean13, "EANX", "400638133393", "4006381333931"), (.ean8, "EANX", "9638507", "96385074"),
        (.upcA, "UPCA", "03600029145", "036000291452"), (.upcE, "UPCE", "0123456", "01234565"),
        (.code128, "CODE128", "SHELF-42", "SHELF-42"), (.qr, "QRCODE", "Tomato soup, 400 g", "Tomato soup, 400 g"),
    ]

    /// A code made by zint, at `scale`, written to `folder`.
    static func make(_ symbology: String, _ data: String, in folder: TemporaryDirectory, scale: Int = 2) throws -> URL {
        let url = folder.path("\(symbology)-\(abs(data.hashValue)).png")
        let made = try ProcessRunner.run(
            "/usr/bin/zint", ["-b", symbology, "-d", data, "--scale=\(scale)", "-o", url.path])
        try #require(made.status == 0, "\(made.standardOutput) \(made.standardError)")
        return url
    }

    /// `code` on `background` (1280 × 720) with a white quiet zone of 40 pixels (20 modules at zint's scale 2,
    /// as printed codes have; 10 modules beside a busy photograph is too little for zbar), turned away by
    /// `degrees` (its width shortened by cos θ, its far side shorter), then `effects` (ImageMagick arguments),
    /// saved as `name`.
    static func scene(
        _ code: URL, on background: String, degrees: Double, effects: [String], name: String,
        in folder: TemporaryDirectory, offset: Int = 0
    ) throws -> URL {
        let url = folder.path(name)
        let identify = try ProcessRunner.run("/usr/bin/identify", ["-format", "%w %h", code.path])
        let size = identify.standardOutput.split(separator: " ").compactMap { Double($0) }
        try #require(size.count == 2)
        let (w, h) = (size[0] + 80, size[1] + 80)
        // The near side keeps its place; the far side moves in by three quarters of the shortening, the near
        // by a quarter, and the far side is shorter by half that.
        let d = 0.75 * w * (1 - cos(degrees * Double.pi / 180))
        let corners = "0,0 \(d),\(d / 2)  \(w),0 \(w - d / 3),0  \(w),\(h) \(w - d / 3),\(h)  0,\(h) \(d),\(h - d / 2)"
        var arguments = [
            background, "-resize", "1280x720!", "(", code.path, "-bordercolor", "white", "-border", "40",
            "-virtual-pixel", "transparent", "-alpha", "set", "+distort", "Perspective", corners, ")", "-gravity",
            "center", "-geometry", "+\(offset)+0", "-composite",
        ]
        arguments += effects + [url.path]
        let made = try ProcessRunner.run("/usr/bin/convert", arguments)
        try #require(made.status == 0, "\(made.standardError)")
        return url
    }

    static func read(_ url: URL) throws -> [FoundCode] {
        let photo = try TesseractEngine.loadGray(url)
        return photo.pixels.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map {
                CodeScanner().scan(grey: $0, width: photo.width, height: photo.height, stride: photo.width)
            } ?? []
        }
    }

    @Test func everyKindIsReadFlatAndTurnedBlurredAndDim() throws {
        let folder = try TemporaryDirectory("assist-barcode")
        for (index, code) in Self.codes.enumerated() {
            let made = try Self.make(code.zint, code.data, in: folder)
            let flat = try Self.scene(
                made, on: "\(Self.photos)/dog.jpg", degrees: 0, effects: [], name: "flat-\(index).png", in: folder)
            #expect(try Self.read(flat).map(\.text) == [code.text], "\(code.kind) flat")
            #expect(try Self.read(flat).first?.kind == code.kind)
            // Turned 30° away, blurred, dim, a JPEG at quality 60.
            let hard = try Self.scene(
                made, on: "\(Self.photos)/horses.jpg", degrees: 30,
                effects: ["-blur", "0x0.8", "-evaluate", "multiply", "0.55", "-quality", "60"],
                name: "hard-\(index).jpg", in: folder)
            #expect(try Self.read(hard).map(\.text) == [code.text], "\(code.kind) turned, blurred, dim")
        }
    }

    @Test func photographsWithoutACodeHaveNone() throws {
        for name in ["dog", "horses", "person", "eagle", "giraffe", "kite", "scream"] {
            let url = URL(fileURLWithPath: "\(Self.photos)/\(name).jpg")
            #expect(try Self.read(url).isEmpty, "\(name)")
        }
    }

    @Test func barsAreLikelyWhereTheyAreAndNotInAPhotograph() throws {
        let folder = try TemporaryDirectory("assist-barcode")
        let made = try Self.make("EANX", "400638133393", in: folder, scale: 3)
        // Coming into view from the right: half of it is outside the picture, so zbar cannot read it yet, but
        // its bars are there (the tone says a code is coming).
        let coming = try Self.scene(
            made, on: "\(Self.photos)/dog.jpg", degrees: 0, effects: [], name: "coming.png", in: folder, offset: 600)
        let bars = try Self.likeness(coming)
        #expect(try Self.read(coming).isEmpty)
        #expect(bars.score >= 0.5, "\(bars)")
        #expect(bars.across > 0.8, "at the right edge: \(bars.across)")
        for name in ["dog", "horses", "person", "eagle", "giraffe", "kite", "scream"] {
            let photo = try Self.likeness(URL(fileURLWithPath: "\(Self.photos)/\(name).jpg"))
            #expect(photo.score < 0.2, "\(name): \(photo)")
        }
    }

    static func likeness(_ url: URL) throws -> BarLikeness {
        let photo = try TesseractEngine.loadGray(url)
        return try photo.pixels.withUnsafeBufferPointer { buffer in
            let base = try #require(buffer.baseAddress)
            return BarLikeness(grey: base, width: photo.width, height: photo.height, stride: photo.width)
        }
    }

    @Test func aPaddedFrameIsReadAsAPackedOne() throws {
        let folder = try TemporaryDirectory("assist-barcode")
        let made = try Self.make("EANX", "400638133393", in: folder)
        let photo = try TesseractEngine.loadGray(made)
        let stride = photo.width + 13
        var padded = [UInt8](repeating: 0, count: stride * photo.height)
        for row in 0..<photo.height {
            for column in 0..<photo.width { padded[row * stride + column] = photo.pixels[row * photo.width + column] }
        }
        let codes = CodeScanner().scan(grey: padded, width: photo.width, height: photo.height, stride: stride)
        #expect(codes.map(\.text) == ["4006381333931"])
    }
}

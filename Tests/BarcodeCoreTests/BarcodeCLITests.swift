import Foundation
import HostTesting
import Testing

/// `assist run barcode` as a person runs it: a photo of a tin, a folder of pictures as the camera with a label
/// typed for the code read, the labels listed, exported, forgotten and imported again, and bad input said.
@Suite("barcode, run", .serialized)
struct BarcodeCLITests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory("assist-barcode")
    }

    func barcode(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist,
            ["run", "--no-speech", "--data-dir", folder.path("data").path, "barcode"] + arguments,
            input: input, timeoutSeconds: 60)
    }

    /// A tin's code (EAN-13 4006381333931) on the dog photo, as `name`.
    func tin(_ name: String) throws -> URL {
        let code = try ScannerTests.make("EANX", "400638133393", in: folder)
        return try ScannerTests.scene(
            code, on: "\(ScannerTests.photos)/dog.jpg", degrees: 20, effects: ["-quality", "70"], name: name,
            in: folder)
    }

    @Test func aPhotoIsReadAndALabelTypedForTheCameraIsSaidFirstAfterwards() throws {
        let photo = try tin("tin.jpg")
        let plain = try barcode(["--image", photo.path])
        #expect(plain.status == 0 && plain.lines == ["EAN 4006381333931"], "\(plain.lines) \(plain.standardError)")
        // The camera sees the tin; "label this" then a name, typed once the code is said.
        let frames = folder.path("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        for index in 0..<24 {
            try FileManager.default.copyItem(at: photo, to: frames.appendingPathComponent("\(index).jpg"))
        }
        let (output, ended) = try ProcessRunner.typing(
            BuildProducts.assist,
            [
                "run", "--no-speech", "--data-dir", folder.path("data").path, "--camera", "dir:\(frames.path)",
                "--camera-fps", "2", "barcode",
            ],
            lines: [
                ProcessRunner.when("EAN 4006381333931", type: "label this"),
                ProcessRunner.when("Name for EAN 4006381333931?", type: "Tomato soup"),
            ], timeoutSeconds: 90)
        #expect(ended, "\(output)")
        #expect(output.contains("EAN 4006381333931 Press l to label it."), "\(output)")
        #expect(output.contains("Saved: Tomato soup."), "\(output)")
        #expect(try barcode(["--image", photo.path]).lines == ["Tomato soup. EAN 4006381333931"])
        #expect(try barcode(["labels"]).lines == ["Tomato soup: EAN-13 4006381333931"])
    }

    @Test func labelsGoOutAndComeBackAsCSVAndBadRowsAreSaid() throws {
        let csv = folder.path("family.csv")
        try """
        type,code,name
        EAN-13,4006381333931,"Tomato soup, large"
        UPC-A,036000291452,Tissues
        EAN-13,4006381333932,Wrong check digit
        QR,shelf 3,"\(String(repeating: "x", count: 101))"
        Code 39,ABC,Old kind
        EAN-8,96385074,=cmd|' /C calc'!A0

        """.write(to: csv, atomically: true, encoding: .utf8)
        let imported = try barcode(["import", csv.path])
        #expect(imported.status == 0, "\(imported.lines)")
        #expect(
            imported.lines.contains(
                "Line 4 skipped: the code 4006381333932 is not a valid one (a check digit is wrong, or it holds control characters)."
            ), "\(imported.lines)")
        #expect(imported.lines.contains("Line 5 skipped: A label can be at most 100 characters. Use a shorter name."))
        #expect(imported.lines.contains { $0.hasPrefix("Line 6 skipped: Code 39 is not a kind of code") })
        #expect(imported.lines.last == "Labels imported: 3 new, 0 renamed, 3 skipped.")
        #expect(
            try barcode(["labels"]).lines == [
                "=cmd|' /C calc'!A0: EAN-8 96385074", "Tissues: UPC-A 036000291452",
                "Tomato soup, large: EAN-13 4006381333931",
            ])
        let out = folder.path("out.csv")
        #expect(try barcode(["export", out.path]).lines == ["Wrote 3 labels to \(out.path)."])
        let written = try String(contentsOf: out, encoding: .utf8)
        #expect(written.contains("EAN-8,96385074,'=cmd|' /C calc'!A0"), "no formula for a spreadsheet: \(written)")
        #expect(try barcode(["forget", "tissues", "--yes"]).lines == ["Forgot Tissues."])
        #expect(try barcode(["rename", "4006381333931", "Soup"]).lines == ["Tomato soup, large is now Soup."])
        #expect(try barcode(["rename", "Soup", "the"]).status != 0)
        let again = try barcode(["import", out.path])
        #expect(again.lines.last == "Labels imported: 1 new, 1 renamed, 0 skipped.", "\(again.lines)")
    }

    /// A QR code made from `file` (zint's input, bytes as they are), at the lowest error correction.
    func qr(_ text: String, name: String) throws -> URL {
        try text.write(to: folder.path("\(name).txt"), atomically: true, encoding: .utf8)
        let url = folder.path("\(name).png")
        let made = try ProcessRunner.run(
            "/usr/bin/zint",
            ["-b", "QRCODE", "--secure=1", "-i", folder.path("\(name).txt").path, "--scale=2", "-o", url.path])
        try #require(made.status == 0, "\(made.standardError)")
        return url
    }

    @Test func aQRWithControlCharactersIsCleanedAndOneOf4000CharactersIsCut() throws {
        let escape = try barcode([
            "--image", try qr("Menu\u{1B}[2J\u{7}\r\nsoup\u{202E} of the day", name: "menu").path,
        ])
        #expect(escape.lines == ["QR code: Menu[2J soup of the day"], "\(escape.lines)")
        // 4,000 characters: the most a QR code holds in its alphanumeric mode is 4,296.
        let long = Array(repeating: "SOUP", count: 800).joined(separator: " ")
        let read = try barcode(["--image", try qr(long, name: "long").path])
        let line = try #require(read.lines.first)
        #expect(line.hasPrefix("QR code: SOUP SOUP"), "\(line.prefix(80))")
        #expect(line.count < 400 && line.hasSuffix("… and 3720 more characters"), "\(line.suffix(60))")
    }

    @Test func badInputIsSaid() throws {
        try Data("not a picture".utf8).write(to: folder.path("bad.png"))
        let cases: [([String], String)] = [
            (["--image", folder.path("bad.png").path], "cannot be read"),
            (["--image", "\(ScannerTests.photos)/person.jpg"], "No barcode or QR code found in the picture."),
            (["--image"], "--image needs the path of one photo."),
            (["import", folder.path("none.csv").path], "cannot be read as a text file"),
            (["import", "\(ScannerTests.photos)/coco.names"], "is not a labels file"),
            (["forget", "nothing", "--yes"], "No label is called nothing."),
            (["--scan-all"], "Unknown option --scan-all."),
            (["export", "/nonexistent/folder/x.csv"], "could not be written"),
        ]
        for (arguments, message) in cases {
            let result = try barcode(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect((result.standardOutput + result.standardError).contains(message), "\(arguments): \(result.lines)")
        }
    }
}

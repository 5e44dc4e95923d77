import Foundation
import HostTesting
import Testing

/// `assist run barcode` as a person runs it: a photo of a tin, a folder of pictures as the camera with a label
/// typed for the code read, the labels listed, exported, forgotten and imported again, and bad input said. The
/// runs given all their input at once are the app in process; those that type as the camera answers spawn it.
@Suite("barcode, run", .serialized)
struct BarcodeCLITests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory("assist-barcode")
    }

    /// `assist run barcode ARGUMENTS` in process (`InProcessApp`), quiet, its data in the test's folder.
    func barcode(_ arguments: [String], options: [String] = [], input: String? = nil) throws -> ProcessResult {
        try InProcessApp.run(
            ["run", "--no-speech", "--data-dir", folder.path("data").path] + options + ["barcode"] + arguments,
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
        let (output, ended) = try InProcessApp.typing(
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

    /// Issue 73: a labels file that is not a database any more (overwritten, a disk's bad block) is said with the
    /// way out, once, in one sentence (it was "Your labels cannot be read: The database … is damaged (…).." with
    /// no way out); `labels --start-again` keeps it aside and the next label starts a new file.
    @Test func aDamagedLabelsFileIsSaidWithTheWayOutAndKeptAside() throws {
        let csv = try labelFile(["EAN-13,4006381333931,Tomato soup"])
        #expect(try barcode(["import", csv.path]).status == 0)
        let file = folder.path("data/plugins/assist.barcode/labels.sqlite")
        let garbage = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        try garbage.write(to: file)
        let damaged =
            "Your labels' file is damaged, so your labels cannot be read. To keep it aside and start new labels, run: "
            + "assist run barcode labels --start-again (nothing is deleted)."
        for command in [["labels"], ["forget", "Tomato soup", "--yes"], ["import", csv.path]] {
            let said = try barcode(command)
            #expect(said.status != 0 && said.lines.filter { $0 == damaged }.count == 1, "\(command): \(said.lines)")
        }
        let again = try barcode(["labels", "--start-again"])
        #expect(again.status == 0, "\(again.lines)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
            .filter { $0.hasPrefix("labels.sqlite.damaged-") }
        try #require(kept.count == 1, "\(kept)")
        #expect(again.lines.last?.contains(kept[0]) == true, "\(kept) \(again.lines)")
        #expect(try Data(contentsOf: file.deletingLastPathComponent().appendingPathComponent(kept[0])) == garbage)
        #expect(try barcode(["import", csv.path]).status == 0)
        #expect(try barcode(["labels"]).lines == ["Tomato soup: EAN-13 4006381333931"])
        let refused = try barcode(["labels", "--start-again"])
        #expect(refused.status != 0 && refused.lines.last?.hasPrefix("Your labels can be read") == true)
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
            (["--image", folder.path("bad.png").path], "bad.png is plain text, not a picture"),
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

    // MARK: the product lookup (barcode.lookup-url)

    /// A server answering as Open Food Facts' API v2 does: the tin's product, and "product not found" with 404
    /// for any other number.
    static func productServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request in
            let json = ["Content-Type": "application/json; charset=utf-8"]
            guard request.path == "/api/v2/product/4006381333931.json" else {
                let number = request.path.split(separator: "/").last?.replacingOccurrences(of: ".json", with: "") ?? ""
                return .answer(
                    status: 404, headers: json,
                    body: Data(#"{"code":"\#(number)","status":0,"status_verbose":"product not found"}"#.utf8))
            }
            return .answer(
                status: 200, headers: json,
                body: Data(
                    #"{"code":"4006381333931","product":{"brands":"Heinz","product_name":"Cream of tomato soup"},"status":1,"status_verbose":"product found"}"#
                        .utf8))
        }
    }

    /// A config file setting `barcode.lookup-url` to `address`.
    func lookupConfig(_ address: String) throws -> [String] {
        let config = folder.path("lookup-\(UUID().uuidString).toml")
        try "[barcode]\nlookup-url = \"\(address)\"\n".write(to: config, atomically: true, encoding: .utf8)
        return ["--config", config.path]
    }

    /// Nothing is sent without the admin's address; with it, a product number is sent once (its name kept), a
    /// label of the person's own or a QR code is never sent, and a number the server does not know is said.
    @Test func aProductIsLookedUpOnlyWhenAnAdminSetsTheAddressAndOnlyOnce() throws {
        let server = try Self.productServer()
        let photo = try tin("tin.jpg")
        #expect(try barcode(["--image", photo.path]).lines == ["EAN 4006381333931"])
        #expect(server.requests.isEmpty, "no address, nothing sent")
        let options = try lookupConfig(server.baseURL + "/api/v2/product/{code}.json")
        let looked = try barcode(["--image", photo.path], options: options)
        #expect(looked.status == 0, "\(looked.standardError)")
        #expect(looked.lines == ["Looked up: Cream of tomato soup, Heinz. EAN 4006381333931"], "\(looked.lines)")
        #expect(server.requests.map(\.path) == ["/api/v2/product/4006381333931.json"])
        #expect(server.requests.first?.method == "GET" && server.requests.first?.header("Accept") == "application/json")
        // Kept: the next read says it at once and sends nothing.
        #expect(try barcode(["--image", photo.path], options: options).lines == looked.lines)
        #expect(server.requests.count == 1)
        // A QR code holding the same digits is text, never sent.
        let number = try barcode(["--image", try qr("4006381333931", name: "digits").path], options: options)
        #expect(number.lines == ["QR code: 4006381333931"], "\(number.lines)")
        #expect(server.requests.count == 1)
        // A number the server does not know.
        let other = try ScannerTests.scene(
            try ScannerTests.make("EANX", "590123412345", in: folder), on: "\(ScannerTests.photos)/dog.jpg",
            degrees: 10, effects: [], name: "other.jpg", in: folder)
        let unknown = try barcode(["--image", other.path], options: options)
        #expect(
            unknown.lines == ["EAN 5901234123457. The product lookup does not know 5901234123457."], "\(unknown.lines)")
        #expect(server.requests.count == 2)
        // A label of the person's own comes first, and the code is not sent again.
        #expect(try barcode(["import", try labelFile(["EAN-13,5901234123457,Dog food"]).path]).status == 0)
        #expect(try barcode(["--image", other.path], options: options).lines == ["Dog food. EAN 5901234123457"])
        #expect(server.requests.count == 2)
    }

    /// A labels file with `rows` under its header.
    func labelFile(_ rows: [String]) throws -> URL {
        let csv = folder.path("labels-\(UUID().uuidString).csv")
        try (["type,code,name"] + rows).joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
        return csv
    }

    /// From the camera the code is said at once, and the name when the server answers.
    @Test func fromTheCameraTheNameFollowsTheCode() throws {
        let server = try Self.productServer()
        let frames = folder.path("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let photo = try tin("tin.jpg")
        for index in 0..<24 {
            try FileManager.default.copyItem(at: photo, to: frames.appendingPathComponent("\(index).jpg"))
        }
        let (output, ended) = try InProcessApp.typing(
            [
                "run", "--no-speech", "--data-dir", folder.path("data").path, "--camera", "dir:\(frames.path)",
                "--camera-fps", "2",
            ] + (try lookupConfig(server.baseURL + "/api/v2/product/{code}.json")) + ["barcode"],
            lines: [ProcessRunner.when("Looked up: Cream of tomato soup, Heinz.", type: "stop")], timeoutSeconds: 90)
        #expect(ended, "\(output)")
        let code = try #require(output.range(of: "EAN 4006381333931"), "\(output)")
        let name = try #require(output.range(of: "Looked up: Cream of tomato soup, Heinz."), "\(output)")
        #expect(code.lowerBound < name.lowerBound, "the code first, never held for the network: \(output)")
        #expect(server.requests.count == 1, "the same code in view is sent once")
    }

    /// An address that cannot work, a server that cannot be reached or answers a web page: said once, and the
    /// code still read.
    @Test func aLookupThatCannotWorkIsSaidAndTheCodeStillRead() throws {
        let photo = try tin("tin.jpg")
        let portal = try LoopbackHTTPServer { _ in
            .answer(
                status: 200, headers: ["Content-Type": "text/html; charset=utf-8"],
                body: Data("<!DOCTYPE html><html><body>Sign in to the Wi-Fi</body></html>".utf8))
        }
        let silent = try LoopbackHTTPServer { _ in .hang }
        let closed = try LoopbackHTTPServer { _ in .answer(status: 200) }
        let closedURL = closed.baseURL
        closed.stop()
        let cases: [(String, String)] = [
            (
                portal.baseURL + "/{code}",
                "The product lookup answered HTTP 200 (text/html) without a product name. Ask whoever set barcode.lookup-url to check the address."
            ),
            (closedURL + "/{code}", "The product lookup cannot be reached:"),
            (
                silent.baseURL + "/{code}",
                "The product lookup did not answer within 8 seconds: the codes are said without names."
            ),
            ("https://example.org/product/", "barcode.lookup-url must hold {code} where the product number goes"),
            ("file:///etc/{code}", "barcode.lookup-url must start with https:// or http://."),
        ]
        for (address, said) in cases {
            let result = try barcode(["--image", photo.path], options: try lookupConfig(address))
            #expect(result.status == 0, "\(address): \(result.standardError)")
            #expect(result.lines.contains { $0.hasPrefix(said) }, "\(address): \(result.lines)")
            #expect(result.lines.last == "EAN 4006381333931", "\(address): \(result.lines)")
        }
        #expect(portal.requests.count == 1)
    }
}

import Foundation
import HostTesting
import Testing

/// Recognition through the real binary, plugin and model on real photographs (darknet's samples), stored the
/// way cameras store them: turned, with the EXIF orientation saying how to show them.
@Suite("photo-sensor recognition", .serialized)
struct PhotoSensorRecognitionTests {
    let folder: TemporaryDirectory
    let pictures: URL
    static let samples = "/usr/share/darknet/data"

    init() throws {
        folder = try TemporaryDirectory("assist-photo-recognition")
        pictures = folder.path("Pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)"]
        performRecognition = true
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist,
            ["run", "photo-sensor"] + arguments + [
                "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path,
            ], environment: environment, timeoutSeconds: 120)
    }

    /// `name` from the samples, turned a quarter anticlockwise in its pixels with EXIF orientation 6 (turn a
    /// quarter clockwise to show), as a phone held upright stores it.
    func turnedPhoto(_ name: String, as target: String) throws {
        let turned = folder.path("turned.jpg").path
        let made = try ProcessRunner.run("/usr/bin/convert", ["\(Self.samples)/\(name)", "-rotate", "-90", turned])
        try #require(made.status == 0, "\(made.standardError)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: turned)))
        bytes.insert(contentsOf: ExifBlock.app1(orientation: 6, date: nil, offset: nil), at: 2)
        try Data(bytes).write(to: pictures.appendingPathComponent(target))
    }

    func recognitionRows() throws -> [String] {
        let export = folder.path("export")
        _ = try run(["export", export.path])
        let text = try String(contentsOf: export.appendingPathComponent("ios_photos_recognition.csv"), encoding: .utf8)
        return text.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
    }

    @Test func aTurnedPhotoIsLabelledUprightAndAMissingDetectorLeavesItOwedUntilTheNextStart() throws {
        guard FileManager.default.fileExists(atPath: "\(Self.samples)/dog.jpg") else {
            print("skipped: darknet's sample photos are not installed (make deps)")
            return
        }
        _ = try run(["watch", "--once"])  // the baseline
        try turnedPhoto("dog.jpg", as: "IMG_0001.jpg")
        // The detector library cannot be opened: the photo is recorded, its labels wait.
        let without = try run(["watch", "--once"], environment: ["ASSIST_DETECTOR_LIBRARY": "/nonexistent/lib.so"])
        #expect(without.lines.contains("1 new item recorded."), "\(without.lines) \(without.standardError)")
        #expect(try recognitionRows().isEmpty)
        let status = try run(["status"])
        #expect(
            status.lines.last?.contains("Recognition unavailable: Assist's library") == true,
            "\(status.lines)")
        // Said in the person's language, by another process than the one that met it.
        let spanish = try run(["status"], environment: ["LANG": "es_ES.UTF-8"])
        #expect(
            spanish.lines.last?.contains("Reconocimiento no disponible: Falta o está dañada la biblioteca") == true,
            "\(spanish.lines)")
        // At the next start it is done.
        let with = try run(["watch", "--once"])
        #expect(with.lines.contains("0 new items recorded."), "\(with.lines) \(with.standardError)")
        let rows = try recognitionRows()
        let labels = rows.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let dog = labels.first { $0.count > 6 && $0[5] == "dog" }
        #expect(dog != nil, "\(rows)")
        #expect((dog.flatMap { Double($0[6]) } ?? 0) >= 0.5)
        #expect(dog?[7] == "detection")
        #expect(dog?[4].hasSuffix("IMG_0001.jpg#sha256:" + (dog?[4].split(separator: ":").last ?? "")) == true)
        #expect(Set(labels.map { $0[5] }).count == labels.count, "one row per distinct label: \(rows)")
        #expect(labels.allSatisfy { (Double($0[6]) ?? 0) >= 0.5 })
        #expect(try run(["status"]).lines.last?.contains("Recognition unavailable") == false, "the problem is gone")
        let again = try run(["watch", "--once"])
        #expect(again.status == 0)
        #expect(try recognitionRows().count == rows.count, "nothing is recognised twice")
    }
}

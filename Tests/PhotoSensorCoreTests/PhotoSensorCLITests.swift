import Foundation
import HostTesting
import Testing

/// `assist run photo-sensor …` and the sensor running in the background of `assist shell`, through the real
/// executable and plugin library.
@Suite("assist run photo-sensor", .serialized)
struct PhotoSensorCLITests {
    let folder: TemporaryDirectory
    let pictures: URL

    init() throws {
        folder = try TemporaryDirectory("assist-photo-cli")
        pictures = folder.path("Pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)"]
        recursive = true
        debounceSeconds = 0.2
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
    }

    func run(_ arguments: [String], input: String = "") throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist,
            arguments + [
                "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path,
            ],
            input: input, timeoutSeconds: 60)
    }

    func picture(_ name: String) throws {
        let made = try ProcessRunner.run(
            "/usr/bin/convert", ["-size", "20x10", "xc:teal", "jpg:" + pictures.appendingPathComponent(name).path])
        try #require(made.status == 0)
    }

    @Test func watchOnceMakesABaselineThenRecordsOnlyWhatIsNew() throws {
        try picture("before.jpg")
        let first = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.lines.last?.hasPrefix("First run: 1 existing files indexed as the baseline") == true, "\(first.lines)"
        )
        try picture("after.jpg")
        try FileManager.default.createDirectory(
            at: pictures.appendingPathComponent("day2"), withIntermediateDirectories: true)
        try picture("day2/later.jpg")
        try Data("notes".utf8).write(to: pictures.appendingPathComponent("notes.txt"))
        let second = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(second.lines.last == "2 new items recorded.", "\(second.lines)")
        let third = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(third.lines.last == "0 new items recorded.", "nothing twice")
        let status = try run(["run", "photo-sensor", "status", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data((status.lines.last ?? "").utf8)) as? [String: Any])
        #expect(object["recorded"] as? Int == 2)
        #expect(object["running"] as? Bool == true)
    }

    @Test func theLabelPersistsAndAppliesToLaterRows() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])
        let labelled = try run(["run", "photo-sensor", "label", "kitchen", "study"])
        #expect(labelled.lines.last == "Label set to kitchen study.")
        let status = try run(["run", "photo-sensor", "status", "--json"])
        #expect(status.standardOutput.contains(#""label":"kitchen study""#), "\(status.standardOutput)")
    }

    @Test func inTheShellItSaysItIsOnAndRecordsWhatArrivesWithItsAWAREEvent() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])  // the baseline
        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = [
            "shell", "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path,
        ]
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        Thread.sleep(forTimeInterval: 1.5)
        try picture("live.jpg")
        Thread.sleep(forTimeInterval: 1.5)
        input.fileHandleForWriting.write(Data("quit\n".utf8))
        input.fileHandleForWriting.closeFile()
        child.waitUntilExit()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.contains("Photo sensor is on, watching Pictures."), "\(said)")
        let events = try run(["events", "--prefix", "com.awareframework.ios.sensor.photos"])
        let taken = events.lines.filter { $0.contains("ACTION_AWARE_PHOTO_TAKEN") }
        #expect(taken.count == 1, "\(events.lines)")
        #expect(taken.first?.contains("live.jpg#sha256:") == true)
    }

    @Test func withoutFoldersItStaysQuietInTheShell() throws {
        try "".write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
        let shell = try run(["shell"], input: "5\n")
        #expect(!shell.standardOutput.contains("Photo sensor"), "\(shell.standardOutput)")
        #expect(!shell.standardOutput.contains("no folders"), "\(shell.standardOutput)")
    }
}

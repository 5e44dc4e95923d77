import Foundation
import HostTesting
import Testing

/// Everything the host creates under its data folder is the user's alone (folders 0700, files 0600), and what
/// an older version left open is tightened at the next start.
@Suite("Private files", .serialized)
struct PrivateFilesTests {
    let home: TemporaryDirectory

    init() throws {
        home = try TemporaryDirectory("assist-private")
    }

    private func assist(_ arguments: [String], data: URL) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist, arguments,
            environment: ["ASSIST_DATA_DIR": data.path, "XDG_CONFIG_HOME": home.path("config").path])
    }

    /// Every item under `folder` (itself included) whose mode lets others in, with its mode in octal.
    private func openItems(_ folder: URL) -> [String] {
        var found: [String] = []
        let walker = FileManager.default.enumerator(atPath: folder.path)
        for relative in [""] + ((walker?.allObjects as? [String]) ?? []) {
            let path = folder.appendingPathComponent(relative).path
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFLNK else { continue }
            if info.st_mode & 0o077 != 0 { found.append("\(relative) \(String(info.st_mode & 0o777, radix: 8))") }
        }
        return found
    }

    @Test func aNewDataFolderAndEverythingInItArePrivate() throws {
        let data = home.path("new/data")
        let said = try assist(
            ["say", "--audio-out", "wav:\(data.path)/speech/last-session.wav", "Private"], data: data)
        #expect(said.status == 0, "\(said.standardError)")
        let ran = try assist(["run", "--no-speech", "clock", "--date"], data: data)
        #expect(ran.status == 0, "\(ran.standardError)")
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("speech/last-session.wav").path))
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("events.jsonl").path))
        #expect(openItems(data) == [])
    }

    @Test func whatAnOlderVersionLeftOpenIsTightenedAndDoctorIsThenContent() throws {
        let data = home.path("old")
        let manager = FileManager.default
        try manager.createDirectory(
            at: data.appendingPathComponent("plugins/x"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        try manager.createDirectory(
            at: data.appendingPathComponent("speech"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        for name in ["plugins/x/main.sqlite", "speech/last-session.wav"] {
            _ = manager.createFile(
                atPath: data.appendingPathComponent(name).path, contents: Data("x".utf8),
                attributes: [.posixPermissions: 0o644])
        }
        try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: data.path)
        #expect(openItems(data).count == 6, "the folder, three folders inside, two files")
        let doctor = try assist(["doctor"], data: data)
        #expect(openItems(data) == [])
        let line = try #require(doctor.lines.first { $0.contains("data folder") })
        #expect(line.hasPrefix("ok: data folder:"), "\(line)")
        // After the one-off walk, something made readable later is what doctor reports, with the fix.
        try manager.setAttributes(
            [.posixPermissions: 0o644], ofItemAtPath: data.appendingPathComponent("speech/last-session.wav").path)
        let again = try assist(["doctor"], data: data)
        let warning = try #require(again.lines.first { $0.contains("data folder") })
        #expect(warning.hasPrefix("warning: data folder: 1 item(s)"), "\(warning)")
        #expect(warning.contains("chmod -R go-rwx"))
    }
}

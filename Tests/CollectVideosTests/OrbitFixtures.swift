import Foundation
import HostTesting
import Testing

/// What the collect-videos suites set up alike: an admin's configuration and a camera's worth of frames.
enum OrbitFixtures {
    /// `[collect-videos]` for `serverURL` with the app credential and the contact, then `extra` lines.
    static func writeConfig(to url: URL, serverURL: String, extra: String = "") throws {
        try """
        [collect-videos]
        server-url = "\(serverURL)"
        app-credential = "\(FakeOrbitServer.appCredential)"
        contact = "orbit@example.org"
        \(extra)
        """.write(to: url, atomically: true, encoding: .utf8)
    }

    /// `seconds` of ffmpeg's test `pattern` at 30 fps as a video file, for `--camera video:` (other patterns,
    /// other bytes: the server keeps one copy of identical clips of a thing), made once for the suites.
    static func camera(_ url: URL, pattern: String = "testsrc", size: String = "640x480", seconds: Int = 8) throws {
        let made = try TestMedia.ffmpeg(
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "\(pattern)=size=\(size):rate=30", "-t", "\(seconds)",
                "-pix_fmt", "yuv420p",
            ], output: url.path)
        try #require(made.status == 0, "\(made.standardError)")
    }

    /// `assist run collect-videos ARGUMENTS` without speech, on `folder`'s `data` and `config.toml`, filming
    /// `folder`'s `camera` file.
    static func run(
        _ arguments: [String], in folder: TemporaryDirectory, camera: String = "camera.mp4", timeout: Double = 60
    ) throws -> ProcessResult {
        try InProcessApp.run(
            ["run", "collect-videos"] + arguments + [
                "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path,
                "--camera", "video:" + folder.path(camera).path,
            ], timeoutSeconds: timeout)
    }

    /// Consent given (as Ada Lovelace, everything agreed) and `thing` added, filming `folder`'s `camera` file.
    static func takePart(in folder: TemporaryDirectory, camera: String, thing: String = "Red cup") throws {
        let consent = try run(
            ["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"], in: folder,
            camera: camera)
        try #require(consent.status == 0, "\(consent.lines)")
        _ = try run(["thing", "add", thing], in: folder, camera: camera)
    }
}

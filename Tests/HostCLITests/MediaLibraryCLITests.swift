import Foundation
import HostTesting
import Testing

/// FFmpeg lives in libAssistMedia.so, opened only when a camera is first used.
@Suite("The media library is loaded with the first camera")
struct MediaLibraryCLITests {
    static let photo = "/usr/share/darknet/data/dog.jpg"

    @Test func aCommandWithoutACameraDoesNotLoadFFmpeg() throws {
        let data = try TemporaryDirectory("assist-media")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        process.arguments = ["events", "--follow", "--data-dir", data.url.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            // SIGKILL: a signal the test runner ignores or blocks would be inherited and keep the child alive.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        var maps = ""
        for _ in 0..<50 where !maps.contains("libFoundation") {
            Thread.sleep(forTimeInterval: 0.05)
            // Read to the end: /proc files report no size, and a sized read stops at the first page.
            let handle = FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/maps")
            maps = String(decoding: (try? handle?.readToEnd()) ?? Data(), as: UTF8.self)
            try? handle?.close()
        }
        #expect(maps.contains("libFoundation"), "the host is running")
        #expect(!maps.contains("libavcodec") && !maps.contains("libAssistMedia"), "FFmpeg is not loaded")
        #expect(!maps.contains("libespeak-ng") && !maps.contains("libcurl"), "espeak-ng and libcurl are not loaded")
    }

    /// The libraries the dynamic loader opened for `arguments`, from its own report (LD_DEBUG=files).
    private func librariesOpened(
        _ arguments: [String], data: TemporaryDirectory, environment: [String: String] = [:]
    ) throws -> String {
        let result = try ProcessRunner.run(
            BuildProducts.assist, arguments,
            environment: environment.merging(["LD_DEBUG": "files", "ASSIST_DATA_DIR": data.url.path]) { _, new in new })
        #expect(result.status == 0, "\(arguments): \(result.lines)")
        return result.standardError
    }

    /// A camera's frames need swscale alone: a webcam (the fake V4L2 device, MJPEG that libv4l2 decodes) does not
    /// open FFmpeg's decoders and the hundred-odd libraries they bring (about 15 MB of a search's resident memory);
    /// a picture file opens them.
    @Test func aCameraOpensTheScalerAloneAndAPictureFileTheDecoders() throws {
        let data = try TemporaryDirectory("assist-scaler-alone")
        let fake = try FakeCamera(folder: data.url)
        let jpeg = data.path("frame.jpg").path
        _ = try ProcessRunner.run("/usr/bin/convert", [Self.photo, "-resize", "640x480!", "-quality", "90", jpeg])
        let webcam = try librariesOpened(
            ["camera", "snapshot", data.path("webcam.ppm").path, "--camera", "v4l2:\(FakeCamera.devicePath)"],
            data: data, environment: fake.environment(format: "MJPG", frames: jpeg))
        let picture = try Data(contentsOf: data.path("webcam.ppm")).prefix(15)
        #expect(String(decoding: picture, as: UTF8.self).hasPrefix("P6\n640 480"), "the webcam's picture was saved")
        #expect(webcam.contains("libAssistMedia.so") && webcam.contains("libswscale.so"), "the scaler is opened")
        #expect(!webcam.contains("libavcodec.so") && !webcam.contains("libavformat.so"), "no decoder is opened")
        let file = try librariesOpened(
            ["camera", "snapshot", data.path("file.ppm").path, "--camera", "image:\(Self.photo)"], data: data)
        #expect(file.contains("libavformat.so") && file.contains("libavcodec.so"), "a file opens the decoders")
    }

    @Test func espeakAndCurlAreOpenedOnlyByCommandsThatSpeakOrUpload() throws {
        let data = try TemporaryDirectory("assist-lazy")
        for arguments in [["--version"], ["plugins", "list"], ["run", "--no-speech", "assist.clock"]] {
            let opened = try librariesOpened(arguments, data: data)
            #expect(opened.contains("libswiftCore"), "the loader reported: \(arguments)")
            #expect(!opened.contains("libespeak-ng") && !opened.contains("libcurl"), "\(arguments) stays lean")
        }
        let wav = data.path("said.wav").path
        let spoken = try librariesOpened(["say", "--audio-out", "wav:\(wav)", "Hello."], data: data)
        #expect(spoken.contains("libespeak-ng.so.1"), "speaking opens espeak-ng")
    }

    @Test func aHostWithoutItSaysToReinstallAndTheEnvironmentCanPointAtIt() throws {
        // The executable alone in a folder: no libAssistMedia.so beside it or in ../lib/assist.
        let folder = try TemporaryDirectory("assist-lonely")
        let lonely = folder.path("bin/assist").path
        try FileManager.default.createDirectory(at: folder.path("bin"), withIntermediateDirectories: true)
        // Copied by cp, not in this process: a program another test starts while this one writes the copy
        // would hold it open for writing, and running it fails with "Text file busy" (rehearsal ci70).
        let copied = try ProcessRunner.run("/bin/cp", [BuildProducts.assist, lonely])
        try #require(copied.status == 0, "\(copied)")
        let share = BuildProducts.packageRoot.appendingPathComponent("share/assist").path
        let arguments = [
            "camera", "snapshot", folder.path("out.ppm").path, "--share-dir", share, "--data-dir",
            folder.path("data").path, "--camera", "image:\(Self.photo)",
        ]
        let without = try ProcessRunner.run(lonely, arguments)
        #expect(without.status != 0)
        #expect(
            (without.lines + without.standardError.split(separator: "\n").map(String.init)).contains(
                "Assist cannot convert camera pictures: its library libAssistMedia.so is missing or broken. Reinstall Assist."
            ), "\(without)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out.ppm").path))

        let library = BuildProducts.directory.appendingPathComponent("libAssistMedia.so").path
        let with = try ProcessRunner.run(lonely, arguments, environment: ["ASSIST_MEDIA_LIBRARY": library])
        #expect(with.status == 0 && with.lines.first?.hasPrefix("Saved a 768x576 picture") == true, "\(with)")
    }
}

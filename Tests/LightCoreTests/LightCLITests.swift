import Foundation
import HostTesting
import Testing

@testable import LightCore

/// `assist run light` as a person runs it: photos made here with ImageMagick, and a folder of pictures as the
/// camera with the sound written to a WAV file, whose tone is measured.
@Suite("light, run", .serialized)
struct LightCLITests {
    /// Makes `name` in `folder` with ImageMagick's `convert` and `arguments`.
    static func picture(_ folder: TemporaryDirectory, _ name: String, _ arguments: [String]) throws -> URL {
        let url = folder.path(name)
        let made = try ProcessRunner.run("/usr/bin/convert", arguments + [url.path])
        try #require(made.status == 0, "\(made.standardError)")
        return url
    }

    /// `assist run ARGUMENTS` in process (`InProcessApp`), its data in `data`.
    static func light(_ arguments: [String], data: TemporaryDirectory, input: String? = nil) throws -> ProcessResult {
        try InProcessApp.run(["run", "--data-dir", data.url.path] + arguments, input: input, timeoutSeconds: 60)
    }

    @Test func aPhotoIsSaidAsALevelWithTheLampInIt() throws {
        let folder = try TemporaryDirectory("assist-light")
        let dark = try Self.picture(folder, "dark.png", ["-size", "640x480", "xc:gray(8)"])
        // A dim room with a lamp's bulb on the right, blurred as a lens blurs it, saved as a JPEG.
        let lamp = try Self.picture(
            folder, "lamp.jpg",
            ["-size", "640x480", "xc:gray(60)", "-fill", "white", "-draw", "circle 560,120 600,120", "-blur", "0x2"])
        let room = try Self.picture(folder, "room.png", ["-size", "640x480", "xc:gray(140)"])
        let expected = [
            (dark, "Dark, 3 percent."), (lamp, "Dim, 24 percent. A light is in view on the right."),
            (room, "Normal light, 55 percent."),
        ]
        for (url, sentence) in expected {
            let result = try Self.light(["--no-speech", "light", "--image", url.path], data: folder)
            #expect(result.status == 0 && result.lines == [sentence], "\(result.lines) \(result.standardError)")
        }
        let russian = try Self.light(["--no-speech", "--lang", "ru", "light", "--image", dark.path], data: folder)
        #expect(russian.lines == ["Темно, 3 процентов."])
    }

    @Test func badPhotosAndOptionsAreSaidAndNothingElse() throws {
        let folder = try TemporaryDirectory("assist-light")
        try Data("not a picture".utf8).write(to: folder.path("bad.jpg"))
        let cases: [([String], String)] = [
            (
                ["--image", folder.path("bad.jpg").path],
                "bad.jpg is plain text, not a picture: open it in a text editor"
            ),
            (["--image", folder.path("none.png").path], "it does not exist or cannot be read."),
            (["--image", folder.url.path], "it is a folder; give the path of one photo"),
            (["--image"], "--image needs the path of a photo."),
            (["--brightest"], "Unknown option --brightest. light takes --image PATH, or nothing."),
        ]
        for (arguments, message) in cases {
            let result = try Self.light(["--no-speech", "light"] + arguments, data: folder)
            #expect(result.status != 0, "\(arguments)")
            let said = result.standardOutput + result.standardError
            #expect(said.contains(message), "\(arguments): \(said)")
            #expect(!said.contains("Fatal") && !result.signalled)
        }
    }

    /// Twelve greys from black to white, half a second each, as the camera: once the start's sentence is said,
    /// the tone's pitch is each grey's in turn and never falls.
    @Test func theTonesPitchClimbsTwelveLevelsAsThePicturesBrighten() throws {
        let folder = try TemporaryDirectory("assist-light")
        let frames = folder.path("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let greys = (0..<12).map { $0 * 255 / 11 }
        // The last grey stays a second, not half of one: the run ends with the camera's last picture, and the
        // tone of a picture shown at the very end was once cut before a whole window of it was written.
        for (index, grey) in greys.enumerated() {
            for copy in 0..<(index == greys.count - 1 ? 4 : 2) {
                _ = try Self.picture(
                    folder, "frames/\(String(format: "%02d", index))-\(copy).png",
                    ["-size", "320x240", "xc:gray(\(grey))"])
            }
        }
        // The first start says how the meter works (ten seconds); this is the second, whose sentence is short.
        let first = try Self.light(
            ["--no-speech", "--camera", "dir:\(frames.path)", "--camera-fps", "30", "light"], data: folder)
        #expect(first.lines.first?.hasPrefix("Light meter. The tone rises") == true, "\(first.lines)")
        let wav = folder.path("light.wav")
        let result = try Self.light(
            ["--camera", "dir:\(frames.path)", "--camera-fps", "4", "--audio-out", "wav:\(wav.path)", "light"],
            data: folder)
        #expect(result.status == 0, "\(result.standardError)")
        let sound = try SoundAnalysis(url: wav)
        let rate = Double(sound.file.format.sampleRateHz)
        let pitches = greys.map { Brightness.pitch(forGrey: Double($0)) }
        // 100 ms windows that hold one pure tone (a sine's peak is √2 its RMS; speech's is far more), named by the
        // nearest of the twelve pitches within 3 %.
        var heard: [Int] = []
        var start = 0.0
        while start + 0.1 < sound.file.durationSeconds {
            let window = sound.channel(0, fromSeconds: start, seconds: 0.1)
            start += 0.1
            let rms = (window.map { $0 * $0 }.reduce(0, +) / Double(window.count)).squareRoot()
            guard rms > 0.01, let peak = window.map(abs).max(), (1.3...1.55).contains(peak / rms) else { continue }
            let crossings = zip(window, window.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
            let hz = Double(crossings) * rate / Double(window.count)
            if let level = pitches.firstIndex(where: { abs(hz / $0 - 1) < 0.03 || abs(hz - $0) < 15 }) {
                heard.append(level)
            }
        }
        #expect(zip(heard, heard.dropFirst()).allSatisfy { $0 <= $1 }, "levels heard in order: \(heard)")
        #expect(Set(heard).count >= 6 && heard.last == 11, "levels heard: \(heard)")
        #expect(result.lines.first == "Light meter. Press w for the level in words.")
    }
}

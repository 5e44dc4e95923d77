import Foundation
import HostTesting
import Testing

/// `assist run colour` as a person runs it: photos made with ImageMagick, a folder of pictures as the camera,
/// typed words over a pipe, keys on a terminal, and a white paper's calibration kept for the next run.
@Suite("colour, run", .serialized)
struct ColourCLITests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory("assist-colour")
    }

    var environment: [String: String] { ["XDG_CONFIG_HOME": folder.path("config").path] }

    /// A 640 × 480 room, `wall` all over and `patch` in the middle, saved as `name`.
    func room(_ name: String, wall: String = "#d9d4cc", patch: String) throws -> URL {
        let url = folder.path(name)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let made = try ProcessRunner.run(
            "/usr/bin/convert",
            ["-size", "640x480", "xc:\(wall)", "-fill", patch, "-draw", "rectangle 220,160 420,320", url.path])
        try #require(made.status == 0, "\(made.standardError)")
        return url
    }

    /// `assist run ARGUMENTS` in process (`InProcessApp`), its data and settings in the test's folder.
    func colour(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try InProcessApp.run(
            ["run", "--data-dir", folder.path("data").path] + arguments, environment: environment, input: input,
            timeoutSeconds: 60)
    }

    @Test func aPhotoIsNamedWithItsFinerNameInEachLanguage() throws {
        let shirt = try room("shirt.jpg", patch: "#1e50c8")
        let named = try colour(["--no-speech", "colour", "--image", shirt.path])
        #expect(named.status == 0 && named.lines == ["Blue (royal blue)."], "\(named.lines) \(named.standardError)")
        let russian = try colour(["--no-speech", "--lang", "ru", "colour", "--image", shirt.path])
        #expect(russian.lines == ["Синий (королевский синий)."])
        let navy = try room("navy.png", patch: "#000070")
        #expect(try colour(["--no-speech", "colour", "--image", navy.path]).lines == ["Dark blue (navy)."])
        let midnight = try room("midnight.png", patch: "#14205a")
        #expect(
            try colour(["--no-speech", "colour", "--image", midnight.path]).lines == ["Dark blue (midnight blue)."])
    }

    @Test func aDarkRoomIsSaidToBeTooDarkAndBadInputIsSaid() throws {
        let dark = try room("dark.png", wall: "gray(3)", patch: "gray(5)")
        let said = try colour(["--no-speech", "colour", "--image", dark.path])
        #expect(said.lines == ["It is too dark to see colours. Turn on a light or move to a window."])
        #expect(said.status != 0)
        try Data("GIF89a".utf8).write(to: folder.path("cut.gif"))
        for (arguments, message) in [
            (["--image", folder.path("cut.gif").path], "cannot be read"), (["--image"], "--image needs the path"),
            (["--tint"], "Unknown option --tint. colour takes --image PATH, or nothing."),
        ] {
            let result = try colour(["--no-speech", "colour"] + arguments)
            #expect(result.status != 0 && (result.standardOutput + result.standardError).contains(message))
        }
    }

    /// Blue, red and white things in turn before the camera: each is said once when it settles; "main colours"
    /// says the picture's shares and "more" a finer name.
    @Test func eachNewColourIsSaidOnceAndTheWordsWork() throws {
        for (index, patch) in ["#1e50c8", "#c8102e", "#f5f5f0"].enumerated() {
            for copy in 0..<5 { _ = try room("frames/\(index)-\(copy).png", patch: patch) }
        }
        // The words once the first colour is said (before, there is no picture to speak of).
        let (output, ended) = try InProcessApp.typing(
            [
                "run", "--no-speech", "--data-dir", folder.path("data").path, "--camera",
                "dir:\(folder.path("frames").path)", "--camera-fps", "4", "colour",
            ],
            lines: [
                ProcessRunner.when("Blue", type: "main colours"),
                ProcessRunner.when("Most of the picture", type: "more"),
            ], environment: environment)
        #expect(ended)
        let said = output.split(separator: "\n").map(String.init)
        #expect(said.filter { ["Blue", "Red", "White"].contains($0) } == ["Blue", "Red", "White"], "\(said)")
        #expect(said.contains { $0.hasPrefix("Most of the picture: white, ") }, "\(said)")
        #expect(said.contains { ["Royal blue", "Crimson", "Snow white", "Ivory"].contains($0) }, "\(said)")
    }

    /// A white paper under a warm lamp, then a grey box under the same lamp: after c the box is grey; the
    /// calibration is kept in the settings and the next run's photo is read with it.
    @Test func aWhitePaperCalibratesAndTheCalibrationIsKept() throws {
        // Under the lamp, with the camera's own balance, the box is the lamp's colour.
        let box = try room("box.png", wall: "#a07040", patch: "#8c6e50")
        let camera = try colour(["--no-speech", "--config", try cameraBalance(), "colour", "--image", box.path])
        #expect(camera.lines.first?.hasPrefix("Grey") == false, "\(camera.lines)")
        for copy in 0..<20 { _ = try room("lamp/0-\(copy).png", wall: "#a07040", patch: "#f4c890") }
        for copy in 0..<10 { _ = try room("lamp/1-\(copy).png", wall: "#a07040", patch: "#8c6e50") }
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "run", "--no-speech", "--data-dir", folder.path("data").path, "--camera",
                "dir:\(folder.path("lamp").path)", "--camera-fps", "3", "colour",
            ], environment: environment)
        #expect(screen.allowFirstUse("Colour"), "\(screen.text)")
        #expect(screen.waitFor("Colour reader."), "\(screen.text)")
        // The paper, warm under the lamp, is said first (white, by the picture's own balance); then c takes it
        // as the white, while it is still in front of the camera.
        #expect(screen.waitFor("\nWhite"), "\(screen.text)")
        screen.type("c")
        #expect(screen.waitFor("Calibrated."), "\(screen.text)")
        #expect(screen.waitFor("Grey"), "the box under the lamp is grey once calibrated: \(screen.text)")
        #expect(screen.waitForExit(timeout: 30) == 0)
        let settings = try String(contentsOf: folder.path("config/assist/settings.toml"), encoding: .utf8)
        #expect(settings.contains("[colour]\nwhite = \"") && settings.contains("white-balance = \"calibrated\""))
        #expect(try colour(["--no-speech", "colour", "--image", box.path]).lines.first?.hasPrefix("Grey") == true)
    }

    /// A config that asks for the camera's own balance.
    func cameraBalance() throws -> String {
        let url = folder.path("camera.toml")
        try "[colour]\nwhite-balance = \"camera\"\n".write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}

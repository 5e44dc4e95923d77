import Foundation
import HostTesting
import Testing

/// find-object on a terminal typed key by key (in process, `InProcessScreen`), and as a process where the plugin
/// reads the process's environment (`ASSIST_MODELS_DIR`, the share folder). What it says and guides to from the
/// folder camera source is tested in process (`FindObjectInProcessTests`).
@Suite("assist run find-object", .serialized)
struct FindObjectCLITests {
    @Test func aMissingModelSaysHowToInstallIt() throws {
        let folder = try DogScenes.frames([nil])
        let data = try TemporaryDirectory("assist-find-data")
        let share = try TemporaryDirectory("assist-find-share")
        let source = BuildProducts.packageRoot.appendingPathComponent("share/assist")
        for item in try FileManager.default.contentsOfDirectory(atPath: source.path) where item != "models" {
            try FileManager.default.copyItem(at: source.appendingPathComponent(item), to: share.path(item))
        }
        let result = try ProcessRunner.run(
            BuildProducts.assist,
            [
                "run", "--no-speech", "--share-dir", share.url.path, "--camera", "dir:\(folder.url.path)", "--data-dir",
                data.url.path, "find-object", "cup",
            ],
            environment: ["ASSIST_MODELS_DIR": "/nonexistent"], timeoutSeconds: 60)
        #expect(
            result.lines.contains { $0.hasPrefix("Object model not installed. Install it with 'assist setup models'") },
            "\(result)")
        // In the person's language, as everything else find-object says.
        let spanish = try ProcessRunner.run(
            BuildProducts.assist,
            [
                "run", "--no-speech", "--lang", "es", "--share-dir", share.url.path, "--camera",
                "dir:\(folder.url.path)", "--data-dir", data.url.path, "find-object", "cup",
            ],
            environment: ["ASSIST_MODELS_DIR": "/nonexistent"], timeoutSeconds: 60)
        #expect(
            spanish.lines.contains { $0.hasPrefix("El modelo de objetos no está instalado. Instálelo con") },
            "\(spanish)")
    }

    @Test func aCustomModelsClassIsFoundAfterCOCOsAndItsFolderCanBeChecked() throws {
        // COCO's network with "dog" renamed "hound", as an admin's custom model; and a second one whose weights
        // were changed after model.json was written.
        let models = try TemporaryDirectory("assist-models")
        let custom = models.path("custom")
        try CustomModelFixture.make("hounds", in: custom)
        let broken = try CustomModelFixture.make("broken", in: custom)
        let handle = try FileHandle(forWritingTo: broken.appendingPathComponent("model.weights"))
        try handle.seek(toOffset: 1_000)
        handle.write(Data([0xFF]))
        try handle.close()
        let folder = try DogScenes.frames(Array(repeating: 0.18, count: 4))
        let data = try TemporaryDirectory("assist-find-data")
        let environment = ["ASSIST_MODELS_DIR": models.url.path]
        var options = ["run", "--no-speech", "--camera", "dir:\(folder.url.path)", "--camera-fps", "2.5"]
        options += ["--data-dir", data.url.path, "find-object"]
        let search = try ProcessRunner.run(BuildProducts.assist, options + ["hound"], environment: environment)
        #expect(search.linesAfterNotice.first == "Looking for object: hound", "\(search)")
        let guidance = try DogScenes.events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
        #expect(guidance.first?["direction"] as? String == "left", "\(guidance)")

        let check = try ProcessRunner.run(BuildProducts.assist, options + ["--check-models"], environment: environment)
        #expect(check.status != 0)
        #expect(
            check.lines == [
                "The custom model broken cannot be used: model.weights does not have the SHA-256 model.json gives. Fix its folder or remove it.",
                "The custom model hounds is ready: 80 classes, every file checked.",
            ], "\(check)")
    }

    /// find-object run in process on a terminal over a blank grey picture, looking for a cup, its camera allowed;
    /// `extra` goes before the feature's name.
    static func lookingForACup(_ data: TemporaryDirectory, extra: [String] = []) throws -> InProcessScreen {
        let blank = data.path("blank.png")
        let made = try ProcessRunner.run("/usr/bin/convert", ["-size", "640x480", "xc:gray60", blank.path])
        try #require(made.status == 0)
        let screen = try InProcessScreen(
            [
                "run", "--no-speech", "--camera", "image:\(blank.path)", "--camera-fps", "2", "--data-dir",
                data.url.path,
            ] + extra + ["find-object", "cup"])
        #expect(screen.allowFirstUse("Find object"), "\(screen.text)")
        #expect(screen.waitFor("Looking for object: cup", timeout: 30), "\(screen.text)")
        return screen
    }

    /// Nothing to find for 20 s: find-object is not silent; it says it is still looking, with a hint. On a
    /// terminal, as a person runs it; Escape stops it and says so.
    @Test func nothingFoundForTwentySecondsSaysStillLooking() throws {
        let data = try TemporaryDirectory("assist-find-data")
        let screen = try Self.lookingForACup(data)
        let started = Date()
        #expect(screen.waitFor("Still looking for cup.", timeout: 40), "\(screen.text)")
        let waited = Date().timeIntervalSince(started)
        #expect(waited > 15, "not before about 20 s of nothing: \(waited) s")
        screen.type([0x1B])
        #expect(screen.waitFor("Find object stopped."), "\(screen.text)")
        #expect(screen.waitForExit() == 0)
    }

    /// The search pauses itself after its quiet minutes (`auto-pause`) and says how to go on; one Space then
    /// resumes it (the host heard it pause: issue 72), never a second "Paused.".
    @Test func anAutoPausedSearchSaysHowToGoOnAndOneSpaceResumesIt() throws {
        let data = try TemporaryDirectory("assist-find-data")
        try "[find-object]\n\"auto-pause\" = 3\n".write(
            to: data.path("config.toml"), atomically: true, encoding: .utf8)
        let screen = try Self.lookingForACup(data, extra: ["--config", data.path("config.toml").path])
        #expect(
            screen.waitFor("Object search paused. Press Space, or say resume, to go on.", timeout: 30),
            "\(screen.text)")
        screen.type(" ")
        #expect(screen.waitFor("Search resumed"), "\(screen.text)")
        #expect(!screen.text.contains("Paused."), "one Space resumes: \(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Find object stopped."), "\(screen.text)")
        #expect(screen.waitForExit() == 0)
    }

    /// Help lists only keys that do something in find-object (issue 72: it listed n, [ and ], which did nothing),
    /// and those keys, pressed, say so rather than nothing (the manifest's `unused_commands`).
    @Test func helpListsOnlyKeysThatWorkAndAnUnusedKeySaysSo() throws {
        let data = try TemporaryDirectory("assist-find-data")
        let screen = try Self.lookingForACup(data)
        screen.type("h")
        #expect(screen.waitFor("What the sounds mean: t"), "\(screen.text)")
        let help = screen.text.components(separatedBy: "Commands for Find object:").last ?? ""
        for gone in ["Next:", "Previous:", "Faster:", "Slower:"] {
            #expect(!help.contains(gone), "\(gone) listed: \(help)")
        }
        #expect(help.contains("Zoom in: +") && help.contains("Stop: Escape"), "\(help)")
        screen.type("n")
        #expect(screen.waitFor("Next does nothing in Find object; h lists what does."), "\(screen.text)")
        screen.type("]")
        #expect(screen.waitFor("Faster does nothing in Find object; h lists what does."), "\(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Find object stopped."), "\(screen.text)")
        #expect(screen.waitForExit() == 0)
    }

    /// t (or "explain the sounds") plays each guidance pattern after saying what it means, the search waiting
    /// meanwhile: the dots sound on the left, the dashes on the right, in that order; the search goes on after.
    @Test func theSoundTourSaysAndPlaysEachPattern() throws {
        let data = try TemporaryDirectory("assist-find-data")
        let blank = data.path("blank.png")
        let made = try ProcessRunner.run("/usr/bin/convert", ["-size", "640x480", "xc:gray60", blank.path])
        try #require(made.status == 0)
        let wav = data.path("tour.wav")
        let screen = try InProcessScreen([
            "run", "--audio-out", "wav:\(wav.path)", "--camera", "image:\(blank.path)", "--camera-fps", "2",
            "--data-dir", data.url.path, "find-object", "cup",
        ])
        #expect(screen.allowFirstUse("Find object"), "\(screen.text)")
        #expect(screen.waitFor("Press t, or say explain the sounds"), "offered at first use: \(screen.text)")
        #expect(screen.waitFor("Looking for object: cup", timeout: 30), "\(screen.text)")
        screen.type("t")
        #expect(screen.waitFor("Search resumed", timeout: 90), "\(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Find object stopped."), "\(screen.text)")
        #expect(screen.waitForExit() == 0)
        let said = [
            "The sounds point you to the object.", "Dots: the object is to your left.", "Dashes: it is to your right.",
            "Dot dash: it is above.", "Dash dot: it is below.", "A steady tone: it is in the middle.",
            "This sound: it was found.", "This sound: it was lost from view.", "That is all the sounds.",
            "Search resumed",
        ].map { sentence in screen.lines.firstIndex { $0.hasPrefix(sentence) } }
        #expect(said.allSatisfy { $0 != nil } && said == said.sorted { ($0 ?? 0) < ($1 ?? 0) }, "\(screen.lines)")
        // The left pattern is heard in the left ear, then the right one in the right ear.
        let sound = try SoundAnalysis(url: wav)
        let seconds = Double(sound.file.frameCount) / Double(sound.file.format.frames(seconds: 1))
        let windows = stride(from: 0, to: seconds - 0.25, by: 0.25).map {
            (left: sound.rms(0, fromSeconds: $0, seconds: 0.25), right: sound.rms(1, fromSeconds: $0, seconds: 0.25))
        }
        let leftEar = windows.firstIndex { $0.left > 0.02 && $0.left > 3 * $0.right }
        let rightEar = windows.firstIndex { $0.right > 0.02 && $0.right > 3 * $0.left }
        #expect(leftEar != nil && rightEar != nil && leftEar! < rightEar!, "left then right: \(windows.count) windows")
    }
}

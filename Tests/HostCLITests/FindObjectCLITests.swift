import Foundation
import HostTesting
import Testing

/// find-object end to end: the real dog from Debian's darknet `dog.jpg` pasted onto another real picture at
/// known places that move across frames, fed through the folder camera source; the guidance events (each one a
/// cue request) and the printed phrases are checked in order.
@Suite("assist run find-object", .serialized)
struct FindObjectCLITests {
    static let photos = "/usr/share/darknet/data"

    /// Frames with the dog's centre at each x (nil: no dog), 800×600.
    func frames(_ positions: [Double?]) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory("assist-find-frames")
        for (index, position) in positions.enumerated() {
            var arguments = ["\(Self.photos)/scream.jpg", "-resize", "800x600!"]
            if let position {
                arguments += [
                    "(", "\(Self.photos)/dog.jpg", "-crop", "190x320+130+220", "+repage", ")", "-geometry",
                    "+\(Int(position * 800) - 95)+140", "-composite",
                ]
            }
            arguments.append(folder.path(String(format: "f%02d.png", index)).path)
            let made = try ProcessRunner.run("/usr/bin/convert", arguments)
            #expect(made.status == 0, "\(made.standardError)")
        }
        return folder
    }

    /// `count` frames (ffmpeg's overlay, frame by frame) of the dog on scream.jpg at 800×600, its centre at `x`
    /// of the width, an ffmpeg expression of the frame number `n`; scaled to `size`; written to `pattern`.
    func movingDog(count: Int, x: String, to pattern: URL, size: String = "800:600") throws {
        let made = try ProcessRunner.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-loop", "1", "-i", "\(Self.photos)/scream.jpg", "-loop", "1", "-i",
                "\(Self.photos)/dog.jpg", "-filter_complex",
                "[0]scale=800:600,setsar=1[bg];[1]crop=190:320:130:220[dog];"
                    + "[bg][dog]overlay=x='(\(x))*800-95':y=140,scale=\(size)",
                "-frames:v", "\(count)", "-q:v", "3", pattern.path,
            ], timeoutSeconds: 120)
        try #require(made.status == 0, "\(made.standardError)")
    }

    func run(
        _ folder: TemporaryDirectory, _ arguments: [String], data: TemporaryDirectory, input: String? = nil,
        config: String? = nil, timeout: Double = 90, framesPerSecond: Double = 5
    ) throws -> ProcessResult {
        var options = ["--no-speech", "--camera", "dir:\(folder.url.path)", "--camera-fps", "\(framesPerSecond)"]
        options.append("--data-dir")
        options.append(data.url.path)
        if let config {
            try config.write(to: data.path("config.toml"), atomically: false, encoding: .utf8)
            options += ["--config", data.path("config.toml").path]
        }
        return try ProcessRunner.run(
            BuildProducts.assist, ["run"] + options + ["find-object"] + arguments, input: input, timeoutSeconds: timeout
        )
    }

    func events(_ data: TemporaryDirectory) throws -> [(name: String, payload: [String: Any])] {
        let text = try String(contentsOf: data.path("events.jsonl"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let name = object["name"] as? String
            else { return nil }
            return (name, object["payload"] as? [String: Any] ?? [:])
        }
    }

    @Test func leftOfCentreThenCentredThenLost() throws {
        // 2.5 frames a second (half that in the sanitizer lanes) leaves time to search most frames even on a
        // busy machine; a frame that comes while the last is searched is skipped, as with a real camera.
        // Losing the target takes 10 searched frames without it (conviction 10, −1 each) and a second unseen:
        // 30 empty frames leave room for a third of them skipped. The dog stays centred for 10 frames: with the
        // frames at 0.3 and 0.42 skipped, the tracker's predicted position can overshoot to "right" for a few
        // searched frames first (seen in CI under load, with 4).
        let folder = try frames(
            Array(repeating: 0.18, count: 4) + [0.3, 0.42] + Array(repeating: 0.5, count: 10)
                + Array(repeating: nil, count: 30))
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["dog"], data: data, framesPerSecond: 2.5 / min(ProcessRunner.timeScale, 2))
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.lines
        let order = ["Looking for object: dog", "left", "Object centered!", "dog lost"].map { lines.firstIndex(of: $0) }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { ($0 ?? 0) < ($1 ?? 0) }, "\(lines)")
        #expect(lines.last == "The pictures from \(folder.url.lastPathComponent) have ended.", "\(lines)")

        let guidance = try events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
        let first = try #require(guidance.first)
        #expect(first["direction"] as? String == "left" && first["pattern"] as? Int == 0)
        #expect((first["pan"] as? Double ?? 0) < -0.5, "panned left: \(first)")
        let last = try #require(guidance.last)
        #expect(
            last["direction"] as? String == "centered" && last["pattern"] as? Int == 4
                && last["intensity"] as? Double == 1)
        // The spec's prediction (a line through the last three searched positions, find-object.md §3) runs a frame
        // or two past the centre when frames were skipped on the way in (under load): 0.18, then 0.5 searched
        // twice gives "centered", then "right". Once the dog has stood still for three searched frames, and
        // while it is lost, the guidance is centred.
        let directions = guidance.compactMap { $0["direction"] as? String }
        #expect(directions.suffix(3) == ["centered", "centered", "centered"], "\(directions)")
        #expect(try events(data).contains { $0.name == "assist.find-object.lost" })
    }

    /// Issue 37: the dog moved across a real picture at 30 frames a second on a path the test knows (ffmpeg's
    /// overlay, frame by frame). Between detections the follower moves the cue with it: most guided frames take
    /// their position from the follower, not from a detection, and each guidance event is near where the dog
    /// really was in its frame, with the direction a person should turn.
    @Test func theCueFollowsAMovingTargetBetweenDetections() throws {
        let count = 90
        func truth(_ frame: Int) -> Double { 0.2 + 0.6 * Double(frame) / Double(count - 1) }
        let folder = try TemporaryDirectory("assist-find-moving")
        try movingDog(count: count, x: "0.2+0.6*n/\(count - 1)", to: folder.path("f%03d.png"))
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["dog"], data: data, framesPerSecond: 30 / ProcessRunner.timeScale)
        #expect(result.status == 0, "\(result.standardError)")
        let guidance = try events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
        let guided = guidance.compactMap { event -> (frame: Int, x: Double, direction: String, from: String)? in
            guard let frame = event["frame"] as? Int, let x = event["x"] as? Double,
                let direction = event["direction"] as? String, let from = event["from"] as? String
            else { return nil }
            return (frame, x, direction, from)
        }
        try #require(guided.count >= 10, "\(guidance)")
        // Most cues come from the follower. The sanitizer lanes slow the frames (30 / timeScale a second) but not
        // the detector, which is OpenCV's and not instrumented: there a detection is ready for about every
        // other frame (rehearsal ci77 under ASan: 31 of 62 followed), so a third is asked of the follower.
        let followed = guided.filter { $0.from == "follower" }.count
        let share = ProcessRunner.timeScale > 1 ? 1.0 / 3 : 0.5
        #expect(Double(followed) > share * Double(guided.count), "cues between detections: \(guided.map(\.from))")
        // Near: within 0.05 of the width. Under load the first detection ends some frames late and the cues that
        // follow it lag until the next one (rehearsal ci53: frames 9 to 18 at 0.055 behind, 50 of 56 near); the
        // direction, which the person hears, is held to 95 % below.
        let near = guided.filter { abs($0.x - truth($0.frame)) <= 0.05 }.count
        #expect(Double(near) >= 0.85 * Double(guided.count), "\(guided.map { ($0.frame, $0.x - truth($0.frame)) })")
        // The direction where the dog is clearly on one side of a boundary (0.4 and 0.6 of the width): more than
        // 0.07 away, the 0.04 a side said before is kept past its boundary (`GuidanceDecision.hysteresis`, issue 72)
        // and 0.03 for where the follower puts it. With 0.03 alone, a cue kept "left" at 0.43 was counted wrong
        // (rehearsal of f570d34: 33 of 35).
        let clear = guided.filter { abs(truth($0.frame) - 0.4) > 0.07 && abs(truth($0.frame) - 0.6) > 0.07 }
        let right = clear.filter {
            $0.direction == (truth($0.frame) < 0.4 ? "left" : truth($0.frame) > 0.6 ? "right" : "centered")
        }
        #expect(Double(right.count) >= 0.95 * Double(clear.count), "\(clear.map { ($0.frame, $0.direction) })")
    }

    /// Issue 37's bad input: a camera sending 120 pictures a second, of two sizes in turn (800×600 and
    /// 640×480), while the dog stands left of the middle, leaves the picture for seven seconds and comes back
    /// right of it (losing it takes ten searches without it and a second: three seconds with both cores busy,
    /// over four once when a browser test ran beside it, so the dog stays away seven). Pictures that come while the last is worked on are dropped, not queued: each cue is
    /// given within half a second of its picture's capture; the follower takes a picture of the other size as
    /// a new start; the dog is lost while away and guided to again on the right when back.
    @Test func aFastCameraOfTwoSizesAndADogThatLeavesAndComesBack() throws {
        let count = 1_140
        let folder = try TemporaryDirectory("assist-find-fast")
        // Left of the middle for a second, away for seven, right of it for a second and a half.
        let x = "if(lt(n,120),0.25,if(lt(n,960),2,0.72))"
        for (size, parity) in [("800:600", 0), ("640:480", 1)] {
            try movingDog(count: count, x: x, to: folder.path("\(parity)-%03d.jpg"), size: size)
        }
        // Picture n of the sequence is the one of size n % 2; the others go.
        for index in 0..<count {
            let keep = folder.path(String(format: "%d-%03d.jpg", index % 2, index + 1))
            try FileManager.default.moveItem(at: keep, to: folder.path(String(format: "f%03d.jpg", index)))
            try FileManager.default.removeItem(at: folder.path(String(format: "%d-%03d.jpg", 1 - index % 2, index + 1)))
        }
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["dog"], data: data, framesPerSecond: 120 / ProcessRunner.timeScale)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.lines.contains("dog lost"), "\(result.lines)")
        let all = try events(data)
        let lost = try #require(all.firstIndex { $0.name == "assist.find-object.lost" })
        let guidance = all.enumerated().compactMap { index, event -> (index: Int, payload: [String: Any])? in
            event.name == "assist.find-object.guidance" ? (index, event.payload) : nil
        }
        let before = guidance.filter { $0.index < lost }.compactMap { $0.payload["direction"] as? String }
        let after = guidance.filter { $0.index > lost }.map(\.payload)
        #expect(before.contains("left"), "\(before)")
        #expect(
            after.contains { ($0["direction"] as? String) == "right" && ($0["frame"] as? Int ?? 0) >= 960 },
            "guided again once back: \(after)")
        let latencies = guidance.compactMap { $0.payload["latency_ms"] as? Double }.sorted()
        try #require(latencies.count >= 10, "\(guidance.count) cues")
        let p95 = latencies[latencies.count * 95 / 100]
        #expect(p95 <= 500 * ProcessRunner.timeScale, "no queue grows: cues p95 \(p95) ms after their picture")
        #expect(guidance.count < count, "pictures are dropped, not all cued")
    }

    /// Issue 39, item 3: two people cross, the target (the one nearest the middle at first, darknet's
    /// person.jpg) walking right while the other (scikit-image's astronaut) walks into the middle. Nearest the
    /// middle would hop to the astronaut half way; the embedder keeps the sounds on the first person.
    @Test func theTargetStaysTheSamePersonWhenAnotherComesNearerTheMiddle() throws {
        let count = 30
        func first(_ frame: Int) -> Double { 0.45 + 0.4 * Double(frame) / Double(count - 1) }
        func other(_ frame: Int) -> Double { 0.1 + 0.4 * Double(frame) / Double(count - 1) }
        let folder = try TemporaryDirectory("assist-find-crowd")
        let photos = BuildProducts.packageRoot.appendingPathComponent(".build/test-photos").path
        for frame in 0..<count {
            let made = try ProcessRunner.run(
                "/usr/bin/convert",
                [
                    "\(photos)/grass.png", "-resize", "800x600!", "(", "\(Self.photos)/person.jpg", "-crop",
                    "90x295+186+88", "+repage", ")", "-geometry", "+\(Int(first(frame) * 800) - 45)+150", "-composite",
                    "(", "\(photos)/astronaut.png", "-crop", "360x512+30+0", "+repage", "-resize", "x300", ")",
                    "-geometry", "+\(Int(other(frame) * 800) - 105)+150", "-composite",
                    folder.path(String(format: "f%02d.png", frame)).path,
                ])
            try #require(made.status == 0, "\(made.standardError)")
        }
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["person"], data: data, framesPerSecond: 2.5 / min(ProcessRunner.timeScale, 2))
        #expect(result.status == 0, "\(result.standardError)")
        let guided = try events(data).filter { $0.name == "assist.find-object.guidance" }.compactMap {
            event -> (frame: Int, x: Double)? in
            guard let frame = event.payload["frame"] as? Int, let x = event.payload["x"] as? Double else { return nil }
            return (frame, x)
        }
        try #require(guided.count >= 8, "\(guided)")
        let onFirst = guided.filter { abs($0.x - first($0.frame)) < abs($0.x - other($0.frame)) }
        #expect(
            Double(onFirst.count) >= 0.95 * Double(guided.count),
            "\(guided.map { ($0.frame, $0.x, first($0.frame), other($0.frame)) })")
        #expect(guided.contains { $0.frame >= count * 2 / 3 }, "still guided when the other is in the middle")
    }

    @Test func unknownNamesGetTheClosestOnesAndBadQueriesOneSentence() throws {
        let folder = try frames([nil])
        let data = try TemporaryDirectory("assist-find-data")
        let unknown = try run(folder, ["dgo"], data: data)
        #expect(unknown.status != 0)
        #expect(
            unknown.lines.contains { $0.hasPrefix("Object not found: dgo. Closest names: dog") }, "\(unknown.lines)")
        let gap = try run(folder, ["wallet"], data: data)
        #expect(
            gap.lines.contains(
                "Your wallet is not known yet. Say teach find object, or run: assist run find-object teach wallet, to film yours."
            ), "\(gap.lines)")
        let bang = try run(folder, ["--text", "!!!"], data: data)
        #expect(bang.lines.contains("The text to find needs at least one letter or digit."))
        // An option it does not have is refused as one, not searched for (the sweep's `--frobnicate` looked for a
        // cat until it was stopped).
        let option = try run(folder, ["--frobnicate"], data: data)
        #expect(option.status != 0)
        #expect(
            option.lines.contains { $0.hasPrefix("Unknown option --frobnicate. find-object takes an object's name") },
            "\(option.lines)")
        #expect(!option.lines.contains { $0.hasPrefix("Looking for") }, "\(option.lines)")
    }

    @Test func aMissingModelSaysHowToInstallIt() throws {
        let folder = try frames([nil])
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

    @Test func textSearchGuidesToTheWordInsideItsLine() throws {
        let folder = try TemporaryDirectory("assist-find-text-frames")
        // "EXIT" is the right-hand word of its line: with the line centred, the word is right of centre.
        for (index, x) in [60, 60, 60, 60, 60, 60].enumerated() {
            let made = try ProcessRunner.run(
                "/usr/bin/convert",
                [
                    "-size", "800x600", "xc:white", "-font", "DejaVu-Sans", "-pointsize", "44", "-fill", "black",
                    "-annotate", "+\(x)+300", "EMERGENCY DOOR EXIT",
                    folder.path(String(format: "t%02d.png", index)).path,
                ])
            #expect(made.status == 0, "\(made.standardError)")
        }
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["--text", "Exit"], data: data)
        #expect(result.linesAfterNotice.first == "Looking for text: exit", "\(result.lines)")
        let guidance = try events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
        let first = try #require(guidance.first, "\(result)")
        #expect(first["direction"] as? String == "right" && (first["pan"] as? Double ?? 0) > 0.2, "\(first)")
        // The word's own box: "EXIT" is the last 99 of the line's 539 pixels at this size (ImageMagick's
        // label widths), so its middle is at (60 + 539 − 49.5) / 800.
        #expect(abs((first["x"] as? Double ?? 0) - 0.687) < 0.02, "the word's middle: \(first)")
        #expect(abs((first["y"] as? Double ?? 0) - 0.473) < 0.03, "the line's middle, y down: \(first)")
        #expect(result.lines.contains("right"))
    }

    @Test func textNearTheTopIsUpAndNearTheBottomDown() throws {
        for (baseline, direction) in [(90, "up"), (540, "down")] {
            let folder = try TemporaryDirectory("assist-find-text-frames")
            for index in 0..<5 {
                let made = try ProcessRunner.run(
                    "/usr/bin/convert",
                    [
                        "-size", "800x600", "xc:white", "-font", "DejaVu-Sans", "-pointsize", "44", "-fill", "black",
                        "-annotate", "+330+\(baseline)", "EXIT", folder.path(String(format: "t%02d.png", index)).path,
                    ])
                #expect(made.status == 0, "\(made.standardError)")
            }
            let data = try TemporaryDirectory("assist-find-data")
            let result = try run(folder, ["--text", "exit"], data: data)
            let guidance = try events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
            let first = try #require(guidance.first, "\(result)")
            #expect(first["direction"] as? String == direction, "\(first)")
            #expect(result.lines.contains(direction), "\(result.lines)")
        }
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
        let folder = try frames(Array(repeating: 0.18, count: 4))
        let data = try TemporaryDirectory("assist-find-data")
        let environment = ["ASSIST_MODELS_DIR": models.url.path]
        var options = ["run", "--no-speech", "--camera", "dir:\(folder.url.path)", "--camera-fps", "2.5"]
        options += ["--data-dir", data.url.path, "find-object"]
        let search = try ProcessRunner.run(BuildProducts.assist, options + ["hound"], environment: environment)
        #expect(search.linesAfterNotice.first == "Looking for object: hound", "\(search)")
        let guidance = try events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
        #expect(guidance.first?["direction"] as? String == "left", "\(guidance)")

        let check = try ProcessRunner.run(BuildProducts.assist, options + ["--check-models"], environment: environment)
        #expect(check.status != 0)
        #expect(
            check.lines == [
                "The custom model broken cannot be used: model.weights does not have the SHA-256 model.json gives. Fix its folder or remove it.",
                "The custom model hounds is ready: 80 classes, every file checked.",
            ], "\(check)")
    }

    @Test func withoutANameItAsksAndOffersTheNumberedList() throws {
        let folder = try frames([0.5, 0.5, 0.5, 0.5])
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, [], data: data, input: "\n17\n")
        #expect(result.lines.first == "What should I find? Type its name, or press Enter for the list.", "\(result)")
        #expect(result.lines.contains("17. dog") && result.lines.contains("80. toothbrush"))
        #expect(result.lines.contains("Looking for object: dog"))
    }

    @Test func textSearchesAreRememberedNewestFirst() throws {
        let folder = try frames([nil])
        let data = try TemporaryDirectory("assist-find-data")
        _ = try run(folder, ["--text", "Exit"], data: data)
        _ = try run(folder, ["--text", "way out"], data: data)
        _ = try run(folder, ["--text", "exit"], data: data)
        let asked = try run(folder, ["--text"], data: data, input: "2\n")
        let lines = asked.lines
        #expect(
            lines.contains("1. exit") && lines.contains("2. way out") && lines.contains("3. Something new"), "\(lines)")
        #expect(lines.contains("Looking for text: way out"))
    }

    @Test func clockDirectionsAndAutoPause() throws {
        let folder = try frames(Array(repeating: 0.18, count: 20))
        let data = try TemporaryDirectory("assist-find-data")
        let config = """
            [find-object]
            directions = "clock"
            auto-pause = 3
            """
        let result = try run(folder, ["dog"], data: data, config: config, timeout: 8)
        #expect(result.lines.contains("dog at 11 o'clock"), "\(result.lines)")
        let notice = "Object search paused. Press Space, or say resume, to go on."
        #expect(result.lines.contains(notice), "\(result.lines)")
        let paused = try #require(result.lines.firstIndex(of: notice))
        #expect(!result.lines[paused...].contains("dog at 11 o'clock"), "nothing is said while paused")
    }

    @Test func quickZoomStepsSayOnlyTheLevelReached() throws {
        let folder = try frames([0.5, 0.5, 0.5])
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["dog"], data: data, input: "zoom in\nzoom in\n")
        #expect(result.lines.contains("zoom one point eight"), "\(result.lines)")
        #expect(!result.lines.contains("zoom one point two five"), "the first step is not said: 100 ms debounce")
    }

    /// find-object run on a terminal over a blank grey picture, looking for a cup, its camera allowed; `extra`
    /// goes before the feature's name.
    static func lookingForACup(_ data: TemporaryDirectory, extra: [String] = []) throws -> PseudoTerminal {
        let blank = data.path("blank.png")
        let made = try ProcessRunner.run("/usr/bin/convert", ["-size", "640x480", "xc:gray60", blank.path])
        try #require(made.status == 0)
        let screen = try PseudoTerminal(
            BuildProducts.assist,
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
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
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

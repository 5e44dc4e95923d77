import AssistApp
import Foundation
import HostTesting
import Testing

/// find-object run by the app in process (`InProcessApp`): the real dog from Debian's darknet `dog.jpg` pasted
/// onto another real picture at known places that move across frames, fed through the folder camera source; the
/// guidance events (each one a cue request) and the printed phrases are checked in order.
@Suite("find-object, the app in process", .serialized)
struct FindObjectInProcessTests {
    /// find-object with `arguments` on the frames in `folder` at `framesPerSecond`, its data in `data`; after
    /// `timeout` seconds the terminal hangs up.
    func run(
        _ folder: TemporaryDirectory, _ arguments: [String], data: TemporaryDirectory, input: String? = nil,
        config: String? = nil, timeout: Double = 90, framesPerSecond: Double = 5
    ) throws -> ProcessResult {
        var options = ["--no-speech", "--camera", "dir:\(folder.url.path)", "--camera-fps", "\(framesPerSecond)"]
        options += ["--data-dir", data.url.path]
        if let config {
            try config.write(to: data.path("config.toml"), atomically: false, encoding: .utf8)
            options += ["--config", data.path("config.toml").path]
        }
        return try InProcessApp.run(
            ["run"] + options + ["find-object"] + arguments, input: input, timeoutSeconds: timeout)
    }

    @Test func leftOfCentreThenCentredThenLost() throws {
        // 2.5 frames a second (half that in the sanitizer lanes) leaves time to search most frames even on a
        // busy machine; a frame that comes while the last is searched is skipped, as with a real camera.
        // Losing the target takes 10 searched frames without it (conviction 10, −1 each) and a second unseen:
        // 30 empty frames leave room for a third of them skipped. The dog stays centred for 10 frames: with the
        // frames at 0.3 and 0.42 skipped, the tracker's predicted position can overshoot to "right" for a few
        // searched frames first (seen in CI under load, with 4).
        let folder = try DogScenes.frames(
            Array(repeating: 0.18, count: 4) + [0.3, 0.42] + Array(repeating: 0.5, count: 10)
                + Array(repeating: nil, count: 30))
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["dog"], data: data, framesPerSecond: 2.5 / min(ProcessRunner.timeScale, 2))
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.lines
        let order = ["Looking for object: dog", "left", "Object centered!", "dog lost"].map { lines.firstIndex(of: $0) }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { ($0 ?? 0) < ($1 ?? 0) }, "\(lines)")
        #expect(lines.last == "The pictures from \(folder.url.lastPathComponent) have ended.", "\(lines)")

        let guidance = try DogScenes.events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
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
        #expect(try DogScenes.events(data).contains { $0.name == "assist.find-object.lost" })
    }

    /// Issue 37: the dog moved across a real picture at 30 frames a second on a path the test knows (ffmpeg's
    /// overlay, frame by frame). Between detections the follower moves the cue with it: most guided frames take
    /// their position from the follower, not from a detection, and each guidance event is near where the dog
    /// really was in its frame, with the direction a person should turn.
    @Test func theCueFollowsAMovingTargetBetweenDetections() throws {
        let count = 90
        func truth(_ frame: Int) -> Double { 0.2 + 0.6 * Double(frame) / Double(count - 1) }
        let folder = try TemporaryDirectory("assist-find-moving")
        try DogScenes.movingDog(count: count, x: "0.2+0.6*n/\(count - 1)", to: folder.path("f%03d.png"))
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["dog"], data: data, framesPerSecond: 30 / ProcessRunner.timeScale)
        #expect(result.status == 0, "\(result.standardError)")
        let guidance = try DogScenes.events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
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
            try DogScenes.movingDog(count: count, x: x, to: folder.path("\(parity)-%03d.jpg"), size: size)
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
        let all = try DogScenes.events(data)
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
                    "\(photos)/grass.png", "-resize", "800x600!", "(", "\(DogScenes.photos)/person.jpg", "-crop",
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
        let guided = try DogScenes.events(data).filter { $0.name == "assist.find-object.guidance" }.compactMap {
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
        let folder = try DogScenes.frames([nil])
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
        let guidance = try DogScenes.events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
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
            let guidance = try DogScenes.events(data).filter { $0.name == "assist.find-object.guidance" }.map(\.payload)
            let first = try #require(guidance.first, "\(result)")
            #expect(first["direction"] as? String == direction, "\(first)")
            #expect(result.lines.contains(direction), "\(result.lines)")
        }
    }

    @Test func withoutANameItAsksAndOffersTheNumberedList() throws {
        let folder = try DogScenes.frames([0.5, 0.5, 0.5, 0.5])
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, [], data: data, input: "\n17\n")
        #expect(result.lines.first == "What should I find? Type its name, or press Enter for the list.", "\(result)")
        #expect(result.lines.contains("17. dog") && result.lines.contains("80. toothbrush"))
        #expect(result.lines.contains("Looking for object: dog"))
    }

    @Test func textSearchesAreRememberedNewestFirst() throws {
        let folder = try DogScenes.frames([nil])
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
        let folder = try DogScenes.frames(Array(repeating: 0.18, count: 20))
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
        let folder = try DogScenes.frames([0.5, 0.5, 0.5])
        let data = try TemporaryDirectory("assist-find-data")
        let result = try run(folder, ["dog"], data: data, input: "zoom in\nzoom in\n")
        #expect(result.lines.contains("zoom one point eight"), "\(result.lines)")
        #expect(!result.lines.contains("zoom one point two five"), "the first step is not said: 100 ms debounce")
    }
}

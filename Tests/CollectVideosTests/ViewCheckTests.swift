import CollectVideosCore
import Foundation
import HostTesting
import Testing

/// The camera check while filming, on frames rendered at test time from the real photos Debian's darknet
/// package ships: each photo as it is reads as fine, and darkened, blurred, covered or emptied each reads as
/// that problem; then a dark clip filmed through the real binary hears "Too dark."
@Suite("collect-videos camera check")
struct ViewCheckTests {
    static let photos = ["dog", "eagle", "giraffe", "horses", "kite", "person", "scream"].map {
        "/usr/share/darknet/data/\($0).jpg"
    }

    /// One BGR24 frame of `source` squared, through `filter`, at `side` pixels.
    static func frame(_ source: [String], filter: String, side: Int) throws -> ViewLook? {
        let vf = "crop='min(iw,ih)':'min(iw,ih)',\(filter.isEmpty ? "" : filter + ",")scale=\(side):\(side)"
        let folder = try TemporaryDirectory("assist-view-frame")
        let file = folder.path("frame.bgr")
        let made = try ProcessRunner.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y"] + source + [
                "-vf", vf, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "bgr24", file.path,
            ])
        try #require(made.status == 0, "\(made.standardError)")
        let bytes = [UInt8](try Data(contentsOf: file))
        try #require(bytes.count == side * side * 3)
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { ViewLook.of(bgr: $0, width: side, height: side, stride: side * 3) }
        }
    }

    @Test(arguments: [540, 1080])
    func realScenesAreFineAndSpoiledOnesAreNamed(side: Int) throws {
        let blur = "gblur=sigma=\(Double(side) * 0.015)"
        for photo in Self.photos {
            let input = ["-i", photo]
            let name = (photo as NSString).lastPathComponent
            let plain = try #require(try Self.frame(input, filter: "", side: side))
            #expect(plain.problem == nil, "\(name) as it is: \(plain)")
            #expect(
                try Self.frame(input, filter: "eq=brightness=-0.35:contrast=0.3", side: side)?.problem == .dark,
                "\(name)")
            #expect(try Self.frame(input, filter: blur, side: side)?.problem == .blurred, "\(name) blurred")
        }
        let covered = ["-f", "lavfi", "-i", "color=c=0x140a08:size=640x480"]
        #expect(try Self.frame(covered, filter: "noise=alls=3", side: side)?.problem == .covered)
        let wall = ["-f", "lavfi", "-i", "color=c=0xd8d4cc:size=640x480"]
        #expect(try Self.frame(wall, filter: "noise=alls=3", side: side)?.problem == .emptyCentre)
    }

    @Test func aProblemIsSaidOnceItLastsAndAgainOnlyAfterTheViewWasFine() {
        var watch = ViewWatch()
        var said: [ViewProblem?] = []
        var time = 0.0
        func feed(_ problem: ViewProblem?, _ count: Int) {
            for _ in 0..<count {
                time += 0.17
                said.append(watch.check(problem, at: time))
            }
        }
        feed(.dark, 3)
        #expect(said.compactMap { $0 }.isEmpty, "a passing shadow is not said")
        feed(nil, 1)
        feed(.dark, 10)
        #expect(said.compactMap { $0 } == [.dark], "said once, after 4 checks")
        feed(nil, 2)
        feed(.dark, 10)
        #expect(said.compactMap { $0 } == [.dark], "not again after a moment's light")
        feed(nil, 6)
        feed(.dark, 10)
        #expect(said.compactMap { $0 } == [.dark, .dark], "again once the view was fine for a while")
    }

    /// Filming a dark room through the real binary: "Too dark." is said while filming, after its earcon, and
    /// the clip is kept.
    @Test func filmingADarkRoomSaysTooDark() throws {
        let folder = try TemporaryDirectory("assist-orbit-view")
        let server = try FakeOrbitServer()
        try OrbitFixtures.writeConfig(to: folder.path("config.toml"), serverURL: server.baseURL)
        let made = try ProcessRunner.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-loop", "1", "-i", Self.photos[0], "-vf",
                "crop='min(iw,ih)':'min(iw,ih)',scale=720:720,eq=brightness=-0.35:contrast=0.3", "-r", "30", "-t", "7",
                "-pix_fmt", "yuv420p", folder.path("dark.mp4").path,
            ])
        try #require(made.status == 0, "\(made.standardError)")
        try OrbitFixtures.takePart(in: folder, camera: "dark.mp4")
        let filmed = try OrbitFixtures.run(
            ["record", "Red cup", "--kind", "testing", "--seconds", "5"], in: folder, camera: "dark.mp4")
        #expect(filmed.lines.filter { $0 == "Too dark." }.count == 1, "\(filmed.lines)")
        #expect(filmed.lines.last == "Stopped at 5 seconds. Testing video 1 of 2 saved.", "\(filmed.lines)")
    }

    /// The viewfinder on the low-vision view while filming through the real binary, in Debian's chromium: the
    /// time filmed counts up over the preview ("Filming: 1 of 8 seconds"), the square the clip keeps is
    /// outlined where the encoder crops (the middle, the picture's height a side) and the rest is darkened,
    /// axe-core finds nothing, and the line goes once the clip is saved. The page is opened first, on the shell's
    /// view, and filming starts on the same port once it is open (the page finds Assist again by itself): a
    /// browser slow to start on a busy machine opened the page after the 8 seconds, or at the 5th.
    @Test func theViewfinderShowsTheSquareAndTheTimeFilmed() throws {
        let folder = try TemporaryDirectory("assist-orbit-viewfinder")
        let server = try FakeOrbitServer()
        try OrbitFixtures.writeConfig(to: folder.path("config.toml"), serverURL: server.baseURL)
        let made = try TestMedia.ffmpeg(
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0xc8c8c8:size=640x480:rate=30", "-t", "40",
                "-pix_fmt", "yuv420p",
            ], output: folder.path("grey.mp4").path)
        try #require(made.status == 0, "\(made.standardError)")
        try OrbitFixtures.takePart(in: folder, camera: "grey.mp4")
        let port = try ListeningSocket().port  // free once closed
        let options = [
            "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path,
            "--camera", "video:" + folder.path("grey.mp4").path, "--view-port", String(port),
        ]
        let shell = try ViewedShell(options, environment: ["LANG": "en_US.UTF-8"])
        let address = try #require(shell.address(), "\(shell.standardError)")
        let browser = try BrowserRun("viewfinder", address, folder: folder.url)
        try #require(browser.pageOpened(within: 120), "the page did not open")
        #expect(shell.finish() == 0)
        let filming = try ViewedShell(
            options, environment: ["LANG": "en_US.UTF-8"],
            command: ["run", "collect-videos", "record", "Red cup", "--kind", "testing", "--seconds", "8"])
        #expect(filming.address() == address, "the same port and token: \(filming.standardError)")
        let seen = try browser.result()
        let lines = seen["lines"] as? [String] ?? []
        let counted = lines.compactMap { line -> Int? in
            guard line.hasPrefix("Filming: "), line.hasSuffix(" of 8 seconds") else { return nil }
            return Int(line.dropFirst("Filming: ".count).prefix { $0.isNumber })
        }
        #expect(counted.count == lines.count && !counted.isEmpty, "\(lines)")
        #expect(counted == counted.sorted() && counted.last ?? 0 >= 6, "counts up to the end: \(lines)")
        let picture = try #require(seen["picture"] as? [String: Any], "\(seen)")
        let square = picture["square"] as? [Double] ?? []
        // 640 by 480 (or that shape, smaller): the square is 0.75 of the width, 0.125 in from the left.
        #expect(
            square.count == 3 && abs(square[0] - 0.125) < 0.01 && square[1] == 0 && abs(square[2] - 0.75) < 0.01,
            "\(picture)")
        let inside = picture["inside"] as? Double ?? 0
        let outside = picture["outside"] as? Double ?? 0
        #expect(inside > 180 && outside < inside * 0.5, "the square as filmed, the rest darkened: \(picture)")
        #expect((seen["axe"] as? [String]) == [], "axe-core: \(seen["axe"] ?? "none")")
        #expect(seen["hidden_after"] as? Bool == true, "the line goes once filming stops: \(seen)")
        #expect(filming.wait(60) { !filming.process.isRunning }, "\(filming.standardOutput)")
        #expect(
            filming.standardOutput.contains("Stopped at 8 seconds. Testing video 1 of 2 saved."),
            "\(filming.standardOutput)")
    }
}

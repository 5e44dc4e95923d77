import Foundation
import HostTesting
import Testing

/// The low-vision view (docs/view.md) in a real browser: `assist shell --view` as a person starts it, its page in
/// Debian's chromium driven by Playwright (`view_browser.py`, from `scripts/test-view.sh`'s environment), what
/// the page shows judged here against what the host said, and the terminal's session after the page is gone.
@Suite("the low-vision view in a real browser", .serialized)
struct ViewBrowserTests {
    let folder: TemporaryDirectory
    let page: URL

    init() throws {
        folder = try TemporaryDirectory("assist-view")
        page = folder.path("page.png")
        try PageRenderer.renderTwoLinePage(to: page)
    }

    func shell(
        _ arguments: [String] = [], environment: [String: String] = [:], command: [String] = ["shell"],
        camera: URL? = nil
    ) throws -> ViewedShell {
        try ViewedShell(
            ["--camera", "image:\((camera ?? page).path)"] + arguments,
            environment: [
                "ASSIST_DATA_DIR": folder.path("data").path, "XDG_CONFIG_HOME": folder.path("config").path,
                "LANG": "en_US.UTF-8",
            ].merging(environment) { $1 }, command: command)
    }

    /// What `view_browser.py SCENARIO` saw, as JSON.
    func browse(_ scenario: String, _ address: String) throws -> [String: Any] {
        try ViewBrowser.browse(scenario, address, folder: folder.url)
    }

    @Test func thePageAndItsSocketNeedTheTokenTheAddressAndTheOrigin() throws {
        let shell = try shell()
        defer { _ = shell.finish() }
        let address = try #require(shell.address())
        #expect(address.hasPrefix("http://127.0.0.1:"))
        #expect(shell.standardError.components(separatedBy: "View: ").count == 2, "printed once")
        let seen = try browse("security", address)
        #expect(seen["page"] as? Int == 200)
        #expect(seen["no_token"] as? Int == 403)
        #expect(seen["wrong_token"] as? Int == 403)
        #expect(seen["other_host"] as? Int == 403, "a name that resolves to loopback is not the page's address")
        #expect(seen["asset"] as? Int == 200)
        #expect(seen["unknown_asset"] as? Int == 404)
        let policy = try #require(seen["policy"] as? String)
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"), "\(policy)")
        #expect(seen["socket_with_token"] as? Bool == true)
        #expect(seen["socket_without_token"] as? Bool == false)
        #expect(seen["socket_other_origin"] as? Bool == false)
        #expect(seen["inline_script_ran"] as? Bool == false, "the policy refuses a script the page did not ship")
        #expect(shell.standardError.contains("view: refused a request without the session's token"))
        // After 3,000 messages in a burst, most dropped, the terminal's session answers at once.
        #expect(shell.standardError.contains("came too fast and were dropped"))
        shell.type("talking clock")
        #expect(shell.wait(20) { shell.standardOutput.contains("It is ") }, "\(shell.standardOutput.suffix(800))")
        #expect(shell.finish() == 0)
    }

    // One at a time: two browsers and two hosts at once load both cores, and timing tests run beside this suite.
    @Test(.serialized, arguments: ["click", "keys"])
    func readTextChosenOnThePageIsShownAsItIsHeard(by: String) throws {
        let shell = try shell()
        let address = try #require(shell.address())
        let seen = try browse(by, address)
        let menu = try #require(seen["menu"] as? [String])
        #expect(menu.contains("6. Read text") && menu.last == "10. Quit", "\(menu)")
        #expect(seen["focused_at_menu"] as? String == "1. Barcode", "focus follows the dialog")
        if by == "keys" { #expect(seen["focused_before_enter"] as? String == "6. Read text") }
        #expect(seen["title"] as? String == "Read text")
        let lines = try #require(seen["lines"] as? [String])
        for sentence in ["Call Dr. Smith tomorrow morning.", "He is in.", "Reading aloud helps people who cannot see."]
        {
            #expect(lines.contains(sentence), "\(lines)")
            #expect(shell.standardOutput.contains(sentence), "the page shows what the terminal printed")
        }
        // The page being read, as text, its sentence being read marked, in order.
        #expect(
            seen["sentences"] as? [String]
                == ["Call Dr. Smith tomorrow morning.", "He is in.", "Reading aloud helps people who cannot see."])
        let marked = (seen["current_sentences"] as? [String]) ?? []
        #expect(
            marked.filter { !$0.isEmpty }
                == ["Call Dr. Smith tomorrow morning.", "He is in.", "Reading aloud helps people who cannot see."],
            "\(marked)")
        // The picture read, beside the text: each sentence's lines outlined on it, and what lies inside the outline
        // is that sentence (tesseract reads it off the picture the page was given). The first two share a line.
        let outlined = (seen["outlined"] as? [[String: Any]]) ?? []
        #expect(outlined.map { $0["sentence"] as? Int } == [0, 1, 2], "\(outlined)")
        let boxes = outlined.map { ($0["boxes"] as? [[Double]]) ?? [] }
        let texts = outlined.map { (($0["ocr"] as? [String]) ?? []).joined(separator: " ") }
        if boxes.count == 3, let first = boxes[0].first, let third = boxes[2].first {
            #expect(boxes[0] == boxes[1], "one line holds both sentences: \(boxes)")
            #expect(third[1] > first[1] + first[3] / 2, "the third sentence is on the line below: \(boxes)")
            #expect(boxes.joined().allSatisfy { $0.count == 4 && $0.allSatisfy { (0...1).contains($0) } })
            #expect(texts[0].contains("Smith tomorrow"), "\(texts)")
            #expect(texts[2].contains("aloud helps"), "\(texts)")
        }
        #expect(outlined.allSatisfy { $0["hidden"] as? Bool == false && ($0["shown"] as? Double ?? 0) > 100 })
        // The word marked followed the speech: the sentence's words, in order, each as it was heard.
        let words = try #require(seen["words"] as? [String])
        let wanted = ["Call", "Dr", "Smith", "tomorrow", "morning", "He", "is", "in"]
        var next = 0
        for word in words where next < wanted.count && word == wanted[next] { next += 1 }
        #expect(next == wanted.count, "marked words: \(words)")
        // The large print as a camera would see it: tesseract reads the spoken lines off the screenshot.
        let ocr = try #require(seen["ocr"] as? String)
        #expect(ocr.contains("Call Dr. Smith tomorrow morning."), "\(ocr)")
        #expect(ocr.contains("helps people who cannot see"), "\(ocr)")
        // A second tab sees the same session.
        #expect(seen["second_tab_title"] as? String == "Read text")
        // (The end of the text may be said between the two looks.)
        let reading = { (lines: [String]) in lines.filter { $0 != "End of the text." }.suffix(3) }
        #expect(reading((seen["second_tab_lines"] as? [String]) ?? []) == reading(lines))
        // Settings on the page apply in every tab and are the settings file's.
        #expect(seen["size_second_tab"] as? String == "96px")
        #expect(seen["colours"] as? [String] == ["rgb(255, 255, 0)", "rgb(0, 0, 0)"])
        // The last scheme chosen is the one kept.
        let kept = try String(contentsOf: folder.path("config/assist/settings.toml"), encoding: .utf8)
        #expect(kept.contains("text-size = 96") && kept.contains("scheme = \"black-on-yellow\""), "\(kept)")
        for check in [
            "axe_menu", "axe_reading", "axe_yellow", "axe_black-on-white", "axe_white-on-black", "axe_black-on-yellow",
        ] {
            #expect((seen[check] as? [String]) == [], "axe-core, \(check): \(seen[check] ?? "none")")
        }
        #expect(seen["title_after_escape"] as? String == "Assist", "Escape on the page stops the feature")
        #expect((seen["choices_after_escape"] as? Int ?? 0) > 3)
        // Every page closed: the terminal's session goes on as before.
        shell.type("talking clock")
        #expect(shell.wait(20) { shell.standardOutput.contains("It is ") }, "\(shell.standardOutput.suffix(800))")
        #expect(shell.finish() == 0)
    }
}

extension ViewBrowserTests {
    /// Through Speech Dispatcher (a private server, its sound to ALSA's null device), the word heard is marked
    /// from its index marks, one before each word, as espeak-ng's word events mark it.
    @Test func speechDispatchersIndexMarksMarkTheWordHeard() throws {
        let server = try SpeechDispatcherServer(folder: folder)
        let config = try folder.write("config.toml", "[speech]\nbackend = \"speech-dispatcher\"\n")
        let shell = try shell(["--config", config.path], environment: ["SPEECHD_ADDRESS": server.address])
        let address = try #require(shell.address())
        let seen = try browse("marks", address)
        #expect(!shell.standardError.contains("cannot be reached"), "\(shell.standardError)")
        let lines = seen["lines"] as? [String] ?? []
        #expect(lines.contains("Reading aloud helps people who cannot see."), "\(lines)")
        let words = try #require(seen["words"] as? [String])
        let wanted = ["Call", "Dr", "Smith", "tomorrow", "morning", "He", "is", "in", "Reading", "aloud", "helps"]
        var next = 0
        for word in words where next < wanted.count && word == wanted[next] { next += 1 }
        #expect(next == wanted.count, "marked words: \(words)")
        #expect(shell.finish() == 0)
        _ = server
    }
}

extension ViewBrowserTests {
    /// The camera's preview, while Light has the camera open: its filters, its zoom (the camera's own crop) and
    /// freeze; hidden at the menu and again once the feature stops.
    @Test func theCamerasPreviewIsShownWithItsFiltersWhileAFeatureFilms() throws {
        let shell = try shell()
        let address = try #require(shell.address())
        let seen = try browse("preview", address)
        func summary(_ name: String) -> (width: Int, mean: [Double], dark: Double)? {
            guard let object = seen[name] as? [String: Any], let width = object["width"] as? Int,
                let mean = object["mean"] as? [Double], let dark = object["dark"] as? Double
            else { return nil }
            return (width, mean, dark)
        }
        #expect(seen["hidden_at_menu"] as? Bool == true, "no camera, no preview, at the menu")
        let normal = try #require(summary("normal"))
        // The page photo: white paper with two lines of black text.
        #expect(normal.mean[0] > 230 && abs(normal.mean[0] - normal.mean[2]) < 2, "\(normal)")
        #expect(normal.dark > 0.002 && normal.dark < 0.1, "the text is there: \(normal)")
        let yellow = try #require(summary("yellow"))
        #expect(yellow.mean[0] > 230 && yellow.mean[1] > 230 && yellow.mean[2] < 1, "yellow on black: \(yellow)")
        let inverted = try #require(summary("inverted"))
        #expect(inverted.mean[0] < 25 && inverted.dark > 0.9, "inverted: \(inverted)")
        let zoomed = try #require(summary("zoomed"))
        #expect(zoomed.width < normal.width, "4x: a quarter of the picture, not the whole one enlarged")
        #expect(seen["freeze_pressed"] as? String == "true")
        let frozen = try #require(summary("frozen"))
        #expect(frozen.mean == zoomed.mean, "held: the inverted colours chosen after z are not drawn")
        #expect((seen["axe_preview"] as? [String]) == [], "axe-core: \(seen["axe_preview"] ?? "none")")
        #expect(seen["hidden_after_escape"] as? Bool == true)
        #expect(shell.finish() == 0)
    }
}

extension ViewBrowserTests {
    /// A port another program holds is named, and another is chosen.
    @Test func aPortInUseIsSaidAndAnotherChosen() throws {
        let holder = try ListeningSocket()
        let shell = try shell(["--view-port", String(holder.port)])
        let address = try #require(shell.address())
        #expect(!address.contains(":\(holder.port)/"), "\(address)")
        let said = "Port \(holder.port) is in use by another program; the large print view is on port"
        #expect(shell.wait(10) { shell.standardOutput.contains(said) }, "\(shell.standardOutput)")
        #expect(shell.finish() == 0)
    }

    /// `--view-open` starts `view.browser` with the page's address; with no browser at all, it says which package
    /// to install, and the session goes on.
    @Test func theBrowserIsStartedOrItsPackageNamed() throws {
        let fake = folder.path("fake-browser")
        let seen = folder.path("browser-arguments")
        try "#!/bin/sh\necho \"$@\" > \(seen.path)\n".write(to: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let config = folder.path("browser.toml")
        try "[view]\nbrowser = \"\(fake.path) --kiosk\"\n".write(to: config, atomically: true, encoding: .utf8)
        let opened = try shell(["--view-open", "--config", config.path])
        let address = try #require(opened.address())
        #expect(opened.wait(10) { (try? String(contentsOf: seen, encoding: .utf8)) != nil })
        #expect((try? String(contentsOf: seen, encoding: .utf8)) == "--kiosk \(address)\n")
        #expect(opened.finish() == 0)

        let bare = try shell(["--view-open"], environment: ["PATH": folder.path("no-programs").path])
        _ = try #require(bare.address())
        #expect(
            bare.wait(10) { bare.standardOutput.contains("No browser to open the large print view: install chromium") })
        bare.type("talking clock")
        #expect(bare.wait(20) { bare.standardOutput.contains("It is ") })
        #expect(bare.finish() == 0)
    }

    /// An open page finds Assist again after it restarts on the same port: the token is kept in the data folder.
    @Test func thePageReconnectsAfterTheHostRestarts() throws {
        let port = try ListeningSocket().port  // free once closed
        let first = try shell(["--view-port", String(port)])
        let address = try #require(first.address())
        let browser = try BrowserRun("reconnect", address, folder: folder.url)
        #expect(browser.pageOpened(within: 60))
        #expect(first.finish() == 0)
        let second = try shell(["--view-port", String(port)])
        #expect(second.address() == address, "the same port and token")
        let seen = try browser.result()
        #expect((seen["said_while_away"] as? String)?.contains("not answering") == true, "\(seen)")
        #expect((seen["lines_after"] as? [String])?.contains { $0.hasPrefix("Assist is ready") } == true)
        #expect(second.finish() == 0)
        let mode =
            try FileManager.default.attributesOfItem(atPath: folder.path("data/view-token").path)[
                .posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}

extension ViewBrowserTests {
    /// `assist kiosk view` (a kiosk's view unit) waits for the page, then runs the browser in cage on it; with
    /// cage missing it names the package and exits 78, which the unit does not restart.
    @Test func theKiosksViewRunsTheBrowserInCageOnThePage() throws {
        let programs = folder.path("programs")
        try FileManager.default.createDirectory(at: programs, withIntermediateDirectories: true)
        let seen = folder.path("cage-arguments")
        for (name, script) in [
            ("cage", "#!/bin/sh\necho \"$@\" > \(seen.path)\n"), ("chromium", "#!/bin/sh\nexit 0\n"),
        ] {
            let url = programs.appendingPathComponent(name)
            try script.write(to: url, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }
        let port = try ListeningSocket().port
        let config = folder.path("kiosk.toml")
        try "[view]\nport = \(port)\n".write(to: config, atomically: true, encoding: .utf8)
        let environment = [
            "ASSIST_DATA_DIR": folder.path("data").path, "XDG_CONFIG_HOME": folder.path("config").path,
            "PATH": "\(programs.path):/usr/bin:/bin",
        ]
        let missing = try ProcessRunner.run(
            BuildProducts.assist, ["kiosk", "view", "--config", config.path, "--wait-seconds", "1"],
            environment: environment.merging(["PATH": folder.path("nothing").path]) { $1 })
        #expect(missing.status == 78 && missing.standardError.contains("sudo apt install"), "\(missing.standardError)")
        let shell = try shell(["--view-port", String(port)])
        let address = try #require(shell.address())
        let viewer = try ProcessRunner.run(
            BuildProducts.assist, ["kiosk", "view", "--config", config.path], environment: environment)
        #expect(viewer.status == 0, "\(viewer.standardError)")
        let arguments = try String(contentsOf: seen, encoding: .utf8)
        #expect(arguments.hasPrefix("-s -- \(programs.path)/chromium --kiosk"), "\(arguments)")
        #expect(arguments.hasSuffix("--app=\(address)\n"), "\(arguments)")
        #expect(shell.finish() == 0)
    }
}

extension ViewBrowserTests {
    /// Issue 72: the ear never falls behind the screen. The shell on a pseudo-terminal, speaking at a sound card's
    /// pace, typed key by key: 20 stray keys at the menu, the talking clock, then Read text on a page of three
    /// sentences. What is printed is timed as the terminal receives it; what is heard, as the view shows it (a line
    /// appears there when its first word sounds), with the menu's help (F1) read in between. Of the lines that are
    /// both printed and heard, at the moment any of them starts to sound at most one line printed after it is
    /// still waiting to be heard (the help's lines appear as they are read, each a line ahead); and every line
    /// heard was printed (the screen is never behind the ear either).
    @Test func whatIsHeardNeverFallsMoreThanOneLineBehindWhatIsPrinted() throws {
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            ["shell", "--view", "--audio-out", "null", "--camera", "image:\(page.path)"],
            environment: [
                "ASSIST_DATA_DIR": folder.path("data").path, "XDG_CONFIG_HOME": folder.path("config").path,
                "LANG": "en_US.UTF-8",
            ])
        defer { kill(screen.processIdentifier, SIGHUP) }
        try #require(screen.waitFor("View: http", timeout: 30), "\(screen.text)")
        let address = try #require(
            screen.lines.first { $0.contains("View: http") }.map {
                String($0[$0.range(of: "http")!.lowerBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
            })
        let result = Collected<Data>()
        let failure = Collected<String>()
        let browsing = Thread { [self] in
            do {
                result.append(try JSONSerialization.data(withJSONObject: try browse("heard", address)))
            } catch { failure.append("\(error)") }
        }
        browsing.start()
        let ready = folder.path("heard-ready").path
        let deadline = Date().addingTimeInterval(90 * ProcessRunner.timeScale)
        while !FileManager.default.fileExists(atPath: ready) && Date() < deadline && failure.values.isEmpty {
            Thread.sleep(forTimeInterval: 0.1)
        }
        try #require(FileManager.default.fileExists(atPath: ready), "\(failure.values)")
        let clock = try #require(screen.number(of: "Talking clock"), "\(screen.text)")
        let reading = try #require(screen.number(of: "Read text"), "\(screen.text)")
        for _ in 0..<20 {
            screen.type([0x1B, 0x4F, 0x51])  // F2, as xterm sends it
            Thread.sleep(forTimeInterval: 0.04)
        }
        screen.type(clock)
        #expect(screen.waitFor("It is ", timeout: 30), "\(screen.text)")
        Thread.sleep(forTimeInterval: 3)
        // The menu's help, four lines said one after another, then a feature chosen while it is read.
        screen.type([0x1B, 0x4F, 0x50])  // F1
        #expect(screen.waitFor("At the menu:", timeout: 30), "\(screen.text)")
        Thread.sleep(forTimeInterval: 2)
        screen.type(reading)
        #expect(screen.allowFirstUse("Read text", timeout: 30, answer: "y"), "\(screen.text)")
        #expect(
            screen.waitFor("End of the text.", timeout: 90), "\(screen.text.suffix(2_000))")
        Thread.sleep(forTimeInterval: 2)
        FileManager.default.createFile(atPath: folder.path("heard-stop").path, contents: nil)
        while result.values.isEmpty && failure.values.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        let seen = try result.values.first.map { try JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let heard = try #require(seen??["heard"] as? [[String: Any]], "\(failure.values)")
        let printed = screen.timedLines.map { (text: Self.plain($0.text), at: $0.at.timeIntervalSince1970) }
        // Each line heard, with when it was printed: the first printing of that text not matched before.
        var used = Set<Int>()
        var pairs: [(text: String, printed: Double, heard: Double)] = []
        var unprinted: [String] = []
        for line in heard {
            guard let text = line["text"] as? String, let at = line["at"] as? Double else { continue }
            if let index = printed.indices.first(where: { !used.contains($0) && printed[$0].text == text }) {
                used.insert(index)
                pairs.append((text, printed[index].at, at))
            } else {
                unprinted.append(text)
            }
        }
        let wanted = [
            "It is ", "At the menu:", "Call Dr. Smith tomorrow morning.", "He is in.", "Reading aloud helps people",
        ]
        for start in wanted {
            #expect(pairs.contains { $0.text.hasPrefix(start) }, "heard and printed: \(pairs.map(\.text))")
        }
        #expect(unprinted.isEmpty, "heard but never printed: \(unprinted)")
        var worst = (lines: [String](), at: "")
        for (index, pair) in pairs.enumerated() {
            let waiting = pairs[(index + 1)...].filter { $0.printed < pair.heard }
            if waiting.count > worst.lines.count { worst = (waiting.map(\.text), pair.text) }
        }
        #expect(
            worst.lines.count <= 1,
            "printed and still to be heard when \"\(worst.at)\" sounded: \(worst.lines)")
    }

    /// A terminal line without its colours and cursor moves.
    static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
            .trimmingCharacters(in: .whitespaces)
    }

    /// read-text's outlines on a page photographed as a hand holds a camera (turned 4°, in perspective, a JPEG),
    /// the camera being the photo: the picture the page is given is the one read, straightened, so each of three
    /// sentences in turn (from the first the page sees) has outlines holding most of its words (tesseract reads them inside the outlines, cut
    /// from the picture the page received), and later sentences are outlined lower down.
    @Test func aPhotographedPagesSentencesAreOutlinedWhereTheyAre() throws {
        let photo = folder.path("photo.jpg")
        try PagePhotographer.photograph(
            PagePhotographer.english, damage: [.rotation(4), .perspective(0.10), .jpeg(60)],
            opposite: PagePhotographer.englishFacing, to: photo, work: folder.url)
        let run = try shell(["--camera-fps", "4"], command: ["run", "read-text"], camera: photo)
        let address = try #require(run.address())
        let seen: [String: Any]
        do { seen = try browse("outlines", address) } catch {
            Issue.record("\(error)\n\(run.standardOutput.suffix(2_000))\n\(run.standardError.suffix(2_000))")
            _ = run.finish()
            return
        }
        let outlined = (seen["outlined"] as? [[String: Any]]) ?? []
        try #require(outlined.count == 3, "\(seen)")
        let words = { (text: String) in
            Set(text.lowercased().split { !$0.isLetter }.map(String.init).filter { $0.count >= 4 })
        }
        var tops: [Double] = []
        for entry in outlined {
            let sentence = entry["text"] as? String ?? ""
            let inside = words(((entry["ocr"] as? [String]) ?? []).joined(separator: " "))
            let wanted = words(sentence)
            let found = wanted.intersection(inside)
            #expect(
                !wanted.isEmpty && Double(found.count) >= 0.6 * Double(wanted.count),
                "\"\(sentence)\": \(found.count) of \(wanted.count) words inside its outlines: \(entry["ocr"] ?? "")")
            tops.append(((entry["boxes"] as? [[Double]])?.first?[1]) ?? -1)
        }
        #expect(tops == tops.sorted() && tops.first.map { $0 >= 0 } == true, "in reading order: \(tops)")
        #expect(run.finish() == 0)
    }

    /// photo-sensor's last photos while its menu is open: upright (a phone's photo stored turned, its EXIF saying
    /// so), newest first, each captioned with the labels recognition gave it and its file's name; gone once the
    /// menu is left.
    @Test func photoSensorsLastPhotosAreShownWithTheirLabels() throws {
        let samples = "/usr/share/darknet/data"
        guard FileManager.default.fileExists(atPath: "\(samples)/dog.jpg") else {
            print("skipped: darknet's sample photos are not installed (make deps)")
            return
        }
        let pictures = folder.path("Pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        let config = folder.path("photos.toml")
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)"]
        performRecognition = true
        """.write(to: config, atomically: true, encoding: .utf8)
        func watch() throws -> ProcessResult {
            try ProcessRunner.run(
                BuildProducts.assist,
                [
                    "run", "photo-sensor", "watch", "--once", "--no-speech", "--data-dir", folder.path("data").path,
                    "--config", config.path,
                ], environment: ["XDG_CONFIG_HOME": folder.path("config").path], timeoutSeconds: 120)
        }
        _ = try watch()  // the baseline
        // The dog turned a quarter anticlockwise in its pixels, EXIF orientation 6 saying how to show it.
        let turned = folder.path("turned.jpg").path
        let made = try ProcessRunner.run(
            "/usr/bin/convert", ["\(samples)/dog.jpg", "-rotate", "-90", "-orient", "RightTop", turned])
        try #require(made.status == 0, "\(made.standardError)")
        try FileManager.default.moveItem(atPath: turned, toPath: pictures.appendingPathComponent("IMG_0001.jpg").path)
        let recorded = try watch()
        #expect(recorded.lines.contains("1 new item recorded."), "\(recorded.lines) \(recorded.standardError)")
        let shell = try shell(["--no-speech", "--config", config.path])
        let address = try #require(shell.address())
        let seen = try browse("photos", address)
        let photos = (seen["photos"] as? [[String: Any]]) ?? []
        try #require(photos.count == 1, "\(seen)")
        let caption = photos[0]["caption"] as? String ?? ""
        #expect(caption.hasPrefix("dog") && caption.hasSuffix("IMG_0001.jpg"), "\(caption)")
        #expect(photos[0]["alt"] as? String == caption.components(separatedBy: "\n").first, "\(photos)")
        // dog.jpg is 768 by 576: shown upright, it is wider than tall again, at most 480 a side.
        #expect(photos[0]["width"] as? Int == 480 && photos[0]["height"] as? Int == 360, "\(photos)")
        #expect((photos[0]["shown"] as? Double ?? 0) > 100)
        #expect((seen["prompt"] as? String)?.isEmpty == false)
        #expect((seen["axe"] as? [String]) == [], "axe-core: \(seen["axe"] ?? "none")")
        #expect(seen["hidden_after"] as? Bool == true)
        #expect(shell.finish() == 0)
    }

    /// find-object's target on the preview: boxed where the detector found it (the guidance event's box, kept in
    /// the journal), with the events meant only for the view never written there.
    @Test func findObjectsTargetIsBoxedWhereTheDetectorFoundIt() throws {
        let scene = folder.path("dog-scene.png")
        let made = try ProcessRunner.run(
            "/usr/bin/convert",
            [
                "/usr/share/darknet/data/scream.jpg", "-resize", "800x600!", "(", "/usr/share/darknet/data/dog.jpg",
                "-crop", "190x320+130+220", "+repage", ")", "-geometry", "+465+140", "-composite", scene.path,
            ])
        try #require(made.status == 0, "\(made.standardError)")
        let run = try shell(
            ["--no-speech", "--camera-fps", "5"], command: ["run", "find-object", "dog"], camera: scene)
        let address = try #require(run.address())
        let seen = try browse("target", address)
        let shown = try #require((seen["target"] as? String)?.split(separator: ",").compactMap { Double($0) })
        try #require(shown.count == 4, "\(seen)")
        let journal = try String(contentsOf: folder.path("data/events.jsonl"), encoding: .utf8)
        let guided = journal.split(separator: "\n").compactMap { line -> [String: Any]? in
            guard line.contains("\"assist.find-object.guidance\""),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else { return nil }
            return object["payload"] as? [String: Any]
        }
        let last = try #require(guided.last, "no guidance in the journal")
        let (x, y) = (last["x"] as? Double ?? -1, last["y"] as? Double ?? -1)
        #expect(abs(shown[0] - x) < 0.05 && abs(shown[1] - y) < 0.05, "page \(shown), event \(last)")
        // The dog is at 0.65 of the width, half way down; its box about 0.24 by 0.53 of the picture.
        #expect(abs(shown[0] - 0.65) < 0.06 && abs(shown[1] - 0.5) < 0.1, "\(shown)")
        #expect(shown[2] > 0.1 && shown[3] > 0.2, "a box, not a point: \(shown)")
        #expect(!journal.contains(".view."), "the view's own events are never kept")
        #expect(run.interrupt() == 0, "Ctrl+C ends a feature run cleanly, view and all")
    }
}

extension ViewBrowserTests {
    /// With speech off, the page shows the lines as they are printed, and leaves them to the screen reader.
    @Test func withoutSpeechThePrintedLinesAreShownAndLive() throws {
        let shell = try shell(["--no-speech"])
        let address = try #require(shell.address())
        let seen = try browse("printed", address)
        #expect((seen["lines"] as? [String])?.contains { $0.hasPrefix("Assist is ready") } == true, "\(seen)")
        #expect(seen["live"] as? String == "polite")
        #expect(shell.finish() == 0)
    }
}

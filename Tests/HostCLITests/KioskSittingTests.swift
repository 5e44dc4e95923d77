import AssistCore
import Foundation
import HostTesting
import Kiosk
import Testing

/// A kiosk shared by many people (`[kiosk] session = "per-person"`), on a pseudo-terminal as people meet it.
@Suite("assist kiosk: one sitting per person")
struct KioskSittingTests {
    /// A kiosk with the talking clock and `org.test.outbox`, which writes a note of the person's own and queues
    /// an upload to `server` when the menu starts it.
    func kiosk(server: LoopbackHTTPServer, extra: String) throws -> KioskFixture {
        let kiosk = try KioskFixture()
        try kiosk.setPIN("2468")
        try CPluginBuilder(root: kiosk.plugins).build(
            folder: "outbox", defines: ["QUEUE_URL=\"\(server.baseURL)\""],
            manifest: CPluginBuilder.manifest(
                id: "org.test.outbox",
                extra: [
                    "name": "Upload test",
                    "services": ["required": ["assist.dialog/1", "assist.outbox/1", "assist.storage/1"]],
                ]),
            source: "outbox_plugin.c")
        try kiosk.configure(
            ["assist.clock": try kiosk.hash("assist.clock"), "org.test.outbox": try kiosk.hash("org.test.outbox")],
            "[kiosk]\nsession = \"per-person\"\n" + extra)
        return kiosk
    }

    /// Every file below `folder` whose bytes hold `text`.
    func files(below folder: URL, holding text: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let url = folder.appendingPathComponent(relative)
            if let data = try? Data(contentsOf: url), data.range(of: Data(text.utf8)) != nil { found.append(relative) }
        }
        return found
    }

    @Test func theNextPersonFindsNothingOfTheLastAndTheirUploadStillArrives() throws {
        let accepting = Collected<Bool>()
        let server = try LoopbackHTTPServer { _ in
            accepting.values.isEmpty
                ? .answer(status: 503, headers: [:], body: Data("busy".utf8))
                : .answer(status: 201, headers: [:], body: Data("{}".utf8))
        }
        let kiosk = try kiosk(server: server, extra: "idle-minutes = 30\n")
        let sittings = Sittings(device: kiosk.data)
        let screen = try kiosk.terminal()
        #expect(screen.waitFor("A new session has started."), "\(screen.text)")
        #expect(screen.waitFor(". I'm done"), "\(screen.text)")
        #expect(sittings.current == "0001")

        // The first person: a note of their own, and an upload the server cannot take yet.
        let upload = try #require(screen.number(of: "Upload test"), "\(screen.lines)")
        screen.type(upload)
        #expect(screen.waitFor("Queued."), "\(screen.text)")
        let note = "a note of this person's own"
        let first = sittings.path(of: "0001")
        for _ in 0..<100 where server.requests.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        #expect(server.requests.count == 1, "the kiosk tried it once: the server answered 503")
        // Looked for a few times: a file the kiosk removes while the folder is walked can cut one walk short.
        for _ in 0..<20 where files(below: first, holding: note).isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        let anywhere = files(below: kiosk.data, holding: note)
        let held = FileManager.default.subpaths(atPath: first.path) ?? []
        #expect(
            !files(below: first, holding: note).isEmpty,
            "the note is in the first person's folder; below the data folder: \(anywhere); the folder holds \(held)")
        #expect(screen.waitFor(". I'm done", count: 2), "\(screen.text)")
        let pid = screen.processIdentifier
        screen.type(try #require(screen.number(of: "I'm done")))
        #expect(screen.waitFor("End your session?"), "\(screen.text)")
        screen.type("y")
        #expect(screen.waitFor("Your session has ended."), "\(screen.text)")
        #expect(screen.waitFor("A new session has started.", count: 2), "\(screen.text)")
        #expect(screen.isRunning && screen.processIdentifier == pid, "the same process: systemd's main PID")
        #expect(sittings.current == "0002")

        // The second person finds nothing of the first: not the note, not their feature's folder or outbox.
        let second = sittings.path(of: "0002")
        #expect(files(below: second, holding: note).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: second.appendingPathComponent("plugins/org.test.outbox").path))
        // The first person's upload was tried again from their own folder, and still waits there.
        for _ in 0..<150 where server.requests.count < 2 { Thread.sleep(forTimeInterval: 0.1) }
        #expect(server.requests.count == 2, "the departed sitting's outbox was sent at once, not after its pause")
        #expect(FileManager.default.fileExists(atPath: first.path), "kept while its upload waits")
        #expect(!screen.text.contains("busy"), "the sending's lines are not on the next person's screen")

        // "I'm done" typed as words; the server takes uploads again, and the next round sends the first person's.
        accepting.append(true)
        #expect(screen.waitFor(". I'm done", count: 3), "\(screen.text)")
        screen.typeSlowly("i'm done\r")
        #expect(screen.waitFor("End your session?", count: 2), "\(screen.text)")
        screen.type("y")
        #expect(screen.waitFor("A new session has started.", count: 3), "\(screen.text)")
        for _ in 0..<300 where FileManager.default.fileExists(atPath: first.path) { Thread.sleep(forTimeInterval: 0.1) }
        #expect(server.requests.count == 3 && server.requests.last?.path == "/api/thing/", "\(server.requests.count)")
        #expect(!FileManager.default.fileExists(atPath: first.path), "sent, then deleted whole")
        for _ in 0..<100 where sittings.all != ["0003"] { Thread.sleep(forTimeInterval: 0.1) }
        #expect(sittings.all == ["0003"], "the second person left nothing waiting: deleted too")
        #expect(files(below: kiosk.data, holding: note).isEmpty, "no trace of the first person anywhere")
    }

    /// What a person saves (read-text's Ctrl+S) is kept in their sitting, not in the device user's Documents,
    /// and leaves with the sitting (issue 72: the next person was told nothing of the last was there).
    @Test func aTextSavedInASittingLeavesWithIt() throws {
        let kiosk = try KioskFixture()
        try kiosk.setPIN("2468")
        try kiosk.configure(
            ["assist.read-text": try kiosk.hash("assist.read-text")], "[kiosk]\nsession = \"per-person\"\n")
        let page = kiosk.folder.path("page.png")
        try PageRenderer().render(
            [.init(["The quick brown fox jumps over the lazy dog."], x: 100, y: 200)], to: page)
        let home = kiosk.folder.path("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let screen = try kiosk.terminal(["--camera", "image:\(page.path)"], environment: ["HOME": home.path])
        #expect(screen.waitFor(". I'm done"), "\(screen.text)")
        screen.type(try #require(screen.number(of: "Read text"), "\(screen.lines)"))
        #expect(screen.waitFor("The quick brown fox", timeout: 60), "\(screen.text)")
        screen.type([0x13])
        #expect(screen.waitFor("Saved"), "\(screen.text)")
        // The path is its own line, after "Saved": a slow machine (ASan) prints it a moment later.
        #expect(screen.waitFor(".txt"), "\(screen.text)")
        let sittings = Sittings(device: kiosk.data)
        let first = sittings.path(of: "0001")
        let saved = try #require(
            screen.lines.first { $0.hasSuffix(".txt") && $0.contains("/Assist/text-") }, "\(screen.lines)")
        #expect(saved.hasPrefix(first.appendingPathComponent("documents").path), "\(saved)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("Documents").path))
        screen.type([0x1B])
        #expect(screen.waitFor(". I'm done", count: 2), "\(screen.text)")
        screen.type(try #require(screen.number(of: "I'm done")))
        #expect(screen.waitFor("End your session?"), "\(screen.text)")
        screen.type("y")
        #expect(screen.waitFor("A new session has started.", count: 2), "\(screen.text)")
        for _ in 0..<100 where FileManager.default.fileExists(atPath: saved) { Thread.sleep(forTimeInterval: 0.1) }
        #expect(!FileManager.default.fileExists(atPath: saved), "the saved text left with its sitting")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("Documents").path))
    }

    @Test func aSittingLeftIdleEndsButAnUntouchedOneWaitsForSomeone() throws {
        let server = try LoopbackHTTPServer { _ in .answer(status: 201, headers: [:], body: Data()) }
        let kiosk = try kiosk(server: server, extra: "")
        let screen = try kiosk.terminal(environment: ["ASSIST_KIOSK_IDLE_SECONDS": "2"])
        #expect(screen.waitFor(". I'm done"), "\(screen.text)")
        Thread.sleep(forTimeInterval: 3.5)
        #expect(!screen.text.contains("Your session has ended."), "nobody used it yet")
        // "No" keeps the sitting; then nothing more is typed and it ends by itself.
        screen.type(try #require(screen.number(of: "I'm done")))
        #expect(screen.waitFor("End your session?"), "\(screen.text)")
        screen.type("n")
        #expect(screen.waitFor("Your session goes on."), "\(screen.text)")
        #expect(Sittings(device: kiosk.data).current == "0001")
        #expect(screen.waitFor("Your session has ended.", timeout: 10), "\(screen.text)")
        #expect(screen.waitFor("A new session has started.", count: 2), "\(screen.text)")
        #expect(Sittings(device: kiosk.data).current == "0002")
    }

    /// A damaged note of the sitting going on (bytes that are no name, issue 73 item 7) started a new sitting
    /// without a word and took the person's own for departed, to be sent and deleted: the newest sitting not
    /// ended goes on, and that is said.
    @Test func aDamagedNoteOfTheSittingGoingOnKeepsThePersonsSitting() throws {
        let server = try LoopbackHTTPServer { _ in .answer(status: 201, headers: [:], body: Data()) }
        let kiosk = try kiosk(server: server, extra: "")
        do {
            // Killed once it is up, as a crash would end it (the terminal is let go of).
            let first = try kiosk.terminal()
            #expect(first.waitFor("A new session has started."), "\(first.text)")
            #expect(first.waitFor(". I'm done"), "\(first.text)")
        }
        let sittings = Sittings(device: kiosk.data)
        #expect(sittings.current == "0001")
        try Data([0xFF, 0x00, 0x31, 0x0A]).write(to: sittings.folder.appendingPathComponent("current"))
        #expect(sittings.departed == ["0001"], "as the drain would see it before the kiosk starts")
        let second = try kiosk.terminal()
        #expect(second.waitFor("the last session, not ended, goes on"), "\(second.text)")
        #expect(second.waitFor(". I'm done"), "\(second.text)")
        #expect(!second.text.contains("A new session has started."), "\(second.text)")
        #expect(sittings.current == "0001" && sittings.departed.isEmpty && sittings.all == ["0001"])
    }

    /// A feature that stopped the kiosk twice is turned off for the device, not for one person: the record of
    /// crashes stays in the device's folder while each sitting has a folder of its own.
    @Test func aFeatureThatCrashedTheKioskTwiceStaysOffForTheNextPerson() throws {
        let kiosk = try KioskFixture()
        try kiosk.setPIN("2468")
        try CPluginBuilder(root: kiosk.plugins).build(
            folder: "crash", defines: ["START_CRASHES", #"PLUGIN_ID="org.example.crash""#],
            manifest: CPluginBuilder.manifest(id: "org.example.crash"))
        try kiosk.configure(
            ["assist.clock": try kiosk.hash("assist.clock"), "org.example.crash": try kiosk.hash("org.example.crash")],
            "[kiosk]\nsession = \"per-person\"\n[plugins]\nin-process = [\"org.example.crash\"]\n")
        let label = "Test org.example.crash"
        // As systemd starts it: no SWIFT_BACKTRACE, whose backtracer would wait for a key after the crash.
        let start = { try kiosk.terminal(environment: ["SWIFT_BACKTRACE": ""]) }
        let first = try start()
        #expect(first.waitFor(". I'm done"), "\(first.text)")
        first.type(try #require(first.number(of: label), "\(first.lines)"))
        #expect(first.waitForExit() != 0, "the in-process feature takes the kiosk down: \(first.text.suffix(300))")
        let second = try start()
        #expect(second.waitFor("Start in safe mode"), "\(second.text)")
        #expect(second.text.contains("Assist stopped unexpectedly last time while \(label) was open."))
        second.type("n")
        #expect(second.waitFor(". I'm done"), "\(second.text)")
        second.type(try #require(second.number(of: label), "\(second.lines)"))
        #expect(second.waitForExit() != 0)
        let third = try start()
        #expect(third.waitFor(". I'm done"), "\(third.text)")
        #expect(third.text.contains("\(label) is turned off"), "\(third.text)")
        #expect(third.number(of: label, timeout: 0) == nil, "the menu is whole: \(third.lines)")
        let sittings = Sittings(device: kiosk.data)
        #expect(sittings.current == "0001", "a restart is no new person")
        third.type(try #require(third.number(of: "I'm done")))
        #expect(third.waitFor("End your session?"), "\(third.text)")
        third.type("y")
        #expect(third.waitFor("A new session has started."), "\(third.text)")
        #expect(sittings.current == "0002")
        // systemd's stop, while the kiosk starts again for the next person: it ends at once (a SIGTERM blocked
        // across the restart's exec was once dropped when the new process set its handler up, and it ran on).
        kill(third.processIdentifier, SIGTERM)
        #expect([0, 128 + SIGTERM].contains(third.waitForExit()), "\(third.text.suffix(600))")
        // The next person's kiosk, after a restart too, does not offer it.
        let next = try start()
        #expect(next.waitFor(". I'm done"), "\(next.text)")
        #expect(next.number(of: label, timeout: 0) == nil, "the menu is whole: \(next.lines)")
        #expect(!next.text.contains("Assist stopped unexpectedly"), "\(next.text)")
        #expect(FileManager.default.fileExists(atPath: kiosk.data.appendingPathComponent("crashes.jsonl").path))
        #expect(files(below: sittings.path(of: "0002"), holding: "org.example.crash").isEmpty)
        kill(next.processIdentifier, SIGTERM)
        #expect(next.waitForExit() == 0)
    }

    @Test func theAdminMenuAllowsAFeatureAndSetsWhatEveryoneStartsWith() throws {
        let kiosk = try KioskFixture()
        try kiosk.setPIN("2468")
        try CPluginBuilder(root: kiosk.plugins).build(
            folder: "outbox", manifest: CPluginBuilder.manifest(id: "org.test.outbox", extra: ["name": "Upload test"]),
            source: "outbox_plugin.c")
        try kiosk.configure(["assist.clock": try kiosk.hash("assist.clock")], "[kiosk]\nsession = \"per-person\"\n")
        let screen = try kiosk.terminal()
        #expect(screen.waitFor("Press a number from 1 to 2"), "\(screen.text)")
        #expect(!screen.text.contains("Upload test"), "not allowed yet")
        for _ in 0..<5 { screen.type(PseudoTerminal.f12) }
        #expect(screen.waitFor("Admin PIN, then Enter."))
        screen.type("2468\r")
        #expect(screen.waitFor("4. Features on this kiosk"), "\(screen.text)")
        screen.type("4")
        #expect(screen.waitFor("Upload test: not allowed"), "\(screen.text)")
        screen.type(try #require(screen.number(of: "Upload test: not allowed")))
        #expect(screen.waitFor("Upload test is allowed on this kiosk."), "\(screen.text)")
        #expect(screen.waitFor("Upload test: allowed"), "\(screen.text)")
        let admin = kiosk.data.appendingPathComponent("kiosk-admin.toml")
        #expect(try FileManager.default.attributesOfItem(atPath: admin.path)[.posixPermissions] as? Int == 0o600)
        // Back: the kiosk restarts to admit it, in the same sitting.
        screen.type(try #require(screen.number(of: "Back")))
        #expect(screen.waitFor("Restarting the kiosk."), "\(screen.text)")
        #expect(screen.waitFor("Press a number from 1 to 3"), "\(screen.text)")
        #expect(screen.text.contains(". Upload test"))
        #expect(Sittings(device: kiosk.data).current == "0001", "a restart is no new person")
        #expect(screen.occurrences(of: "A new session has started.") == 1)
        // A setting chosen in the admin menu is what the next person starts with.
        for _ in 0..<5 { screen.type(PseudoTerminal.f12) }
        #expect(screen.waitFor("Admin PIN, then Enter.", count: 2))
        screen.type("2468\r")
        #expect(screen.waitFor("7. Stop the kiosk", count: 2), "\(screen.text)")
        screen.type("5")
        #expect(screen.waitFor("Settings. Choose one to change it."), "\(screen.text)")
        // The list is printed line by line after its heading: number(of:) waits for the line.
        let rate = try #require(screen.number(of: "Speech rate"), "\(screen.lines)")
        screen.type(rate)
        #expect(screen.waitFor("1. Higher"), "\(screen.text)")
        screen.type("1")
        var kept = ""
        for _ in 0..<100 where !kept.contains("[speech]") {
            Thread.sleep(forTimeInterval: 0.1)
            kept = (try? String(contentsOf: admin, encoding: .utf8)) ?? ""
        }
        #expect((try? ConfigFile.parse(kept))?["speech.rate"] != nil, "\(kept)")
        // The kiosk's own settings come first in the admin's list, and apply from its next start.
        #expect(screen.text.contains("1. Who uses this kiosk: one person at a time, each starting clean"))
        screen.type("3")  // Done: back to the list
        #expect(screen.waitFor("Settings. Choose one to change it.", count: 2), "\(screen.text)")
        screen.type("2")
        #expect(screen.waitFor("A session ends after, without input: 10 minutes."), "\(screen.text)")
        screen.type("1")
        #expect(screen.waitFor("It applies from the next start."), "\(screen.text)")
        for _ in 0..<100 where (try? ConfigFile.parse(kept))?["kiosk.idle-minutes"] != .int(15) {
            Thread.sleep(forTimeInterval: 0.1)
            kept = (try? String(contentsOf: admin, encoding: .utf8)) ?? ""
        }
        #expect((try? ConfigFile.parse(kept))?["kiosk.idle-minutes"] == .int(15), "\(kept)")
        #expect(
            !FileManager.default.fileExists(
                atPath: Sittings(device: kiosk.data).path(of: "0001").appendingPathComponent(
                    "config/assist/settings.toml"
                )
                .path), "the admin's change is not the person's")
    }
}

@Suite("assist kiosk check: a per-person set-up")
struct KioskSittingCheckTests {
    @Test func anIdleTimeOfZeroOrTenThousandMinutesIsOneSentenceAndTheKioskStillStarts() throws {
        let kiosk = try KioskFixture()
        try kiosk.setPIN("2468")
        let clock = try kiosk.hash("assist.clock")
        for (minutes, used) in [("0", "1"), ("10000", "240")] {
            try kiosk.configure(
                ["assist.clock": clock], "[kiosk]\nsession = \"per-person\"\nidle-minutes = \(minutes)\n")
            let result = try kiosk.run(["kiosk", "check"])
            #expect(result.status == 1, "a problem, not a refusal to start")
            #expect(
                result.lines == [
                    "The kiosk set-up has 1 problem:",
                    "Problem: kiosk.idle-minutes is \(minutes); a sitting ends after 1 to 240 minutes without input; \(used) is used.",
                ], "\(result.lines) \(result.standardError)")
            #expect(!result.standardError.contains("idle-minutes"), "said once: \(result.standardError)")
        }
    }
}

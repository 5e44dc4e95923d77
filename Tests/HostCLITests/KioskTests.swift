import Digest
import Foundation
import HostTesting
import Kiosk
import Runtime
import Testing

/// A kiosk set-up in a temporary folder: its system folder (`ASSIST_SYSCONFDIR`, standing in for
/// /etc/assist), its data folder, and a folder for test plugins.
struct KioskFixture {
    let folder: TemporaryDirectory
    var etc: URL { folder.path("etc") }
    var data: URL { folder.path("data") }
    var plugins: URL { folder.path("plugins") }
    var environment: [String: String] {
        ["ASSIST_SYSCONFDIR": etc.path, "XDG_CONFIG_HOME": folder.path("config").path]
    }

    init() throws {
        folder = try TemporaryDirectory("assist-kiosk")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
    }

    /// `assist ARGUMENTS --data-dir … --plugin-dir …` with the fixture's environment.
    func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist, arguments + ["--data-dir", data.path, "--plugin-dir", plugins.path], input: input,
            environment: environment)
    }

    /// Sets the admin PIN with `assist kiosk set-pin`, as an admin's script would (two lines on a pipe).
    func setPIN(_ pin: String) throws {
        let result = try ProcessRunner.run(
            BuildProducts.assist, ["kiosk", "set-pin"], input: "\(pin)\n\(pin)\n", environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
    }

    /// The SHA-256 of an installed feature's library, as `assist kiosk hash` prints it.
    func hash(_ id: String) throws -> String {
        let result = try run(["kiosk", "hash", id])
        let line = try #require(result.lines.first { $0.hasPrefix("\"\(id)\"") }, "\(result.lines)")
        return String(line.split(separator: "\"")[2])
    }

    /// Writes /etc/assist/config.toml: `features` allowed with their hashes, then `extra` lines.
    func configure(_ features: [String: String], _ extra: String = "") throws {
        var text = "[kiosk.features]\n"
        for (id, hash) in features.sorted(by: { $0.key < $1.key }) { text += "\"\(id)\" = \"\(hash)\"\n" }
        try (text + extra).write(to: etc.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }

    /// The test plugin `org.example.marked`, which creates `marker` when its library is opened: in its own data
    /// folder, the one place its sandbox lets it write.
    func buildMarkedPlugin() throws -> (library: URL, marker: URL) {
        let marker = data.appendingPathComponent("plugins/org.example.marked/opened")
        let directory = try CPluginBuilder(root: plugins).build(
            folder: "marked", defines: [#"PLUGIN_ID="org.example.marked""#, "LOADED_MARKER=\"\(marker.path)\""],
            manifest: CPluginBuilder.manifest(
                id: "org.example.marked", extra: ["keywords": [["phrase": "marked test"]]]))
        return (directory.appendingPathComponent("libtest.so"), marker)
    }

    /// `assist kiosk` on a pseudo-terminal of its own.
    func terminal(_ extra: [String] = [], environment more: [String: String] = [:]) throws -> PseudoTerminal {
        try PseudoTerminal(
            BuildProducts.assist,
            ["kiosk", "--no-speech", "--data-dir", data.path, "--plugin-dir", plugins.path] + extra,
            environment: environment.merging(more) { _, new in new })
    }
}

@Suite("assist kiosk: set-up and checks")
struct KioskSetUpTests {
    @Test func checkNamesEachProblemAndTheKioskRefusesToStartWithoutAPIN() throws {
        let kiosk = try KioskFixture()
        let clock = try kiosk.hash("assist.clock")
        try kiosk.configure(
            [
                "assist.clock": clock, "org.example.nothing": String(repeating: "0", count: 64),
                "assist.read-text": "abc",
            ],
            "[admin]\nlocked = [\"speech.rate\", \"speech.ratee\", \"read-text.auto-pause\", \"nowhere.key\"]\n")
        let check = try kiosk.run(["kiosk", "check"])
        #expect(check.status == 78, "no PIN: the kiosk would refuse to start")
        let text = check.standardOutput
        #expect(text.contains("The kiosk set-up has 5 problems:"), "\(text)")
        #expect(text.contains("kiosk.features names org.example.nothing, but no installed feature has that id"))
        #expect(text.contains("assist.read-text: its SHA-256 in kiosk.features is not 64 hexadecimal digits"))
        #expect(text.contains("admin.locked names speech.ratee: Assist has no setting of that name"))
        #expect(text.contains("admin.locked names nowhere.key: no installed feature has settings under nowhere"))
        #expect(text.contains("Refuses to start: no admin PIN is set"), "\(text)")
        #expect(!text.contains("speech.rate:") && !text.contains("read-text.auto-pause"), "real keys pass")

        let refused = try kiosk.run(["kiosk", "--no-speech"], input: "")
        #expect(refused.status == 78)
        #expect(refused.standardOutput.contains("The kiosk cannot start: no admin PIN is set"), "\(refused.lines)")

        try kiosk.setPIN("2468")
        let pinFile = kiosk.etc.appendingPathComponent("kiosk-pin")
        #expect(try FileManager.default.attributesOfItem(atPath: pinFile.path)[.posixPermissions] as? Int == 0o600)
        let stored = try String(contentsOf: pinFile, encoding: .utf8)
        #expect(!stored.contains("2468") && stored.hasPrefix("pbkdf2-sha256$"), "a salted hash, never the PIN")
        chmod(pinFile.path, 0o644)
        let exposed = try kiosk.run(["kiosk", "check"])
        #expect(exposed.status == 78)
        #expect(exposed.standardOutput.contains("is readable by others (mode 644): run sudo chmod 600"))
        #expect(try kiosk.run(["kiosk", "--no-speech"], input: "").status == 78)
        chmod(pinFile.path, 0o600)

        try kiosk.configure(["assist.clock": clock], "[admin]\nlocked = [\"speech.rate\"]\n")
        let ready = try kiosk.run(["kiosk", "check"])
        #expect(ready.status == 0, "\(ready.standardOutput)")
        #expect(
            ready.lines.last
                == "The kiosk set-up is ready: 1 feature allowed (assist.clock); the admin gesture is F12 5 times within 3 seconds, then the PIN."
        )
    }

    @Test func setPINRefusesWeakOrMismatchedPINsAndChangesNothing() throws {
        let kiosk = try KioskFixture()
        let cases = [
            ("12ab\n12ab\n", "the PIN must be digits only"), ("123\n123\n", "the PIN must have 4 to 12 digits"),
            ("1111\n1111\n", "not be one digit repeated"), ("1234\n1243\n", "The two PINs differ"),
            ("", "No PIN was given"),
        ]
        for (input, message) in cases {
            let result = try ProcessRunner.run(
                BuildProducts.assist, ["kiosk", "set-pin"], input: input, environment: kiosk.environment)
            #expect(result.status == 1)
            #expect(result.standardError.contains(message), "\(input): \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: kiosk.etc.appendingPathComponent("kiosk-pin").path))
    }

    @Test func aChangedLibraryIsRefusedWithoutEverBeingOpened() throws {
        let kiosk = try KioskFixture()
        let (library, marker) = try kiosk.buildMarkedPlugin()
        try kiosk.setPIN("2468")
        let allowed = try #require(SHA256Digest.hex(ofFileAt: library))
        try kiosk.configure(
            ["org.example.marked": allowed, "assist.clock": try kiosk.hash("assist.clock")],
            "[kiosk]\nstart = \"org.example.marked\"\n")
        // Patched after the admin allowed it: one byte more, still a loadable library.
        let handle = try FileHandle(forWritingTo: library)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let check = try kiosk.run(["kiosk", "check"])
        #expect(check.status == 1)
        #expect(
            check.standardOutput.contains(
                "org.example.marked: its library \(library.path) has changed since the admin allowed it"),
            "\(check.standardOutput)")
        let run = try ProcessRunner.typing(
            BuildProducts.assist,
            ["kiosk", "--no-speech", "--data-dir", kiosk.data.path, "--plugin-dir", kiosk.plugins.path],
            lines: [
                ProcessRunner.TypedLine("marked test", after: 2 * ProcessRunner.timeScale),
                // systemd's stop comes once the keyword was answered (under load the stop once came first and
                // the typed line was never read): the same words again, which reach nothing either.
                ProcessRunner.TypedLine(
                    "marked test", after: 10 * ProcessRunner.timeScale,
                    once: {
                        $0.contains("Nothing matches marked test.") || $0.contains("Unknown command: marked test.")
                    }),
            ],
            environment: kiosk.environment, timeoutSeconds: 10, stopSignal: SIGTERM)
        #expect(run.endedByItself, "systemd's stop ends a kiosk")
        #expect(
            run.output.contains("1. Talking clock") && !run.output.contains("Test org.example.marked"), "\(run.output)")
        // At the menu, or (when systemd's stop came first) after it: either way the keyword reaches nothing.
        #expect(
            run.output.contains("Nothing matches marked test.")
                || run.output.contains("Unknown command: marked test."), "its keyword reaches nothing: \(run.output)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "the changed library was never opened")

        // The same library with its new hash allowed is started, as the kiosk's start feature: the marker shows
        // this test would have seen an opening.
        try kiosk.configure(
            ["org.example.marked": try #require(SHA256Digest.hex(ofFileAt: library))],
            "[kiosk]\nstart = \"org.example.marked\"\n")
        let allowedRun = try ProcessRunner.typing(
            BuildProducts.assist,
            ["kiosk", "--no-speech", "--data-dir", kiosk.data.path, "--plugin-dir", kiosk.plugins.path],
            lines: [ProcessRunner.TypedLine("1", after: 2 * ProcessRunner.timeScale)], environment: kiosk.environment,
            timeoutSeconds: 10, stopSignal: SIGTERM)
        #expect(allowedRun.output.contains("Pick a colour."), "\(allowedRun.output)")
        #expect(FileManager.default.fileExists(atPath: marker.path))
    }

    /// The kiosk through a pipe: `lines` typed, then systemd's stop.
    func pipeRun(_ kiosk: KioskFixture, _ lines: [String]) throws -> String {
        try ProcessRunner.typing(
            BuildProducts.assist,
            ["kiosk", "--no-speech", "--data-dir", kiosk.data.path, "--plugin-dir", kiosk.plugins.path],
            lines: lines.map { ProcessRunner.TypedLine($0, after: 1.5 * ProcessRunner.timeScale) },
            environment: kiosk.environment, timeoutSeconds: 10, stopSignal: SIGTERM
        ).output
    }

    @Test func quietHoursStartNothingAndWithoutAMenuTheStartFeatureComesBack() throws {
        let kiosk = try KioskFixture()
        try kiosk.setPIN("2468")
        let clock = try kiosk.hash("assist.clock")
        // Quiet from half an hour ago to an hour from now (the device's time zone, as the kiosk reads it).
        let format = DateFormatter()
        format.dateFormat = "HH:mm"
        let now = Date()
        let hours = "\(format.string(from: now - 1800))-\(format.string(from: now + 3600))"
        try kiosk.configure(["assist.clock": clock], "[kiosk]\nstart = \"assist.clock\"\nquiet-hours = \"\(hours)\"\n")
        let quiet = try pipeRun(kiosk, ["r"])
        #expect(
            quiet.contains("Quiet hours until \(format.string(from: now + 3600)): nothing starts by itself."),
            "\(quiet)")
        #expect(!quiet.contains("It is "), "neither the start feature nor the clock's start-up line: \(quiet)")
        #expect(quiet.contains("1. Talking clock"))

        // No menu: the start feature, and again each time it ends (three quick ends in a minute give the menu).
        try kiosk.configure(["assist.clock": clock], "[kiosk]\nstart = \"assist.clock\"\nmenu = false\n")
        let kept = try pipeRun(kiosk, ["r", "r"])
        #expect(kept.components(separatedBy: "It is ").count - 1 >= 3, "\(kept)")
        #expect(!kept.contains("Quiet hours"))
    }

    @Test func theStartLimitEndsInASentenceNotALoop() throws {
        // What assist-kiosk-failed@tty1.service runs when the kiosk's unit hits its start limit.
        let kiosk = try KioskFixture()
        let result = try ProcessRunner.run(
            BuildProducts.assist,
            ["kiosk", "failed", "--instance", "tty1", "--no-speech", "--data-dir", kiosk.data.path],
            environment: kiosk.environment)
        #expect(result.status == 0)
        #expect(
            result.lines.first?.hasPrefix(
                "Assist keeps failing: it stopped 5 times within 5 minutes and will not be started again") == true,
            "\(result.lines)")
        #expect(result.standardError.contains("journalctl -u assist-kiosk@tty1"), "and the log says where to look")
    }

    @Test func installWritesTheUnitsAndUninstallRemovesThem() throws {
        let kiosk = try KioskFixture()
        let units = kiosk.folder.path("units")
        let admin = { (arguments: [String]) throws -> ProcessResult in
            try ProcessRunner.run(BuildProducts.assist, ["kiosk"] + arguments, environment: kiosk.environment)
        }
        let install = try admin(["install", "--unit-dir", units.path, "--user", "root", "--tty", "tty3"])
        #expect(install.status == 0, "\(install.standardError)")
        #expect(
            install.lines.last
                == "Enable it with: systemctl daemon-reload && systemctl enable --now assist-kiosk@tty3.service")
        // What the units say, and systemd's verdict on them, are checked in process (AssistAppTests).
        #expect(FileManager.default.fileExists(atPath: units.appendingPathComponent("assist-kiosk@.service").path))
        #expect(
            try String(contentsOf: units.appendingPathComponent("assist-kiosk@.service"), encoding: .utf8).contains(
                "LoadCredential=kiosk-pin:\(kiosk.etc.path)/kiosk-pin"), "the PIN file from the admin's folder")

        let uninstall = try admin(["uninstall", "--unit-dir", units.path])
        #expect(uninstall.status == 0)
        #expect(!FileManager.default.fileExists(atPath: units.appendingPathComponent("assist-kiosk@.service").path))
        #expect(
            !FileManager.default.fileExists(atPath: units.appendingPathComponent("assist-kiosk-failed@.service").path))
        let bad = try admin(["install", "--unit-dir", units.path, "--tty", "pts/0"])
        #expect(bad.status == 64 && bad.standardError.contains("--tty takes a console terminal like tty1"))
    }

    @Test func thePINHashBackOffGestureAndQuietHoursFollowTheirRules() throws {
        let hash = PasswordHash.make("2468", iterations: 1_000)
        #expect(hash.matches("2468") && !hash.matches("2469") && !hash.matches(""))
        let read = try #require(PasswordHash(line: hash.line))
        #expect(read == hash && read.matches("2468"))
        #expect(PasswordHash.make("2468", iterations: 1_000).salt != hash.salt, "a fresh salt each time")
        for bad in ["", "pbkdf2-sha256$10$00$00", "md5$1000$abcd$ef", hash.line + "$x", "pbkdf2-sha256$1000$zz$00"] {
            #expect(PasswordHash(line: bad) == nil, "\(bad)")
        }
        #expect((1...9).map { PINBackoff.wait(afterFailures: $0) } == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        var backoff = PINBackoff()
        let first = backoff.fail(at: 100)
        #expect(first == 1 && backoff.remaining(at: 100.2) == 1 && backoff.remaining(at: 101) == 0)
        let second = backoff.fail(at: 200)
        #expect(second == 2 && backoff.remaining(at: 200.5) == 2)

        var gesture = AdminGesture(key: .function(12), presses: 5, seconds: 3)
        var early: [Bool] = []
        for step in 0..<4 { early.append(gesture.press(.function(12), at: Double(step) * 0.5)) }
        #expect(early == [false, false, false, false])
        let fifth = gesture.press(.function(12), at: 2.0)
        #expect(fifth)
        for time in [10.0, 10.5, 11.0, 11.5] { _ = gesture.press(.function(12), at: time) }
        let other = gesture.press(.character("a"), at: 11.6)
        let afterOther = gesture.press(.function(12), at: 11.7)
        #expect(!other && !afterOther, "another key starts the count again")
        for time in [20.0, 21.0, 22.0, 23.0] { _ = gesture.press(.function(12), at: time) }
        let slow = gesture.press(.function(12), at: 24.0)
        #expect(!slow, "five presses over four seconds are not the gesture")

        let night = try #require(QuietHours("22:00-07:00"))
        #expect(
            night.contains(minute: 23 * 60) && night.contains(minute: 6 * 60 + 59) && !night.contains(minute: 7 * 60))
        let lunch = try #require(QuietHours("12:00-13:30"))
        #expect(lunch.contains(minute: 12 * 60 + 15) && !lunch.contains(minute: 13 * 60 + 30))
        for bad in ["22-07", "25:00-07:00", "07:00-07:00", "7:0-8:00", ""] { #expect(QuietHours(bad) == nil, "\(bad)") }
    }
}

/// The kiosk on a terminal of its own, as on tty1: every way out a terminal offers, the admin's way out, and
/// what systemd sees.
@Suite("assist kiosk on a terminal")
struct KioskTerminalTests {
    /// A kiosk allowing the talking clock, with the PIN 2468.
    func clockKiosk() throws -> KioskFixture {
        let kiosk = try KioskFixture()
        try kiosk.setPIN("2468")
        try kiosk.configure(["assist.clock": try kiosk.hash("assist.clock")])
        return kiosk
    }

    /// The state letter of process `pid` in /proc (R, S, T for stopped …).
    func state(of pid: Int32) -> String {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first.map(String.init) ?? "?"
    }

    @Test func everyWayOutOfATerminalIsAnsweredAndSystemdsStopEndsIt() throws {
        let kiosk = try clockKiosk()
        let notify = kiosk.folder.path("notify").path
        let listener = try NotifyListener(path: notify)
        let screen = try kiosk.terminal(environment: ["NOTIFY_SOCKET": notify, "WATCHDOG_USEC": "400000"])
        #expect(screen.waitFor("Press a number from 1 to 1"), "\(screen.text)")
        #expect(screen.lines.contains("1. Talking clock") && !screen.text.contains("Quit"), "\(screen.lines)")
        #expect(!screen.text.contains("Find object") && !screen.text.contains("Read text"), "only what is allowed")
        let refusal = "This device is in kiosk mode."
        // Ctrl+C, Ctrl+Z, Ctrl+\ and Ctrl+D, then Escape on the menu.
        for (index, key) in [[0x03], [0x1A], [0x1C], [0x04], [0x1B]].enumerated() {
            screen.type(key.map(UInt8.init))
            #expect(screen.waitFor(refusal, count: index + 1), "key \(key): \(screen.text)")
            #expect(screen.isRunning && state(of: screen.processIdentifier) != "T", "still running after \(key)")
        }
        #expect(screen.waitFor("Choose a feature.", count: 2), "the menu comes back after Escape")
        // A signal from outside the terminal's keys (kill -INT) changes nothing either.
        kill(screen.processIdentifier, SIGINT)
        kill(screen.processIdentifier, SIGQUIT)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(screen.isRunning)
        // systemd's stop.
        kill(screen.processIdentifier, SIGTERM)
        #expect(screen.waitForExit() == 0)
        let received = listener.finish()
        #expect(received.contains { $0.lines.contains("READY=1") }, "\(received.map(\.lines))")
        #expect(received.filter { $0.lines == ["WATCHDOG=1"] }.count >= 3)
        #expect(received.last?.lines.first == "STOPPING=1")
    }

    @Test func aCrashOnATerminalEndsAtOnceAndIsSaidAtTheNextStart() throws {
        let kiosk = try clockKiosk()
        // As a unit starts it: no SWIFT_BACKTRACE (the sanitizer lanes set one for their own runs).
        let screen = try kiosk.terminal(environment: ["SWIFT_BACKTRACE": ""])
        #expect(screen.waitFor("Press a number from 1 to 1"), "\(screen.text)")
        kill(screen.processIdentifier, SIGSEGV)
        // Swift's backtracer would ask "Press space to interact" on a terminal and then hang: the host ends
        // instead, with the signal, so systemd restarts it at once.
        #expect(screen.waitForExit(timeout: 5) == 128 + SIGSEGV, "\(screen.text.suffix(400))")
        #expect(screen.text.contains("assist: crashed; it ends now"))
        #expect(!screen.text.contains("Press space to interact"))
        let again = try kiosk.terminal()
        #expect(again.waitFor("Assist stopped unexpectedly last time"), "\(again.text)")
        kill(again.processIdentifier, SIGTERM)
        #expect(again.waitForExit() == 0)
    }

    @Test func theAdminGestureAndPINLeadToTheAdminMenuAndWrongPINsWaitLonger() throws {
        let kiosk = try clockKiosk()
        let screen = try kiosk.terminal()
        #expect(screen.waitFor("Press a number from 1 to 1"), "\(screen.text)")
        let prompt = "Admin PIN, then Enter."
        let gesture = { (presses: Int) in
            for _ in 0..<presses { screen.type(PseudoTerminal.f12) }
        }
        // Four presses, a key, one more: not the gesture, and F12 alone says nothing.
        gesture(4)
        screen.type("x")
        gesture(1)
        Thread.sleep(forTimeInterval: 1)
        #expect(screen.occurrences(of: prompt) == 0, "\(screen.text)")
        // Three wrong PINs: 1, 2 and then 4 s to wait; a try during the wait is refused.
        let backoffFile = kiosk.data.appendingPathComponent("kiosk-backoff.json")
        for (attempt, wait) in [(1, "1 second"), (2, "2 seconds"), (3, "4 seconds")] {
            gesture(5)
            #expect(screen.waitFor(prompt, count: attempt), "\(screen.text)")
            screen.type("1357\r")
            #expect(screen.waitFor("Wrong PIN. The next try can be made in \(wait)."), "\(screen.text)")
            if attempt < 3 { Thread.sleep(forTimeInterval: attempt == 1 ? 1.1 : 2.1) }
        }
        #expect(!screen.text.contains("1357"), "the PIN is never shown")
        gesture(5)
        #expect(screen.waitFor("before trying the admin PIN again."), "\(screen.text)")
        #expect(screen.occurrences(of: prompt) == 3)
        let kept = try JSONDecoder().decode(PINBackoff.self, from: Data(contentsOf: backoffFile))
        #expect(kept.failures == 3, "the back-off outlives a restart")
        #expect(try FileManager.default.attributesOfItem(atPath: backoffFile.path)[.posixPermissions] as? Int == 0o600)
        Thread.sleep(forTimeInterval: 4.1)
        gesture(5)
        #expect(screen.waitFor(prompt, count: 4), "\(screen.text)")
        screen.type("2468\r")
        #expect(screen.waitFor("7. Stop the kiosk"), "\(screen.text)")
        #expect(try JSONDecoder().decode(PINBackoff.self, from: Data(contentsOf: backoffFile)).failures == 0)
        screen.type("2")
        #expect(screen.waitFor("No uploads are waiting."), "\(screen.text)")
        #expect(screen.waitFor("7. Stop the kiosk", count: 2))
        screen.type("3")
        #expect(screen.waitFor("Checking this device."))
        #expect(screen.waitFor("7. Stop the kiosk", count: 3, timeout: 60), "\(screen.text)")
        #expect(screen.text.contains("Talking clock"), "the doctor's lines are said")
        // Restart: the same process (systemd's main PID) starts again.
        let pid = screen.processIdentifier
        screen.type("6")
        #expect(screen.waitFor("Restarting the kiosk."))
        #expect(screen.waitFor("Assist is ready.", count: 2), "\(screen.text)")
        #expect(screen.isRunning && screen.processIdentifier == pid)
        #expect(screen.waitFor("Press a number from 1 to 1", count: 2))
        gesture(5)
        #expect(screen.waitFor(prompt, count: 5))
        screen.type("2468\r")
        #expect(screen.waitFor("7. Stop the kiosk", count: 4))
        screen.type("7")
        #expect(screen.waitFor("Stopping the kiosk."))
        #expect(screen.waitForExit() == 3, "3: stopped by the admin, not restarted by systemd")
    }

    @Test func wordsThatLeaveAreRefusedAndLogLinesReachTheJournalWithThePluginID() throws {
        let kiosk = try clockKiosk()
        let (library, _) = try kiosk.buildMarkedPlugin()
        try kiosk.configure(
            [
                "assist.clock": try kiosk.hash("assist.clock"),
                "org.example.marked": try #require(SHA256Digest.hex(ofFileAt: library)),
            ])
        let journal = try NotifyListener(path: kiosk.folder.path("journal").path)
        // Standard error is the journal stream when JOURNAL_STREAM names it (device:inode).
        let errors = kiosk.folder.path("stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        var info = stat()
        stat(errors.path, &info)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = [
            "kiosk", "--no-speech", "--verbose", "--data-dir", kiosk.data.path, "--plugin-dir", kiosk.plugins.path,
        ]
        child.environment = ProcessInfo.processInfo.environment.merging(
            kiosk.environment.merging([
                "JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)",
                "ASSIST_JOURNAL_SOCKET": kiosk.folder.path("journal").path,
            ]) { _, new in new }
        ) { _, new in new }
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = try FileHandle(forWritingTo: errors)
        try child.run()
        for line in ["quit", "exit", "marked test", "2"] {
            Thread.sleep(forTimeInterval: 1.5 * ProcessRunner.timeScale)
            try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
        }
        Thread.sleep(forTimeInterval: 1.5 * ProcessRunner.timeScale)
        kill(child.processIdentifier, SIGTERM)
        child.waitUntilExit()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(printed.components(separatedBy: "This device is in kiosk mode.").count - 1 == 2, "\(printed)")
        #expect(printed.contains("Pick a colour.") && printed.contains("You chose number 2."), "\(printed)")
        #expect(child.terminationStatus == 0)
        let entries = journal.finish().map(\.lines)
        let pluginLines = entries.filter { $0.contains("PLUGIN_ID=org.example.marked") }
        #expect(pluginLines.contains { $0.contains("MESSAGE=test plugin init") }, "\(entries)")
        #expect(
            pluginLines.allSatisfy {
                $0.contains("SYSLOG_IDENTIFIER=assist") && $0.contains { $0.hasPrefix("PRIORITY=") }
            })
        #expect(
            entries.contains { $0.contains { $0.hasPrefix("MESSAGE=skipped assist.find-object: it is not allowed") } })
        #expect(try String(contentsOf: errors, encoding: .utf8).isEmpty, "nothing went to plain standard error")
    }
}

import Foundation
import HostTesting
import Testing

/// `assist run photo-sensor …` and the sensor running in the background of `assist shell`, through the real
/// executable and plugin library.
@Suite("assist run photo-sensor", .serialized)
struct PhotoSensorCLITests {
    let folder: TemporaryDirectory
    let pictures: URL

    init() throws {
        folder = try TemporaryDirectory("assist-photo-cli")
        pictures = folder.path("Pictures")
        try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)"]
        recursive = true
        debounceSeconds = 0.2
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
    }

    /// The options every run here takes: quiet, its data and config in the test's folder.
    var global: [String] {
        ["--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path]
    }

    /// `assist run photo-sensor …` (ARGUMENTS start with "run"), in process (`InProcessApp`).
    func run(_ arguments: [String], input: String = "") throws -> ProcessResult {
        try InProcessApp.run(arguments + global, input: input, timeoutSeconds: 60)
    }

    /// `assist events …` in process, on the same data folder.
    func journal(_ arguments: [String]) throws -> ProcessResult {
        try InProcessApp.events(["events"] + arguments + ["--data-dir", folder.path("data").path])
    }

    func picture(_ name: String) throws {
        let made = try ProcessRunner.run(
            "/usr/bin/convert", ["-size", "20x10", "xc:teal", "jpg:" + pictures.appendingPathComponent(name).path])
        try #require(made.status == 0)
    }

    @Test func watchOnceMakesABaselineThenRecordsOnlyWhatIsNew() throws {
        try picture("before.jpg")
        let first = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.lines.last?.hasPrefix("First run: 1 existing file indexed as the baseline") == true, "\(first.lines)"
        )
        try picture("after.jpg")
        try FileManager.default.createDirectory(
            at: pictures.appendingPathComponent("day2"), withIntermediateDirectories: true)
        try picture("day2/later.jpg")
        try Data("notes".utf8).write(to: pictures.appendingPathComponent("notes.txt"))
        let second = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(second.lines.last == "2 new items recorded.", "\(second.lines)")
        let third = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(third.lines.last == "0 new items recorded.", "nothing twice")
        let status = try run(["run", "photo-sensor", "status", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data((status.lines.last ?? "").utf8)) as? [String: Any])
        #expect(object["recorded"] as? Int == 2)
        #expect(object["running"] as? Bool == true)
    }

    @Test func theLabelPersistsAndAppliesToLaterRows() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])
        let labelled = try run(["run", "photo-sensor", "label", "kitchen", "study"])
        #expect(labelled.lines.last == "Label set to kitchen study.")
        let status = try run(["run", "photo-sensor", "status", "--json"])
        #expect(status.standardOutput.contains(#""label":"kitchen study""#), "\(status.standardOutput)")
    }

    @Test func inTheShellItSaysItIsOnAndRecordsWhatArrivesWithItsAWAREEvent() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])  // the baseline
        let said = try shell(
            [("quit", 3.0, nil)],
            before: {
                Thread.sleep(forTimeInterval: 1.5); try self.picture("live.jpg")
            })
        #expect(said.contains("Photo sensor is on, watching Pictures."), "\(said)")
        let events = try journal(["--prefix", "com.awareframework.ios.sensor.photos"])
        let taken = events.lines.filter { $0.contains("ACTION_AWARE_PHOTO_TAKEN") }
        #expect(taken.count == 1, "\(events.lines)")
        #expect(taken.first?.contains("live.jpg#sha256:") == true)
    }

    @Test func exportWritesBothTablesAsCSVWithTheOriginalColumns() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])
        _ = try run(["run", "photo-sensor", "label", #"room "B", north"#])
        try picture("one.jpg")
        try picture("two.jpg")
        _ = try run(["run", "photo-sensor", "watch", "--once"])
        let target = folder.path("export")
        let exported = try run(["run", "photo-sensor", "export", target.path])
        #expect(exported.status == 0, "\(exported.lines) \(exported.standardError)")
        #expect(exported.lines.last == "Exported 2 photo rows and 0 recognition rows to \(target.path).")
        let photos = try String(contentsOf: target.appendingPathComponent("ios_photos.csv"), encoding: .utf8)
        let lines = photos.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(
            lines.first
                == "id,timestamp,deviceId,label,localIdentifier,mediaType,mediaWidth,mediaHeight,creationTimestamp,duration,isFavorite,os,timezone,jsonVersion"
        )
        #expect(lines.count == 3)
        #expect(lines.dropFirst().allSatisfy { $0.contains(#","room ""B"", north","#) }, "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.contains(",20,10,") }, "the pictures' size: \(lines)")
        let recognition = try String(
            contentsOf: target.appendingPathComponent("ios_photos_recognition.csv"), encoding: .utf8)
        #expect(recognition.hasPrefix("id,timestamp,deviceId,label,photoLocalIdentifier,recognitionLabel,"))
        let mode =
            try FileManager.default.attributesOfItem(
                atPath: target.appendingPathComponent("ios_photos.csv").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A folder that cannot be written: one sentence, exit status not 0.
        let blocked = folder.path("blocked")
        try Data().write(to: blocked)
        let refused = try run(["run", "photo-sensor", "export", blocked.appendingPathComponent("x").path])
        #expect(refused.status != 0)
        #expect(
            (refused.lines + refused.standardError.split(separator: "\n").map(String.init)).contains {
                $0.contains("cannot be written. Choose a folder you can write to.")
            }, "\(refused.lines) \(refused.standardError)")
    }

    /// The shell with a script of typed lines, each written after `pause` seconds; what it printed.
    func shell(
        _ steps: [(line: String, pause: Double, then: (() throws -> Void)?)], before: (() throws -> Void)? = nil
    ) throws -> String {
        try shell(lines: steps.map { ProcessRunner.TypedLine($0.line, after: $0.pause, then: $0.then) }, before: before)
    }

    /// The same, each line as `ProcessRunner` types it (one may wait for what the shell says first).
    func shell(lines: [ProcessRunner.TypedLine], before: (() throws -> Void)? = nil) throws -> String {
        let run = try InProcessApp.typing(
            [
                "shell", "--no-speech", "--data-dir", folder.path("data").path, "--config",
                folder.path("config.toml").path,
            ],
            lines: lines, before: before, timeoutSeconds: 60)
        #expect(run.endedByItself, "the shell ends when its input does")
        return run.output
    }

    @Test func typedOrSpokenPhrasesReachTheRunningSensorFromTheMenu() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])  // the baseline
        let said = try shell([
            ("photo sensor label garden", 1.5, nil),
            ("stop photo sensor", 0.3, { try self.picture("while-stopped.jpg") }),
            ("photo sensor status", 1.0, nil),
            ("start photo sensor", 0.3, nil),
            ("photo sensor status", 1.5, nil),
            ("quit", 0.3, nil),
        ])
        let lines = said.split(separator: "\n").map(String.init)
        #expect(lines.contains("Label set to garden."), "\(lines)")
        #expect(lines.contains("Photo sensor stopped."), "\(lines)")
        #expect(
            lines.contains("Photo sensor stopped. 0 items recorded, 0 waiting to sync."),
            "nothing is recorded while stopped: \(lines)")
        #expect(lines.contains("Photo sensor started."), "\(lines)")
        #expect(
            lines.contains("Photo sensor running, watching 1 folder. 1 item recorded, 1 waiting to sync."),
            "what arrived while stopped is caught up at start: \(lines)")
        let events = try journal(["--prefix", "com.awareframework.ios.sensor.photos.ACTION"])
        #expect(events.standardOutput.contains(#""label":"garden""#), "\(events.lines)")
    }

    /// "Pause for one hour": what is taken during the pause is never recorded, not at resume, not at the next
    /// start after the pause ran out; status says until when; bad minutes change nothing.
    /// Issue 38: settings that are not what their key takes are named with what is used instead, never taken
    /// silently (`syncInterval = -1` had the sensor sync every 3 seconds).
    @Test func settingsItCannotTakeAsWrittenAreNamedWithWhatIsUsed() throws {
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)"]
        recursive = "yes"
        batchSize = 0
        syncInterval = -1
        debounceSeconds = "soon"
        onlyWhenOnline = "maybe"
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
        let expected = [
            "In [photo-sensor], recursive = \"yes\" is taken as true; write true or false.",
            "In [photo-sensor], syncInterval = -1 is outside 0.01 to 10080 minutes; 1 minute is used.",
            "In [photo-sensor], onlyWhenOnline = \"maybe\" is neither true nor false; true is used.",
            "In [photo-sensor], batchSize = 0 is outside 1 to 1000 rows; 1000 rows is used.",
            "In [photo-sensor], debounceSeconds = \"soon\" is not a number; 1 second is used.",
        ]
        let watched = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(watched.status == 0, "\(watched.standardError)")
        for line in expected { #expect(watched.lines.contains(line), "\(line) in \(watched.lines)") }
        let status = try run(["run", "photo-sensor", "status"])
        for line in expected { #expect(status.standardOutput.contains(line), "\(status.standardOutput)") }
        let json = try run(["run", "photo-sensor", "status", "--json"])
        #expect(json.standardOutput.contains(#""setting_problems":["recursive"#), "\(json.standardOutput)")
    }

    /// Issue 35: the sensor speaks the session's language, its settings' problems and the menu's words too.
    @Test func itSpeaksRussianAndChinese() throws {
        try picture("before.jpg")
        let first = try run(["run", "--lang", "ru", "photo-sensor", "watch", "--once"])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(
            first.lines.last
                == "Первый запуск: один существующий файл учтён как исходный; новые записываются с этого момента.",
            "\(first.lines)")
        try picture("after.jpg")
        let second = try run(["run", "--lang", "zh", "photo-sensor", "watch", "--once"])
        #expect(second.lines.last == "记录了1个新项目。", "\(second.lines)")
        let status = try run(["run", "--lang", "ru", "photo-sensor", "status"])
        #expect(
            status.lines.last
                == "Фотодатчик работает, следит за одной папкой. Записан один элемент, ждут синхронизации: 1.",
            "\(status.lines)")
        let paused = try run(["run", "--lang", "zh", "photo-sensor", "pause", "--minutes", "0"])
        #expect(paused.status != 0)
        #expect(
            (paused.standardOutput + paused.standardError).contains(
                "--minutes 必须是 1 到 1440（一天）之间的整数，而不是 0；传感器没有暂停。"), "\(paused.standardOutput)")
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)"]
        batchSize = 0
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
        let problems = try run(["run", "--lang", "ru", "photo-sensor", "status"])
        #expect(
            problems.standardOutput.contains(
                "В [photo-sensor]: batchSize = 0 вне диапазона от 1 до 1000 строк; используется 1000 строк."),
            "\(problems.standardOutput)")
    }

    @Test func aPauseRecordsNothingTakenMeanwhileAndStatusSaysUntilWhen() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])  // the baseline
        let paused = try run(["run", "photo-sensor", "pause", "--minutes", "30"])
        #expect(paused.status == 0, "\(paused.standardError)")
        let pausedLine = try #require(paused.lines.last)
        #expect(
            pausedLine.hasPrefix("Photo sensor paused for 30 minutes, until ")
                && pausedLine.hasSuffix("; nothing taken meanwhile is recorded."), "\(paused.lines)")
        try picture("private.jpg")
        let watched = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(watched.lines.last?.hasPrefix("Paused until ") == true, "\(watched.lines)")
        let status = try run(["run", "photo-sensor", "status"])
        #expect(status.lines.last?.contains("Paused until ") == true, "\(status.lines)")
        let json = try run(["run", "photo-sensor", "status", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data((json.lines.last ?? "").utf8)) as? [String: Any])
        #expect(object["paused_until"] is NSNumber && object["recorded"] as? Int == 0, "\(object)")
        for bad in ["0", "10000", "soon"] {
            let refused = try run(["run", "photo-sensor", "pause", "--minutes", bad])
            #expect(refused.status != 0, "\(bad)")
            #expect(
                refused.standardOutput.contains(
                    "--minutes must be a whole number from 1 to 1440 (a day), not \(bad); the sensor was not paused."),
                "\(refused.lines)")
        }
        let resumed = try run(["run", "photo-sensor", "resume"])
        #expect(resumed.lines.last == "Photo sensor resumed; new pictures are recorded again.", "\(resumed.lines)")
        #expect(try run(["run", "photo-sensor", "resume"]).lines.last == "The photo sensor was not paused.")
        try picture("later.jpg")
        let after = try run(["run", "photo-sensor", "watch", "--once"])
        #expect(after.lines.last == "1 new item recorded.", "only the picture after the pause: \(after.lines)")
        let counted = try run(["run", "photo-sensor", "status", "--json"])
        #expect(counted.standardOutput.contains(#""recorded":1"#), "\(counted.standardOutput)")
    }

    /// The same by voice or typed words in the shell, and from the sensor's menu by its P key.
    @Test func inTheShellPausePhotoSensorAndItsMenuKeyPause() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])  // the baseline
        // Each step waits for the answer before it: the picture is taken once the pause is said (a sanitizer's
        // build under load said it more than 0.3 s after the words, and the picture taken meanwhile was recorded,
        // as it should be before a pause), and the sensor's menu is open before its key is typed.
        var paused = ProcessRunner.when("Photo sensor paused for 60 minutes", type: "photo sensor status", atMost: 30)
        paused.then = { try self.picture("while-paused.jpg") }
        let said = try shell(lines: [
            ProcessRunner.when("Choose a feature.", type: "pause photo sensor", atMost: 30), paused,
            ProcessRunner.when("Paused until ", type: "photo sensor", atMost: 30),
            ProcessRunner.when("P: resume now", type: "p", atMost: 30),
            ProcessRunner.when("Photo sensor resumed", type: "photo sensor status", atMost: 30),
            ProcessRunner.when("Photo sensor running", count: 2, type: "quit", atMost: 30),
        ])
        let lines = said.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("Photo sensor paused for 60 minutes, until ") }, "\(lines)")
        #expect(lines.contains { $0.contains("Paused until ") && $0.contains("0 items recorded") }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix("P: resume now") }, "\(lines)")
        #expect(lines.contains("Photo sensor resumed; new pictures are recorded again."), "\(lines)")
        #expect(
            lines.contains("Photo sensor running, watching 1 folder. 0 items recorded, 0 waiting to sync."),
            "what was taken while paused stays unrecorded after resuming: \(lines)")
    }

    @Test func itsMenuWorksByKeysAndAnnouncesNewItemsWhenAsked() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])  // the baseline
        // The photo is recognised before it is announced, which a sanitizer's build under load took longer for
        // than a fixed 1.5 s (a CI rehearsal of 2026-12-03): the shell is left once the announcement is said.
        let said = try shell(lines: [
            .init("photo sensor", after: 1.5), .init("a", after: 0.3), .init("photo sensor", after: 0.3),
            .init("s", after: 0.3, then: { try self.picture("announced.jpg") }),
            ProcessRunner.when("Photo recorded.", type: "quit", atMost: 30),
        ])
        let lines = said.split(separator: "\n").map(String.init)
        #expect(lines.contains("Photo sensor."), "\(lines)")
        #expect(lines.contains("New items are announced."), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("Photo sensor running, watching 1 folder.") }, "\(lines)")
        #expect(lines.contains("Photo recorded."), "\(lines)")
    }

    /// On a terminal, key by key: the running sensor is in the shell's menu; choosing it opens its own menu,
    /// whose letter keys answer at once; a missing folder is named in its status.
    @Test func onATerminalItIsInTheMenuAndItsMenuAnswersItsKeys() throws {
        _ = try run(["run", "photo-sensor", "watch", "--once"])  // the baseline
        let gone = folder.path("Gone").path
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)", "\(gone)"]
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "shell", "--no-speech", "--data-dir", folder.path("data").path, "--config",
                folder.path("config.toml").path,
            ])
        let label = "Photo sensor, running in the background"
        let number = try #require(screen.number(of: label), "\(screen.text)")
        let entry = "\(number). \(label)"
        screen.type(number)
        #expect(screen.waitFor("S: status"), "\(screen.text)")
        screen.type("s")
        #expect(screen.waitFor("Photo sensor running, watching 1 folder."), "\(screen.text)")
        #expect(screen.text.contains("Folder \(gone) is not available: it is missing."), "\(screen.text)")
        #expect(screen.waitFor(entry, count: 2), "the shell's menu comes back: \(screen.text)")
        kill(screen.processIdentifier, SIGHUP)
        #expect(screen.waitForExit() == 0)
    }

    /// Issue 38: a folder it cannot watch is never reported as watched. Missing, a file, or not a full path
    /// (and, for a user without the rights, unreadable): each named by `watch --once` and `status`.
    @Test func aFolderItCannotWatchIsNamedWithTheReason() throws {
        let file = folder.path("a-file")
        try Data("x".utf8).write(to: file)
        let locked = folder.path("Locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        chmod(locked.path, 0)
        defer { chmod(locked.path, 0o700) }
        let gone = folder.path("Gone").path
        try """
        [photo-sensor]
        watchDirectories = ["\(pictures.path)", "\(gone)", "\(file.path)", "Pictures", "\(locked.path)"]
        """.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
        let once = try run(["run", "photo-sensor", "watch", "--once"])
        let said = once.standardOutput + once.standardError
        #expect(said.contains("Folder \(gone) is not available: it is missing."), "\(said)")
        #expect(said.contains("Folder \(file.path) is not available: it is a file, not a folder."), "\(said)")
        #expect(
            said.contains("Folder Pictures is not available: it is not a full path; write it from / on."), "\(said)")
        let status = try run(["run", "photo-sensor", "status", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        let problems = try #require(object["folder_problems"] as? [String: String], "\(object)")
        // Root may read any folder: the locked one is unavailable only to others.
        let expected = getuid() == 0 ? 3 : 4
        #expect(problems.count == expected, "\(problems)")
        if getuid() != 0 { #expect(problems[locked.path]?.hasPrefix("it cannot be read (") == true, "\(problems)") }
        #expect((object["missing_folders"] as? [String])?.count == expected)
        let text = try run(["run", "photo-sensor", "status"])
        #expect(text.standardOutput.contains("watching \(5 - expected) folder"), "\(text.standardOutput)")
    }

    /// Issue 72: not set up, it says nothing at the shell's start and is not in the menu, but its name typed says
    /// why; every command of it says the truth about it, in plain words.
    @Test func withoutFoldersItIsQuietAtStartAndSaysWhyWhenAsked() throws {
        try "".write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
        let notSetUp = "The photo sensor is not set up: no folder is chosen for it to watch, so it records nothing."
        let shell = try shell([("photo sensor", 0.3, nil), ("quit", 0.3, nil)])
        let lines = shell.split(separator: "\n").map(String.init)
        #expect(!shell.contains("watching"), "\(shell)")
        #expect(!lines.contains { $0.hasSuffix("Photo sensor") }, "not in the menu, which it would lengthen: \(lines)")
        #expect(lines.contains { $0.hasPrefix(notSetUp) }, "its name typed says why: \(lines)")
        let alone = try run(["run", "photo-sensor"])
        #expect(alone.status == 0)
        #expect(
            alone.lines.contains {
                $0.hasPrefix(
                    "Photo sensor did not start: it has nothing to do on this device yet, as it is not set up.")
            }, "\(alone.lines)")
        let status = try run(["run", "photo-sensor", "status"])
        #expect(status.lines.contains { $0.hasPrefix(notSetUp) }, "\(status.lines)")
        _ = try run(["run", "photo-sensor", "pause", "--minutes", "5"])
        let resumed = try run(["run", "photo-sensor", "resume"])
        #expect(resumed.lines.contains { $0.hasPrefix("The pause is over, but the photo sensor is not set up") })
        let sync = try run(["run", "photo-sensor", "sync"])
        #expect(sync.status != 0)
        #expect(
            sync.lines.contains { $0.contains("this device is not set up to send to a study's server") },
            "\(sync.lines)")
        #expect(!sync.standardOutput.contains("serverUrl"), "setting names are the log's, not said: \(sync.lines)")
    }

    /// The data folder on a full disk (a 2 MB tmpfs, filled): the picture stays unrecorded with one clear
    /// sentence, nothing half-written, and the next run once there is room records it exactly once.
    @Test func aFullDiskLeavesThePictureForTheNextRunAndSaysSo() throws {
        guard let disk = try SmallDisk(at: folder.path("small"), megabytes: 2) else { return }
        let mountPoint = disk.url
        defer { withExtendedLifetime(disk) {} }  // mounted until the test ends
        let data = mountPoint.appendingPathComponent("data").path
        func run(_ arguments: [String]) throws -> ProcessResult {
            try InProcessApp.run(
                ["run", "photo-sensor"] + arguments + [
                    "--no-speech", "--data-dir", data, "--config", folder.path("config.toml").path,
                ], timeoutSeconds: 60)
        }
        _ = try run(["watch", "--once"])  // the baseline, while there is room
        let filler = mountPoint.appendingPathComponent("filler")
        _ = try ProcessRunner.run("/bin/dd", ["if=/dev/zero", "of=\(filler.path)", "bs=64k"])  // until full
        try picture("on-full-disk.jpg")
        let full = try run(["watch", "--once"])
        #expect(full.status != 0, "\(full.lines)")
        let said = full.lines + full.standardError.split(separator: "\n").map(String.init)
        #expect(said.contains { $0.contains("the disk holding Assist's data is full. Free some space") }, "\(said)")
        try FileManager.default.removeItem(at: filler)
        let later = try run(["watch", "--once"])
        #expect(later.lines.last == "1 new item recorded.", "\(later.lines) \(later.standardError)")
        let again = try run(["watch", "--once"])
        #expect(again.lines.last == "0 new items recorded.")
    }
}

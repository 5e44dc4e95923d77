import Audio
import Foundation
import HostTesting
import SurveyCore
import Testing

/// `assist survey …` as an admin or a participant runs it: the real plugin library, in process for `check` (what
/// it prints), the real executable for what needs a process (a kill, a terminal, a pipe, the timer's units).
/// `assist survey check FILES …` in process: what it does, `assist run assist.survey check FILES …`, on a virtual
/// terminal, with the host's options (`options`) as `assist` takes them.
private func check(_ files: [String], _ options: [String]) throws -> ProcessResult {
    try InProcessApp.run(["run"] + options + ["assist.survey", "check"] + files, timeoutSeconds: 60)
}

@Suite("assist survey", .serialized)
struct SurveyCLITests {
    @Test func checkListsEachProblemOnItsOwnLineAndFails() throws {
        let folder = try TemporaryDirectory("assist-survey-check")
        let bad = folder.path("bad.json")
        try Data(
            #"{"id":"t","version":1,"parts":[{"id":"p","items":[{"id":"a","type":"single","field":"f","text":"A?","options":[{"key":"x","then":"a2"}]},{"id":"b","type":"poll","text":"?"}]}]}"#
                .utf8
        ).write(to: bad)
        let result = try check([bad.path], ["--no-speech", "--data-dir", folder.path("data").path])
        #expect(result.status == 1)
        #expect(
            result.lines.contains(
                "\(bad.path): Item a: option x names \"a2\" in then, but there is no follow-up item with that id; add one with \"follow_up\": true or fix the name."
            ), "\(result.lines)")
        #expect(result.lines.contains { $0.contains("Item b: the type \"poll\" is unknown") })
        let good = BuildProducts.packageRoot.appendingPathComponent("Plugins/Survey/share/surveys/covid19-sounds.json")
            .path
        let ok = try check([good], ["--no-speech", "--data-dir", folder.path("data").path])
        #expect(ok.status == 0)
        #expect(ok.lines == ["\(good): the survey covid19-sounds, version 1, is valid."])
    }

    /// Issue 38: an id is part of the reminder's systemd unit names and text, so one with a newline could
    /// have added `ExecStartPre=` to a unit that runs daily. Such ids are refused by `survey check`, named
    /// without their raw bytes, and no unit is ever written from one.
    @Test func anIdThatCouldWriteIntoASystemdUnitIsRefused() throws {
        let folder = try TemporaryDirectory("assist-survey-id")
        let items =
            #""parts":[{"id":"p","items":[{"id":"a","type":"single","field":"f","text":"A?","options":[{"key":"x"}]}]}]"#
        // As written in the JSON file: \n and \t are JSON's escapes.
        for id in [
            #"x\nExecStartPre=touch\tpwned"#, "../up", "", String(repeating: "a", count: 65), "-x", #"caf\u00e9"#,
        ] {
            let file = folder.path("bad.json")
            try Data(#"{"id":"\#(id)","version":1,\#(items)}"#.utf8).write(to: file)
            let result = try check([file.path], ["--no-speech", "--data-dir", folder.path("data").path])
            #expect(result.status == 1, "\(id)")
            #expect(
                result.lines.contains {
                    $0.contains("\"id\" must be 1 to 64 letters, digits, dots, dashes or underscores")
                },
                "\(id): \(result.lines)")
            #expect(!result.standardOutput.contains("ExecStartPre") && !result.standardError.contains("ExecStartPre"))
        }
        let units = folder.path("units")
        let installer = ReminderInstaller(folder: units) { _ in true }
        let outcome = installer.install(
            ReminderUnits(
                definitionID: "x\nExecStartPre=touch pwned", executable: "/usr/bin/assist", time: "09:00",
                testMode: false))
        #expect(outcome == .cannotWrite(units.path))
        #expect(!FileManager.default.fileExists(atPath: units.path))
    }

    /// Issue 73: the reminder's units go under `$HOME/.config/systemd/user` when `HOME` says so (a test or a script
    /// never writes into the real user's folder), `$XDG_CONFIG_HOME/systemd/user` when that is set; where the
    /// user's systemd is not running, one sentence says so and what to do, and nothing is left behind.
    @Test func remindersGoWhereTheEnvironmentSays() throws {
        let folder = try TemporaryDirectory("assist-survey-reminder-home")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = nil
        for (key, value) in [("HOME", folder.path("home").path), ("XDG_CONFIG_HOME", folder.path("config").path)] {
            environment[key] = value
            let units = key == "HOME" ? folder.path("home/.config/systemd/user") : folder.path("config/systemd/user")
            let result = try ProcessRunner.run(
                BuildProducts.assist,
                ["survey", "reminders", "on", "--no-speech", "--data-dir", folder.path("data-\(key)").path],
                environment: environment)
            let timers = (try? FileManager.default.contentsOfDirectory(atPath: units.path)) ?? []
            if result.status == 0 {
                #expect(timers.contains { $0.hasSuffix(".timer") }, "\(key): \(timers)")
                _ = try ProcessRunner.run(
                    BuildProducts.assist,
                    ["survey", "reminders", "off", "--no-speech", "--data-dir", folder.path("data-\(key)").path],
                    environment: environment)
            } else {
                #expect(result.standardError.contains("in \(units.path)"), "\(key): \(result.standardError)")
                #expect(
                    result.lines.contains {
                        $0.hasPrefix("Reminders could not be turned on: this computer runs no systemd for your account")
                    }, "\(result.lines)")
                #expect(!timers.contains { $0.hasSuffix(".timer") }, "nothing is left behind: \(timers)")
            }
        }
        let usage = try ProcessRunner.run(
            BuildProducts.assist,
            ["survey", "reminders", "maybe", "--no-speech", "--data-dir", folder.path("data").path],
            environment: environment)
        #expect(
            usage.status != 0 && usage.standardError.contains("Say on or off, not maybe."), "\(usage.standardError)")
    }

    /// Issue 38: definitions no participant could answer are refused by `survey check`, each with its reason:
    /// a take of 10^12 seconds, a number written as text, a negative wait, a NUL in a key, and 60,000 items.
    @Test func checkRefusesDefinitionsThatCannotBeAnswered() throws {
        let folder = try TemporaryDirectory("assist-survey-unanswerable")
        func item(_ fields: String) -> String {
            #"{"id":"t","version":1,"parts":[{"id":"p","items":[\#(fields)]}]}"#
        }
        let recording = #"{"id":"r","type":"recording","field":"f","file":"audio_f","text":"Say it.""#
        // `count` copies of one small question.
        func questions(_ count: Int) -> String {
            item(
                Array(
                    repeating: #"{"id":"q","type":"single","field":"f","text":"?","options":[{"key":"x"}]}"#,
                    count: count
                ).joined(separator: ","))
        }
        let cases: [(String, String)] = [
            (item(recording + #","max_s":1e12}"#), "min_s and max_s must satisfy 1 ≤ min_s < max_s ≤ 600"),
            (item(recording + #","min_s":"1"}"#), #""min_s" must be a number, not text."#),
            (
                #"{"id":"t","version":1,"eligible_after_s":-5,"parts":[{"id":"p","items":[\#(recording)}]}]}"#,
                #""eligible_after_s" must be seconds from 0 to a year"#
            ),
            (
                item(#"{"id":"a","type":"single","field":"f","text":"A?","options":[{"key":"x\u0000y"}]}"#),
                #"option 1 needs a "key" of text without control characters."#
            ),
            (item(recording + #","follow_up":"no"}"#), #""follow_up" must be true or false, not text."#),
            (item(recording + #","fi\u0000eld":"x"}"#), "Item r has a key with a control character; remove it."),
            (questions(6_000), "has 6000 items; a survey may have at most 2000"),
            (questions(60_000), "a definition may be at most 1024 kB"),
        ]
        for (index, (json, reason)) in cases.enumerated() {
            let file = folder.path("bad-\(index).json")
            try Data(json.utf8).write(to: file)
            let result = try check([file.path], ["--no-speech", "--data-dir", folder.path("data").path])
            #expect(result.status == 1, "\(reason): \(result.lines)")
            #expect(result.lines.contains { $0.contains(reason) }, "\(reason): \(result.lines.prefix(5))")
        }
    }

    @Test func aKillNineMidSurveyResumesAtTheSameQuestion() throws {
        let folder = try TemporaryDirectory("assist-survey-kill")
        let mic = folder.path("mic.wav")
        try SurveyHarness.noise(seconds: 1.5, rate: 44_100).write(to: mic)
        let common = ["--no-speech", "--data-dir", folder.path("data").path, "--mic", "wav:\(mic.path)"]
        // First run: the gate and three questions, then kill -9 while question 5 waits.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = ["survey"] + common
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        let seen = Collected<String>()
        let drain = PipeDrain(output.fileHandleForReading) { seen.append(String(decoding: $0, as: UTF8.self)) }
        func waitFor(_ text: String) -> Bool {
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                if seen.values.joined().contains(text) { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
        for line in ["continue", "yes", "2", "continue", "4", "continue", "3", "continue"] {
            try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
            Thread.sleep(forTimeInterval: 0.15)
        }
        #expect(waitFor("Do you smoke?"), "\(seen.values.joined())")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        drain.waitForEnd(seconds: 10)

        // Second run: the draft is offered, and continuing asks the same question with the answers kept.
        let resumed = try ProcessRunner.run(
            BuildProducts.assist, ["survey"] + common, input: "1\nquit\n", timeoutSeconds: 30)
        let text = resumed.standardOutput
        #expect(text.contains("You have an unfinished survey from"), "\(text)")
        #expect(text.contains("Question 5 of 12. Do you smoke?"), "\(text)")
        #expect(resumed.status == 0 && !resumed.signalled)
        #expect(!text.contains("Question 4 of 12"), "answered questions are not asked again")
    }

    /// On a terminal, key by key: answers by number and Enter, then Escape: the survey says it stopped and
    /// that the answers are kept, and the next start offers them.
    @Test func onATerminalEscapeStopsAndSaysTheAnswersAreKept() throws {
        let folder = try TemporaryDirectory("assist-survey-terminal")
        let mic = folder.path("mic.wav")
        let samples = (0..<44_100).map { Int16(truncatingIfNeeded: ($0 * 7919) % 6000 - 3000) }
        try WavFile(format: AudioFormat(sampleRateHz: 44_100, channels: 1), samples: samples).data.write(to: mic)
        let arguments = ["survey", "--no-speech", "--data-dir", folder.path("data").path, "--mic", "wav:\(mic.path)"]
        let screen = try PseudoTerminal(BuildProducts.assist, arguments)
        #expect(screen.allowFirstUse("Survey", count: 2), "the microphone and the network: \(screen.text)")
        #expect(screen.waitFor("Press I at any time to hear this again."), "\(screen.text)")
        screen.typeSlowly("\r", gap: 0.2)
        #expect(screen.waitFor("Press Y for", count: 3), "after the two first-use questions: \(screen.text)")
        for (keys, next) in [("y", "Question 2 of 12"), ("2\r", "Question 3 of 12"), ("4\r", "Question 4 of 12")] {
            screen.typeSlowly(keys, gap: 0.2)
            #expect(screen.waitFor(next), "\(screen.text)")
        }
        screen.type([0x1B])
        #expect(screen.waitFor("Survey stopped."), "\(screen.text)")
        #expect(screen.waitFor("Your answers are kept"), "\(screen.text)")
        #expect(screen.waitForExit() == 0)
        let again = try PseudoTerminal(BuildProducts.assist, arguments)
        #expect(again.waitFor("You have an unfinished survey from"), "\(again.text)")
        kill(again.processIdentifier, SIGHUP)
        #expect(again.waitForExit() == 0)
    }

    @Test func exportPrintsKeptSubmissionsAsCSV() throws {
        let survey = try SurveyHarness(configured: false)
        survey.start()
        survey.answerEverything(initial: true)
        #expect(survey.waitFor("Sending is not set up"))
        survey.host.features.stopAll()
        let result = try ProcessRunner.run(
            BuildProducts.assist, ["survey", "export", "--csv", "--no-speech", "--data-dir", survey.data.url.path])
        #expect(result.status == 0)
        let header = try #require(result.lines.first)
        #expect(header.hasPrefix("submission,definition,version,completed_at,state,user_sex,user_age,medical_history"))
        #expect(result.lines.count == 2)
        #expect(
            result.lines.last?.contains(",queued,Female,20-29,asthma,never,\"fever,drycough\",") == true,
            "\(result.lines)")
        // As an admin types it, speaking, into head: standard output is the data alone, and a pipe closed
        // early (twice, more than enough to turn a crashing feature off) is no crash.
        for _ in 0..<2 {
            let piped = try ProcessRunner.run(
                "/bin/sh",
                [
                    "-c",
                    "'\(BuildProducts.assist)' survey export --csv --data-dir '\(survey.data.url.path)' | head -1",
                ])
            #expect(piped.lines == [header], "only the data on standard output: \(piped.standardOutput)")
            #expect(piped.standardError.contains("No sound card found"), "people's lines go to standard error")
        }
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: survey.data.path("sessions").path)) ?? []
        #expect(sessions.allSatisfy { !$0.hasSuffix(".fault") }, "\(sessions)")
        let listed = try ProcessRunner.run(
            BuildProducts.assist, ["plugins", "list", "--data-dir", survey.data.url.path])
        #expect(
            !listed.standardOutput.contains("turned off") && !listed.standardOutput.contains("disabled"),
            "\(listed.standardOutput)")
    }
}

/// The shell reminds a participant at start when a survey is due, once per spacing, before its menu.
@Suite("assist shell survey reminder")
struct ShellReminderTests {
    @Test func aDueParticipantHearsTheReminderOnceBeforeTheMenu() throws {
        let fresh = try TemporaryDirectory("assist-shell-remind-none")
        let none = try ProcessRunner.run(
            BuildProducts.assist, ["shell", "--no-speech", "--data-dir", fresh.url.path], input: "quit\n")
        #expect(!none.standardOutput.contains("Survey reminder"), "someone who never took part is not reminded")

        let survey = try SurveyHarness(configured: false, extra: ["survey.eligible-after-seconds": "0"])
        survey.start()
        survey.answerEverything(initial: true)
        #expect(survey.waitFor("Sending is not set up"))
        survey.host.features.stopAll()
        let config = survey.data.path("config.toml")
        try "[survey]\neligible-after-seconds = 0\n".write(to: config, atomically: true, encoding: .utf8)
        let arguments = ["shell", "--no-speech", "--data-dir", survey.data.url.path, "--config", config.path]
        let first = try ProcessRunner.run(BuildProducts.assist, arguments, input: "quit\n")
        #expect(
            first.lines.prefix(4) == [
                "Assist is ready. 8 features.", "Survey reminder: how are you today? Say start survey or press S.",
                "New to Assist? Type or say help tutorial, at any time, for a one-minute tour.", "Choose a feature.",
            ], "\(first.lines)")
        let second = try ProcessRunner.run(BuildProducts.assist, arguments, input: "quit\n")
        #expect(!second.standardOutput.contains("Survey reminder"), "one reminder per 47 hours")
        #expect(second.lines.last == "Goodbye.")
    }

    /// The survey's own settings are checked with its definition (issue 73, item 4): a setting that cannot be used
    /// is named with what it takes, the check fails, and the survey still runs on the default.
    @Test func checkNamesEverySettingThatCannotBeUsed() throws {
        let folder = try TemporaryDirectory("assist-survey-settings")
        let config = folder.path("config.toml")
        try
            "[survey]\nsample-rate = 8000\nreminder-time = \"25:99\"\nretry-seconds = \"x\"\neligible-after-seconds = -7\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let shipped = DefinitionTests.shipped.path
        func checkShipped() throws -> ProcessResult {
            try check([shipped], ["--no-speech", "--data-dir", folder.path("data").path, "--config", config.path])
        }
        let checked = try checkShipped()
        #expect(checked.status == 1, "\(checked.lines)")
        #expect(checked.lines.contains { $0.contains("the survey covid19-sounds, version 1, is valid") })
        for (key, takes) in [
            ("sample-rate = 8000", "44100 or 16000"), ("reminder-time = 25:99", "a time of day from 00:00 to 23:59"),
            ("retry-seconds = x", "two numbers of seconds"), ("eligible-after-seconds = -7", "a number of seconds"),
        ] {
            #expect(
                checked.lines.contains { $0.hasPrefix("The survey setting \(key) cannot be used: it takes \(takes)") },
                "\(key): \(checked.lines)")
        }
        // Set right, the check passes.
        try "[survey]\nsample-rate = 16000\nreminder-time = \"7:30\"\n".write(
            to: config, atomically: true, encoding: .utf8)
        let fixed = try checkShipped()
        #expect(fixed.status == 0, "\(fixed.lines)")
    }
}

import AssistApp
import AssistCore
import Foundation
import HostTesting
import Interaction
import Kiosk
import PluginHost
import Testing

/// The host's glue in process: the session built from options as `assist` builds it, the doctor's checks, the
/// phrases voice listens for and the kiosk's units, without spawning the binary.
@Suite("The host's library, in process")
struct HostSessionTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory("assist-app")
    }

    /// Options for a quiet session in the temporary folder: no speech, no sound, the build's plugins.
    var options: HostOptions {
        HostOptions(dataDir: folder.path("data").path, noSpeech: true, audioOut: "null")
    }

    @Test func aSessionFindsTheBuildsFeaturesAndMakesItsFoldersPrivate() throws {
        let session = try HostSession(options: options, interactive: false)
        defer { session.shutdown() }
        let clock = try #require(session.features.records.first { $0.id == "assist.clock" })
        #expect(clock.isUsable, "\(clock.reason ?? "")")
        #expect(session.suggestions(for: "clok").first == "assist.clock")
        let mode = try FileManager.default.attributesOfItem(atPath: session.paths.data.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        #expect(session.console == nil && session.sound == nil, "a non-interactive quiet session opens neither")
    }

    /// A session is made from its options and environment alone and leaves the process's environment as it
    /// was: two made at once in one process, each with its own settings folder, share folder and language,
    /// keep their own (what an app driven in process by its tests needs). The old session set
    /// `ASSIST_SHARE_DIR` for the whole process and read the process's settings folder. Each on a virtual
    /// terminal watches for crashes as a run does, and leaves the process's fault handlers as they were: those
    /// are the process's (the fault's mark), and two sessions setting them at once raced in the test process.
    @Test func twoSessionsInOneProcessKeepTheirOwnSettingsAndChangeNothingOfTheProcess() throws {
        let process = ProcessInfo.processInfo.environment
        let faultHandler = { () -> UInt in
            var action = sigaction()
            sigaction(SIGSEGV, nil, &action)
            return unsafeBitCast(action.__sigaction_handler.sa_sigaction, to: UInt.self)
        }
        let handlerBefore = faultHandler()
        let share = BuildProducts.packageRoot.appendingPathComponent("share/assist")
        func session(_ name: String, language: String) throws -> HostSession {
            let config = folder.path("\(name)/config/assist")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
            try Data("language = \"\(language)\"\n".utf8).write(to: config.appendingPathComponent("config.toml"))
            // Each its own path to the share folder, so that a session that set it for the process would show.
            let link = folder.path("\(name)/share")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: share)
            var environment = process
            environment["XDG_CONFIG_HOME"] = folder.path("\(name)/config").path
            environment["LANG"] = "C.UTF-8"
            let options = HostOptions(
                dataDir: folder.path("\(name)/data").path, shareDir: link.path, noSpeech: true, audioOut: "null")
            let terminal = SessionTerminal(input: -1, output: KeptLines(), errors: KeptLines())
            let session = try HostSession(
                options: options, interactive: false, environment: environment, terminal: terminal)
            _ = session.watchForCrashes()
            return session
        }
        let spanish = try session("one", language: "es")
        defer { spanish.shutdown() }
        let russian = try session("two", language: "ru")
        defer { russian.shutdown() }
        #expect(spanish.phrases.language == "es" && russian.phrases.language == "ru")
        #expect(spanish.paths.share.path == folder.path("one/share").path)
        #expect(russian.paths.share.path == folder.path("two/share").path)
        #expect(spanish.paths.data != russian.paths.data)
        #expect(spanish.features.record(id: "assist.clock")?.isUsable == true)
        #expect(russian.features.record(id: "assist.clock")?.isUsable == true)
        let after = ProcessInfo.processInfo.environment
        for name in ["ASSIST_SHARE_DIR", "XDG_CONFIG_HOME", "NOTIFY_SOCKET"] {
            #expect(after[name] == process[name], "\(name) changed by making a session: \(after[name] ?? "unset")")
        }
        #expect(faultHandler() == handlerBefore, "a session on a virtual terminal set the process's fault handler")
    }

    @Test func theDoctorsChecksNameEachPluginAndTheDataFolder() throws {
        let session = try HostSession(options: options, interactive: false)
        defer { session.shutdown() }
        let results = HealthChecks(session: session).all()
        let data = try #require(results.first { $0.subject.contains("data") }, "\(results.map(\.line))")
        #expect(data.level == .ok, "\(data.line)")
        #expect(results.contains { $0.line.contains("assist.clock") }, "\(results.map(\.line))")
        for result in results where result.level != .ok {
            #expect(result.fix != nil || result.level == .warning, "a problem comes with a fix: \(result.line)")
        }
    }

    @Test func theHostsOwnWordsAndTheFeaturesKeywordsAreListenedFor() throws {
        let session = try HostSession(options: options, interactive: false)
        defer { session.shutdown() }
        let router = session.services.interaction.router
        let launch = VoicePhrases.phrases(records: session.features.records, router: router, language: "en")
        #expect(launch.contains("what time is it"), "\(launch)")
        #expect(launch.contains("stop") && launch.contains("help"), "the host's own words")
        #expect(!launch.contains("h") && !launch.contains("prev"), "keys and abbreviations are not words")
        #expect(Set(launch).count == launch.count, "each phrase once")
        let sentences = VoicePhrases.phrases(
            records: session.features.records, router: router, language: "en", singleWords: false)
        #expect(!sentences.isEmpty && sentences.allSatisfy { $0.contains(" ") }, "\(sentences)")
        #expect(launch.contains("what can i say"))
    }

    /// Once a feature has the focus, the commands it registered are heard too ("where am i", "save text"),
    /// and not while another has it.
    @Test func aFocusedFeaturesOwnCommandsAreListenedFor() throws {
        let session = try HostSession(options: options, interactive: false)
        defer { session.shutdown() }
        var router = session.services.interaction.router
        try router.register(
            CommandBinding(
                id: "where", label: "Where am I", key: .character("w"), phrases: ["where am I"], scope: .focused,
                owner: "read-text"))
        try router.register(
            CommandBinding(
                id: "sync", label: "Sync", key: nil, phrases: ["sync photos now"], scope: .global,
                owner: "photo-sensor"))
        let records = session.features.records
        let focused = VoicePhrases.phrases(records: records, router: router, language: "en", focused: "read-text")
        let other = VoicePhrases.phrases(records: records, router: router, language: "en", focused: "survey")
        #expect(focused.contains("where am i") && !other.contains("where am i"), "\(focused)")
        #expect(focused.contains("sync photos now") && other.contains("sync photos now"), "a global command")
        // The survey's option numbers are heard as words, past nine too.
        for number in [3, 14] {
            try router.register(
                CommandBinding(
                    id: "choose-\(number)", label: "Choose option \(number)", key: nil, phrases: ["\(number)"],
                    scope: .focused, owner: "survey"))
        }
        let survey = VoicePhrases.phrases(records: records, router: router, language: "en", focused: "survey")
        #expect(survey.contains("three") && survey.contains("fourteen"), "\(survey)")
    }

    /// A plugin that registers a thousand commands: the first `featureLimit` are heard, the rest typed, and the
    /// host's own commands are heard as ever.
    @Test func aThousandCommandsAreCappedForVoice() throws {
        let session = try HostSession(options: options, interactive: false)
        defer { session.shutdown() }
        var router = session.services.interaction.router
        // Each a phrase of its own in letters ("command number baa"): digits are no words to hear.
        func letters(_ index: Int) -> String {
            (0..<3).map { String(UnicodeScalar(UInt8(97 + (index / [1, 26, 676][$0]) % 26))) }.joined()
        }
        for index in 0..<1_000 {
            try router.register(
                CommandBinding(
                    id: "c\(index)", label: "Command \(index)", key: nil, phrases: ["command number \(letters(index))"],
                    scope: .focused, owner: "flood"))
        }
        let heard = VoicePhrases.phrases(
            records: session.features.records, router: router, language: "en", focused: "flood")
        #expect(heard.filter { $0.hasPrefix("command number") }.count == VoicePhrases.featureLimit)
        #expect(heard.contains("stop") && heard.contains("what can i say"))
        #expect(VoicePhrases.overLimit("flood", router: router) == 1_000)
        #expect(VoicePhrases.overLimit("host", router: router) == nil)
    }

    @Test func aQuestionIsAnsweredByItsWordsNumbersAndLabels() throws {
        let session = try HostSession(options: options, interactive: false)
        defer { session.shutdown() }
        let choice = try #require(
            VoicePhrases.answers(
                to: .choice(prompt: "Which?", choices: ["S: status", "Diabetes", "Heart disease"], defaultIndex: nil),
                phrases: session.phrases))
        for word in ["status", "diabetes", "heart disease", "three", "number two", "next", "cancel", "repeat"] {
            #expect(choice.contains(word), "\(word) in \(choice)")
        }
        let confirm = try #require(
            VoicePhrases.answers(
                to: .confirm(prompt: "Sure?", defaultYes: false, timeoutMs: 0), phrases: session.phrases))
        #expect(confirm.contains("yes") && confirm.contains("no") && !confirm.contains("y"), "\(confirm)")
        #expect(VoicePhrases.answers(to: .text(prompt: "Name?", kind: .plain), phrases: session.phrases) == nil)
    }

    @Test func badOptionsAreOneLineWithTheUsageExitCode() throws {
        for bad in ["speakers", "wav:", "alsa:", "pulse:default"] {
            #expect {
                _ = try AudioTarget.parse(bad)
            } throws: { error in
                (error as? CLIFailure)?.exitCode == 64
                    && (error as? CLIFailure)?.message.hasPrefix("--audio-out takes") == true
            }
        }
        #expect(try AudioTarget.parse("null") == .null)
        var mic = options
        mic.mic = "usb-thing"
        #expect {
            _ = try mic.microphone()
        } throws: { error in
            (error as? CLIFailure)?.exitCode == 64 && (error as? CLIFailure)?.message.contains("--mic takes") == true
        }
        let config = folder.path("broken.toml")
        try Data("speech.rate = [\n".utf8).write(to: config)
        var broken = options
        broken.config = config.path
        #expect {
            _ = try HostSession(options: broken, interactive: false)
        } throws: { error in
            (error as? CLIFailure)?.message.hasPrefix("The config file cannot be read") == true
        }
        #expect(options.passThrough == ["--data-dir", folder.path("data").path, "--no-speech"])
    }

    @Test func theKioskUnitsAreWrittenWithTheirRulesAndPassSystemdsVerify() throws {
        let units = folder.path("units")
        try KioskInstaller(
            user: "root", tty: "tty3", config: nil, unitDir: units.path, executable: BuildProducts.assist
        ).install()
        let unit = try String(contentsOf: units.appendingPathComponent(KioskUnits.name), encoding: .utf8)
        for line in [
            "Type=notify", "WatchdogSec=10", "Restart=always", "StartLimitBurst=5",
            "OnFailure=assist-kiosk-failed@%i.service", "Conflicts=getty@%i.service", "TTYPath=/dev/%I",
            "SupplementaryGroups=audio video", "User=root", "RestartPreventExitStatus=\(KioskRun.stoppedByAdmin)",
        ] {
            #expect(unit.contains("\n\(line)\n"), "\(line) in the unit")
        }
        let mode =
            try FileManager.default.attributesOfItem(
                atPath: units.appendingPathComponent(KioskUnits.failedName).path)[.posixPermissions] as? Int
        #expect(mode == 0o644, "systemd's units are readable by all")
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else {
            Issue.record("systemd-analyze is missing: install the systemd package (scripts/install-deps.sh)")
            return
        }
        let verify = try ProcessRunner.run(
            analyze,
            ["verify", "--man=no"]
                + ["assist-kiosk@tty3.service", "assist-kiosk-failed@tty3.service"].map {
                    units.appendingPathComponent($0).path
                }, timeoutSeconds: 60)
        #expect(verify.status == 0 && verify.standardError.isEmpty, "\(verify.standardError)")
        // The check can fail: a unit with a mistyped key and type is named by it.
        try unit.replacingOccurrences(of: "Type=notify", with: "Type=notifyy\nWatchdogSecc=3").write(
            to: units.appendingPathComponent("broken@.service"), atomically: true, encoding: .utf8)
        let broken = try ProcessRunner.run(
            analyze, ["verify", "--man=no", units.appendingPathComponent("broken@tty3.service").path],
            timeoutSeconds: 60)
        #expect(broken.standardError.contains("Unknown key 'WatchdogSecc'"), "\(broken.standardError)")
        #expect(
            !FileManager.default.fileExists(atPath: units.appendingPathComponent(KioskUnits.viewName).path),
            "no view unit without view = true")
    }

    /// `[kiosk] view = true`: a third unit shows the large print view in cage on a terminal of its own.
    @Test func aKioskWithTheViewGetsItsViewUnit() throws {
        let units = folder.path("view-units")
        let config = folder.path("kiosk-view.toml")
        try "[kiosk]\nview = true\n".write(to: config, atomically: true, encoding: .utf8)
        var installer = KioskInstaller(
            user: "root", tty: "tty3", config: config.path, unitDir: units.path, executable: BuildProducts.assist)
        installer.viewTTY = "tty8"
        try installer.install()
        let unit = try String(contentsOf: units.appendingPathComponent(KioskUnits.viewName), encoding: .utf8)
        for line in [
            "ExecStart=\(BuildProducts.assist) kiosk view --config \(config.standardizedFileURL.path)", "PAMName=login",
            "TTYPath=/dev/%I", "Restart=always", "RestartPreventExitStatus=78", "DefaultInstance=tty7",
        ] {
            #expect(unit.contains("\n\(line)\n"), "\(line) in the unit")
        }
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else {
            Issue.record("systemd-analyze is missing: install the systemd package (scripts/install-deps.sh)")
            return
        }
        let verify = try ProcessRunner.run(
            analyze, ["verify", "--man=no", units.appendingPathComponent("assist-kiosk-view@tty8.service").path],
            timeoutSeconds: 60)
        #expect(verify.status == 0 && verify.standardError.isEmpty, "\(verify.standardError)")
    }
}

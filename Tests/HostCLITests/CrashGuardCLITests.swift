import Foundation
import HostTesting
import Testing

/// A plugin that dereferences NULL in `start` takes an in-process host down with it (the admin put it in
/// process with `plugins.in-process`; by default a third-party plugin runs in a helper process, see
/// HelperProcessTests). What the next start does about it, through the real shell: it says
/// which feature was open, offers safe mode (yes hides the plugin for that session), and a second crash
/// within a day turns the plugin off until `assist plugins reset`.
@Suite("A plugin that crashes the host", .serialized)
struct CrashGuardCLITests {
    let data: TemporaryDirectory
    let plugins: TemporaryDirectory

    init() throws {
        data = try TemporaryDirectory("assist-crash-data")
        plugins = try TemporaryDirectory("assist-crash-plugins")
        try CPluginBuilder(root: plugins.url).build(
            folder: "crash", defines: ["START_CRASHES", #"PLUGIN_ID="org.example.crash""#],
            manifest: CPluginBuilder.manifest(id: "org.example.crash"))
        try CPluginBuilder(root: plugins.url).build(
            folder: "stay", defines: [#"PLUGIN_ID="org.example.stay""#],
            manifest: CPluginBuilder.manifest(id: "org.example.stay"))
        // A third-party plugin runs in a helper process unless the admin says otherwise: this is what an
        // in-process crash does.
        let config = data.url.appendingPathComponent("assist")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try #"plugins.in-process = ["org.example.crash", "org.example.stay"]"#.write(
            to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }

    func shell(_ input: String) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist,
            ["shell", "--no-speech", "--data-dir", data.url.path, "--plugin-dir", plugins.url.path], input: input,
            environment: ["XDG_CONFIG_HOME": data.url.path])
    }

    func assist(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist, arguments + ["--data-dir", data.url.path, "--plugin-dir", plugins.url.path],
            environment: ["XDG_CONFIG_HOME": data.url.path])
    }

    /// The menu's number for the crashing plugin.
    func number(in lines: [String]) -> String? {
        lines.first { $0.hasSuffix(". Test org.example.crash") }.map { String($0.prefix { $0 != "." }) }
    }

    @Test func theNextStartSaysWhatCrashedOffersSafeModeAndASecondCrashTurnsItOff() throws {
        let menu = try shell("")
        let choice = try #require(number(in: menu.lines), "\(menu.lines)")
        let crashed = try shell(choice + "\n")
        #expect(crashed.status != 0, "the in-process host goes down with the plugin")
        #expect(crashed.lines.contains("Starting Test org.example.crash."))

        let next = try shell("y\n")
        #expect(next.lines.first == "Assist stopped unexpectedly last time while Test org.example.crash was open.")
        #expect(next.lines.contains("Start in safe mode, with only Assist's own features? Y or N."))
        #expect(next.lines.contains("Safe mode: only Assist's own features are offered until Assist starts again."))
        #expect(number(in: next.lines) == nil, "not offered in safe mode: \(next.lines)")
        #expect(next.status == 0)

        let again = try shell(try #require(number(in: try shell("").lines)) + "\n")
        #expect(again.status != 0)
        let after = try shell("")
        #expect(
            after.lines.first
                == "Assist stopped unexpectedly while Test org.example.crash was open, again. Test org.example.crash is turned off; the command assist plugins reset org.example.crash turns it on again.",
            "\(after.lines)")
        #expect(number(in: after.lines) == nil)
        let listed = try assist(["plugins", "list"])
        #expect(
            listed.lines.contains {
                $0.hasPrefix(
                    "org.example.crash 1.0.0, Test org.example.crash, disabled: it stopped Assist unexpectedly 2 times")
            }, "\(listed.lines)")
        // Issue 38: no warning about it before every other command.
        #expect(!listed.standardError.contains("skipped org.example.crash"), "\(listed.standardError)")
        let run = try assist(["run", "--no-speech", "org.example.crash"])
        #expect(run.status != 0)
        #expect((run.standardOutput + run.standardError).contains("plugins reset org.example.crash"))
        #expect(
            try assist(["plugins", "reset", "org.example.crash"]).lines == ["org.example.crash is turned on again."])
        #expect(number(in: try shell("").lines) != nil, "offered again")
        // A clean run leaves no mark behind.
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: data.path("sessions").path)) ?? []
        #expect(sessions.isEmpty, "\(sessions)")
    }

    /// `assist run` of the in-process plugin that stays, on a terminal of its own (signals at their defaults, as
    /// a login shell leaves them), ended by `signal` once its feature has the focus: its exit status, 128 + the
    /// signal that ended it, or nil when it did not end.
    func runEndedBy(_ signal: Int32) throws -> Int32? {
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "run", "--no-speech", "--data-dir", data.url.path, "--plugin-dir", plugins.url.path,
                "org.example.stay", "--stay",
            ], environment: ["XDG_CONFIG_HOME": data.url.path])
        let mark = data.path("sessions/\(screen.processIdentifier).json")
        let deadline = Date().addingTimeInterval(15 * ProcessRunner.timeScale)
        func focused() -> Bool {
            (try? String(contentsOf: mark, encoding: .utf8))?.contains("org.example.stay") ?? false
        }
        while Date() < deadline, !focused() { Thread.sleep(forTimeInterval: 0.05) }
        kill(screen.processIdentifier, signal)
        return screen.waitForExit()
    }

    /// Only a fault is a crash (issue 38): killed twice (kill -9, a power cut), its output pipe closed
    /// (SIGPIPE) or its terminal closed (SIGHUP, a clean end), a session is recovered and blamed on nobody, and
    /// the next start says nothing of a crash.
    @Test func aSessionKilledOrCutOffIsNotACrash() throws {
        for signal in [SIGKILL, SIGKILL, SIGPIPE] {
            let status = try runEndedBy(signal)
            #expect(status == 128 + signal, "ended by signal \(signal): \(status.map(String.init) ?? "still running")")
        }
        let hangUp = try runEndedBy(SIGHUP)
        #expect(hangUp == 0, "the terminal closed ends the session cleanly: \(hangUp.map(String.init) ?? "running")")
        let next = try shell("")
        #expect(!next.lines.contains { $0.contains("stopped unexpectedly") }, "\(next.lines)")
        #expect(next.lines.contains { $0.hasSuffix(". Test org.example.stay") }, "still offered: \(next.lines)")
        #expect(!FileManager.default.fileExists(atPath: data.path("crashes.jsonl").path), "nothing recorded")
        let listed = try assist(["plugins", "list"])
        #expect(!listed.lines.contains { $0.contains("disabled") }, "\(listed.lines)")
        // The marks of the sessions that did not end cleanly were tidied by that start.
        let sessions = (try? FileManager.default.contentsOfDirectory(atPath: data.path("sessions").path)) ?? []
        #expect(sessions.isEmpty, "\(sessions)")
    }
}

import Foundation
import HostTesting
import Testing

/// Third-party plugins run in a helper process of their own (issue 17). Real plugins, built here from
/// Tests/Fixtures/plugins/misbehave_plugin.c, crash, hang, exit, abort, break the protocol and fork in each
/// entry point; the real `assist` survives each one, says "<name> stopped unexpectedly and was closed.",
/// records how, and leaves the plugin's data consistent.
@Suite("Plugins in helper processes", .serialized)
struct HelperProcessTests {
    let data: TemporaryDirectory
    let plugins: TemporaryDirectory

    init() throws {
        data = try TemporaryDirectory("assist-helper-data")
        plugins = try TemporaryDirectory("assist-helper-plugins")
        // A hung plugin is ended after 1 s instead of 5, to keep the suite short (4 s where programs are slowed:
        // a sanitized helper takes longer than 1 s to start).
        let config = data.url.appendingPathComponent("assist")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "plugins.helper-timeout-ms = \(Self.limit)\n".write(
            to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }

    /// Builds the misbehaving plugin with `define` as `org.example.<name>`; returns its id.
    @discardableResult
    func build(_ define: String, name: String, extra: [String] = [], services: [String] = []) throws -> String {
        let id = "org.example.\(name)"
        try CPluginBuilder(root: plugins.url).build(
            folder: name, defines: [define, #"PLUGIN_ID="\#(id)""#] + extra,
            manifest: CPluginBuilder.manifest(
                id: id,
                extra: [
                    "name": "Misbehave \(name)",
                    "services": [
                        "required": ["assist.dialog/1", "assist.storage/1", "assist.clock/1"] + services
                    ],
                    // Those that subscribe to frames ask for the camera.
                    "devices": define.contains("FRAME") ? ["camera"] : [String](),
                ]),
            source: "misbehave_plugin.c")
        return id
    }

    func assist(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist,
            arguments + ["--no-speech", "--data-dir", data.url.path, "--plugin-dir", plugins.url.path], input: input,
            environment: ["XDG_CONFIG_HOME": data.url.path], timeoutSeconds: 60)
    }

    /// The crashes recorded for `id` (`<data>/crashes.jsonl`), as their "how".
    func recorded(_ id: String) throws -> [String] {
        let text = (try? String(contentsOf: data.url.appendingPathComponent("crashes.jsonl"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["plugin"] as? String == id
            else { return nil }
            return object["how"] as? String
        }
    }

    /// The helpers' time limit here, in milliseconds.
    static let limit = Int(1000 * ProcessRunner.timeScale)

    /// Each misbehaviour and how its end is described. A helper that closed its own socket is found either
    /// by the call's time limit or, where the limit is longer than the ping's 2 s (the sanitizer lanes), by
    /// its own reply to the ping failing on the closed socket, which ends it with status 0, or, when it is
    /// still running a second after the host saw its socket close (a ThreadSanitizer build's slow exit), ended
    /// by the host, which says so and never calls its own SIGKILL a crash.
    static let misbehaviours: [(define: String, how: [String])] = [
        ("CRASH_IN_INIT", ["crashed in init (SIGSEGV)"]),
        ("CRASH_IN_CREATE", ["crashed in create (SIGSEGV)"]),
        ("CRASH_IN_START", ["crashed in start (SIGSEGV)"]),
        ("CRASH_IN_FRAME", ["crashed in on_frame (SIGSEGV)"]),
        ("CRASH_ON_ITS_OWN", ["crashed in a timer callback (SIGSEGV)"]),
        ("EXIT_IN_START", ["exited with status 3 in start"]),
        ("ABORT_IN_START", ["crashed in start (SIGABRT)"]),
        ("HANG_IN_START", ["did not answer within \(limit) ms in start"]),
        ("GARBAGE_IN_START", ["sent something that is not the helper protocol in start"]),
        ("HUGE_IN_START", ["sent a message over 64 MB in start"]),
        (
            "CLOSE_IN_START",
            [
                "did not answer within \(limit) ms in start", "exited with status 0 in start",
                "closed its connection in start and was ended",
            ]
        ),
    ]

    /// The misbehaviours that happen once the feature runs (after its start): the feature is started again
    /// once, 2 s later, with the same words, and the second crash turns it off.
    static let whileRunning: Set<String> = ["CRASH_IN_FRAME", "CRASH_ON_ITS_OWN"]

    @Test(arguments: misbehaviours.map(\.define))
    func theHostSurvivesSaysItAndRecordsHow(_ define: String) throws {
        let hows = try #require(Self.misbehaviours.first { $0.define == define }?.how)
        let name = define.lowercased().replacingOccurrences(of: "_", with: "-")
        let id = try build(define, name: name, services: ["assist.camera/1"])
        let run = try assist(["run", "--camera", "pattern", id])
        #expect(run.status == 1, "the host ends on its own, as after any failed feature: \(run.standardError)")
        #expect(hows.contains { run.standardError.contains("its helper process \($0)") }, "\(run.standardError)")
        let entries = try recorded(id)
        #expect(entries.allSatisfy { hows.contains($0) }, "\(entries)")
        #expect(!run.standardError.contains("Fatal error"), "the host itself never crashes")
        guard Self.whileRunning.contains(define) else {
            // Ended before it ran: starting it again would end the same way.
            #expect(run.lines.contains("Misbehave \(name) stopped unexpectedly and was closed."), "\(run.lines)")
            #expect(entries.count == 1, "\(entries)")
            return
        }
        #expect(
            run.lines == [
                "Misbehave started.", "Misbehave \(name) stopped unexpectedly; starting it again.",
                "Misbehave started.",
                "Misbehave \(name) stopped unexpectedly 2 times in 10 minutes and is turned off; the command assist plugins reset \(id) turns it on again.",
            ], "\(run.lines)")
        #expect(entries.count == 2, "\(entries)")
    }

    @Test func aCrashInACommandStartsTheFeatureAgainOnceAndASecondTurnsItOff() throws {
        let command = try build("CRASH_IN_COMMAND", name: "command")
        let stop = try build("CRASH_IN_STOP", name: "stop")
        let destroy = try build("CRASH_IN_DESTROY", name: "destroy")
        let menu = try assist(["shell"])
        func number(_ name: String) throws -> String {
            let line = try #require(menu.lines.first { $0.hasSuffix(". \(name)") }, "\(menu.lines)")
            return String(line.prefix { $0 != "." })
        }
        // Started, then "next" crashes it: said, and 2 s later it is started again by itself with the same
        // words; "next" crashes it again, and it is turned off with the menu back.
        let count: @Sendable (String, String) -> Int = { text, line in
            text.components(separatedBy: line + "\n").count - 1
        }
        let (output, ended) = try ProcessRunner.typing(
            BuildProducts.assist,
            ["shell", "--no-speech", "--data-dir", data.url.path, "--plugin-dir", plugins.url.path],
            lines: [
                .init(try number("Misbehave command"), after: 20, once: { $0.contains("Choose a feature.") }),
                .init("next", after: 20, once: { count($0, "Misbehave started.") >= 1 }),
                .init("next", after: 20, once: { count($0, "Misbehave started.") >= 2 }),
                .init(try number("Quit"), after: 20, once: { count($0, "Choose a feature.") >= 2 }),
            ], environment: ["XDG_CONFIG_HOME": data.url.path])
        #expect(ended)
        let shell = (lines: output.split(separator: "\n").map(String.init), status: Int32(0))
        let said = shell.lines.filter { $0.hasPrefix("Misbehave command stopped unexpectedly") }
        #expect(
            said == [
                "Misbehave command stopped unexpectedly; starting it again.",
                "Misbehave command stopped unexpectedly 2 times in 10 minutes and is turned off; the command assist plugins reset \(command) turns it on again.",
            ], "\(shell.lines)")
        #expect(
            shell.lines.contains { $0.hasSuffix(". Misbehave command, turned off after it stopped unexpectedly") },
            "the menu says so")
        #expect(try recorded(command) == Array(repeating: "crashed in on_command (SIGSEGV)", count: 2))

        let list = try assist(["plugins", "list"])
        let line = try #require(list.lines.first { $0.hasPrefix(command + " ") })
        #expect(line.contains("disabled") && line.contains("stopped unexpectedly 2 times"), "\(line)")
        #expect(try assist(["plugins", "reset", command]).status == 0)
        let after = try #require(try assist(["plugins", "list"]).lines.first { $0.hasPrefix(command + " ") })
        #expect(after.contains("available"), "\(after)")

        // Stopping with "q" crashes the other one in stop: said, recorded, and the shell goes on.
        let stopping = try assist(["shell"], input: "\(try number("Misbehave stop"))\nq\n")
        #expect(stopping.lines.contains("Misbehave stop stopped unexpectedly and was closed."), "\(stopping.lines)")
        #expect(try recorded(stop) == ["crashed in stop (SIGSEGV)"])
        #expect(stopping.status == 0)
        let destroying = try assist(["shell"], input: "\(try number("Misbehave destroy"))\nq\n")
        #expect(
            destroying.lines.contains("Misbehave destroy stopped unexpectedly and was closed."), "\(destroying.lines)")
        #expect(try recorded(destroy) == ["crashed in destroy (SIGSEGV)"])
        #expect(destroying.status == 0)
    }

    /// A plugin turned off for its crashes is on again once its library is another file (an update, a rebuild):
    /// the entry names the file it was made for, and a new one starts with no crashes counted.
    @Test func anUpdatedLibraryIsNoLongerTurnedOff() throws {
        let id = try build("CRASH_ON_ITS_OWN", name: "updated", services: ["assist.camera/1"])
        let crashed = try assist(["run", id])
        #expect(crashed.lines.last?.contains("is turned off") == true, "\(crashed.lines)")
        let off = try #require(try assist(["plugins", "list"]).lines.first { $0.hasPrefix(id + " ") })
        #expect(off.contains("disabled"), "\(off)")
        #expect(try assist(["run", id]).status == 1, "still off while the library is the same file")

        try build("NONE", name: "updated", services: ["assist.camera/1"])
        let on = try #require(try assist(["plugins", "list"]).lines.first { $0.hasPrefix(id + " ") })
        #expect(on.contains("available"), "\(on)")
        #expect(try recorded(id).isEmpty, "its crashes went with the old file")
        let entries = try String(contentsOf: data.url.appendingPathComponent("disabled-plugins.json"), encoding: .utf8)
        #expect(!entries.contains(id), "\(entries)")
    }

    @Test func whatItCommittedStaysAndWhatItLeftHalfDoneIsRolledBack() throws {
        let id = try build("HALF_WRITTEN", name: "notes")
        let crashed = try assist(["run", id])
        #expect(crashed.lines.contains("Misbehave notes stopped unexpectedly and was closed."), "\(crashed.lines)")
        // The same plugin, rebuilt to read its table back.
        try build("REPORT_ROWS", name: "notes")
        let read = try assist(["run", id])
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.lines.filter { $0.hasPrefix("Row: ") } == ["Row: kept."], "\(read.lines)")
    }

    @Test func inItsSandboxItCannotFork() throws {
        let pidFile = data.url.appendingPathComponent("child.pid")
        let id = try build("FORK_IN_START", name: "fork", extra: [#"PID_FILE="\#(pidFile.path)""#])
        // Its start takes 200 ms and more on a loaded machine: a time limit that is no part of this test's
        // question (a run of CI's took it past 1 s, "did not answer" instead of the crash).
        let patient = data.url.appendingPathComponent("patient.toml")
        try "plugins.helper-timeout-ms = 20000\n".write(to: patient, atomically: true, encoding: .utf8)
        let run = try assist(["run", "--config", patient.path, id])
        #expect(run.standardError.contains("its helper process crashed in start (SIGSEGV)"), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: pidFile.path), "a child ran")
    }

    /// Without the sandbox (a kernel that has none, or `plugins.sandbox = false`), what a plugin forks still
    /// goes with its helper's process group.
    @Test func whatItForkedEndsWithIt() throws {
        let config = data.url.appendingPathComponent("assist/config.toml")
        let settings = try String(contentsOf: config, encoding: .utf8)
        try (settings + "plugins.sandbox = false\n").write(to: config, atomically: true, encoding: .utf8)
        let pidFile = data.url.appendingPathComponent("child.pid")
        let id = try build("FORK_IN_START", name: "fork", extra: [#"PID_FILE="\#(pidFile.path)""#])
        let run = try assist(["run", id])
        #expect(run.standardError.contains("its helper process crashed in start (SIGSEGV)"), "\(run.standardError)")
        let text = try String(contentsOf: pidFile, encoding: .utf8)
        let child = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or a zombie waiting for init to reap it (what a container's init may never do): not running.
        let stat = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)) ?? ""
        let state = stat.split(separator: ")").last?.split(separator: " ").first ?? "gone"
        #expect(state == "gone" || state == "Z", "the forked child \(child) was ended with its helper: \(state)")
    }

    @Test func aCallFromTheWrongThreadIsServedThereAndThePluginGoesOn() throws {
        let id = try build("WRONG_THREAD", name: "thread")
        let menu = try assist(["shell"]).lines
        let line = try #require(menu.first { $0.hasSuffix(". Misbehave thread") }, "\(menu)")
        let shell = try assist(["shell"], input: String(line.prefix { $0 != "." }) + "\n")
        #expect(shell.lines.contains("Said from the wrong thread."), "\(shell.lines)")
        #expect(shell.lines.contains("Still here."), "\(shell.lines)")
        #expect(shell.status == 0)
        #expect(try recorded(id).isEmpty)
    }

    @Test func framesItRetainsAndNeverReleasesAreGivenBackWhenItStops() throws {
        let id = try build("LEAK_FRAMES", name: "frames", services: ["assist.camera/1"])
        let run = try assist(["run", "--camera", "pattern", id])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.lines.contains("Holding 4 frames, 26 refused."), "the budget of 4, across processes: \(run.lines)")
        #expect(run.standardError.contains("plugin-misbehaving: camera: 4 retained frame(s) were never released"))
        #expect(try recorded(id).isEmpty)
        // Again: nothing it held the first time is still held.
        #expect(try assist(["run", "--camera", "pattern", id]).lines.contains("Holding 4 frames, 26 refused."))
    }

    @Test func aThreadThatKeepsCallingAfterStopEndsWithItsHelper() throws {
        let id = try build("LINGER_AFTER_STOP", name: "linger")
        let menu = try assist(["shell"]).lines
        let line = try #require(menu.first { $0.hasSuffix(". Misbehave linger") }, "\(menu)")
        let choose = String(line.prefix { $0 != "." })
        let after = Box()
        let (output, ended) = try ProcessRunner.typing(
            BuildProducts.assist,
            ["shell", "--no-speech", "--data-dir", data.url.path, "--plugin-dir", plugins.url.path],
            lines: [
                .init(choose, after: 20, once: { $0.contains("Choose a feature.") }),
                .init("q", after: 20, once: { $0.contains("Misbehave started.") }),
                // The menu is back: the helper, and the thread it left running, are gone within a second.
                .init(
                    "", after: 20, once: { $0.components(separatedBy: "Choose a feature.").count >= 3 },
                    then: {
                        let deadline = Date().addingTimeInterval(2 * ProcessRunner.timeScale)
                        while !helpers().isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
                        after.pids = helpers()
                    }),
            ], environment: ["XDG_CONFIG_HOME": data.url.path])
        #expect(ended)
        #expect(after.pids.isEmpty, "helpers left running: \(after.pids)")
        let calls = output.components(separatedBy: "Still running after stop.\n").count - 1
        #expect(calls <= 3, "its calls after stop end with its helper: \(calls)")
        #expect(try recorded(id).isEmpty, "leaving is not a crash")
    }

    /// The helpers started for this suite's data folder (their environment names it).
    func helpers() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap(Int32.init).filter { pid in
            let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            // Its sandbox names its data folder, under this test's.
            return command.range(of: Data("_plugin-helper".utf8)) != nil
                && command.range(of: Data("\0--write\0\(data.url.path)/".utf8)) != nil
        }
    }

    @Test func aHelperThatStopsAnsweringWhileIdleIsEndedByThePing() throws {
        let id = try build("NONE", name: "idle")
        let menu = try assist(["shell"]).lines
        let line = try #require(menu.first { $0.hasSuffix(". Misbehave idle") }, "\(menu)")
        let stopped = Box()
        let (output, ended) = try ProcessRunner.typing(
            BuildProducts.assist,
            ["shell", "--no-speech", "--data-dir", data.url.path, "--plugin-dir", plugins.url.path],
            lines: [
                .init(String(line.prefix { $0 != "." }), after: 20, once: { $0.contains("Choose a feature.") }),
                // Frozen once it has started and is waiting for the user: no call of the host's is open.
                .init(
                    "", after: 20, once: { $0.contains("Misbehave started.") },
                    then: { stopped.pids = helpers().map { kill($0, SIGSTOP) == 0 ? $0 : -1 } }),
                // Ended by the ping, then started again by itself, in a new helper.
                .init(
                    "", after: 30,
                    once: { $0.components(separatedBy: "Misbehave started.").count == 3 }),
            ], environment: ["XDG_CONFIG_HOME": data.url.path])
        #expect(stopped.pids.count == 1 && stopped.pids.allSatisfy { $0 > 0 }, "one helper frozen: \(stopped.pids)")
        #expect(output.contains("Misbehave idle stopped unexpectedly; starting it again.\n"), "\(output)")
        #expect(ended)
        #expect(try recorded(id) == ["did not answer within \(Self.limit) ms in a ping"])
        #expect(helpers().isEmpty, "the frozen helper was killed")
    }
}

private final class Box: @unchecked Sendable {  // because: written by the typing thread, read after it ends
    var pids: [Int32] = []
}

import AssistApp
import AssistCore
import Foundation
import Interaction
import Runtime

/// The app driven in process, as `assist run` runs it but without a process: the session gets a virtual
/// terminal (what `input` holds is typed into a pipe, then the pipe is closed; lines are kept in memory), its
/// own options and environment, and no signals. What it printed comes back as a `ProcessResult`, standard
/// output and standard error apart, with the exit status `assist` would have ended with. What a plugin writes
/// to the process's own standard error (read-text's status lines under `--transcript`, a library's noise) is not
/// in it: tests of that, of a terminal, of signals and of helper processes spawn `assist` (`HostCLITests`).
package enum InProcessApp {
    /// Runs `assist run …` in process: `arguments` starts with "run", then the feature's id and its own
    /// arguments, with the host's options the tests use (`--no-speech`, `--verbose`, `--audio-out`, `--config`,
    /// `--lang`, `--data-dir`, `--share-dir`, `--camera`, `--camera-fps`, `--mic`, `--plugin-dir`) anywhere before a `--`, as
    /// `assist` takes them.
    package static func run(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil, timeoutSeconds: Double = 120
    ) throws -> ProcessResult {
        guard arguments.first == "run" else { throw Misuse(text: "not a run: \(arguments)") }
        var (options, rest) = try hostOptions(Array(arguments.dropFirst()), environment: environment)
        guard !rest.isEmpty else { throw Misuse(text: "no feature in \(arguments)") }
        let id = rest.removeFirst()
        return try run(
            id, rest, options: options, environment: environment, input: input, timeoutSeconds: timeoutSeconds)
    }

    /// Runs `assist listen …` in process: `arguments` starts with "listen", then its own options (`--json`,
    /// `--no-score`, `--window`, `--phrase`, `--reference`) and the host's. Ends at the end of a WAV input, or
    /// after `timeoutSeconds` as Ctrl+C ends it.
    package static func listen(
        _ arguments: [String], environment: [String: String] = [:], timeoutSeconds: Double = 120
    ) throws -> ProcessResult {
        guard arguments.first == "listen" else { throw Misuse(text: "not a listen: \(arguments)") }
        let (options, rest) = try hostOptions(Array(arguments.dropFirst()), environment: environment)
        var json = false
        var window = false
        var scores = true
        var phrases: [String] = []
        var reference: String?
        var echoPath: String?
        var words = Words(all: rest)
        while let word = words.current {
            switch word {
            case "--json": json = true
            case "--window": window = true
            case "--no-score": scores = false
            case "--phrase": phrases.append(try words.value())
            case "--reference": reference = try words.value()
            case "--echo-path": echoPath = try words.value()
            case let other: throw Misuse(text: "\(other) is not an option of listen InProcessApp knows")
            }
            words.next()
        }
        return try session(environment: environment, input: nil, timeoutSeconds: timeoutSeconds) {
            environment, terminal in
            try Listening.run(
                options: options, json: json, window: window, phrases: phrases, reference: reference,
                echoPath: echoPath, scores: scores, environment: environment, terminal: terminal)
        }
    }

    /// Runs `assist doctor …` in process: `arguments` starts with "doctor", then the host's options.
    package static func doctor(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        guard arguments.first == "doctor" else { throw Misuse(text: "not a doctor: \(arguments)") }
        let (options, rest) = try hostOptions(Array(arguments.dropFirst()), environment: environment)
        guard rest.isEmpty else { throw Misuse(text: "\(rest) are not options of doctor InProcessApp knows") }
        return try session(environment: environment, input: nil, timeoutSeconds: 120) { environment, terminal in
            try Doctor.run(options, environment: environment, terminal: terminal)
        }
    }

    /// Runs `assist events …` in process: `arguments` starts with "events", then `--prefix` and `--last` (not
    /// `--follow`) and the host's options.
    package static func events(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        guard arguments.first == "events" else { throw Misuse(text: "not events: \(arguments)") }
        let (options, rest) = try hostOptions(Array(arguments.dropFirst()), environment: environment)
        var prefix = ""
        var last = 20
        var words = Words(all: rest)
        while let word = words.current {
            switch word {
            case "--prefix": prefix = try words.value()
            case "--last": last = Int(try words.value()) ?? last
            case let other: throw Misuse(text: "\(other) is not an option of events InProcessApp knows")
            }
            words.next()
        }
        return try session(environment: environment, input: nil, timeoutSeconds: 60) { environment, terminal in
            try EventsPrinting.run(
                options, follow: false, prefix: prefix, last: last, environment: environment, terminal: terminal)
        }
    }

    /// Runs `assist shell …` or `assist run …` in process, typing `lines` as `ProcessRunner.typing` types them
    /// into a spawned `assist`: each after its pause, or as soon as what was printed satisfies it; then the input
    /// ends. What it printed to standard output, and whether it ended by itself within `timeoutSeconds` (times
    /// `ProcessRunner.timeScale`) after the last line; if not, its terminal hangs up, as a spawned one is killed.
    package static func typing(
        _ arguments: [String], lines: [ProcessRunner.TypedLine], before: (() throws -> Void)? = nil,
        environment: [String: String] = [:], timeoutSeconds: Double = 30
    ) throws -> (output: String, endedByItself: Bool) {
        let body = try body(for: arguments, environment: environment)
        let run = try typed(lines, before: before, environment: environment, timeoutSeconds: timeoutSeconds, body)
        return (run.result.standardOutput, run.endedByItself)
    }

    /// What `assist shell …` or `assist run …` (`arguments`) does, to run on a session's environment and terminal.
    static func body(for arguments: [String], environment: [String: String]) throws -> Body {
        let (options, rest) = try hostOptions(Array(arguments.dropFirst()), environment: environment)
        switch arguments.first {
        case "shell":
            var voice: String?
            var words = Words(all: rest)
            while let word = words.current {
                switch word {
                case "--voice": voice = try words.value()
                case let other: throw Misuse(text: "\(other) is not an option of shell InProcessApp knows")
                }
                words.next()
            }
            return { [options, voice] environment, terminal in
                try ShellRun.run(options, voice: voice, environment: environment, terminal: terminal)
            }
        case "run":
            guard !rest.isEmpty else { throw Misuse(text: "no feature in \(arguments)") }
            return feature(rest[0], Array(rest.dropFirst()), options: options)
        default:
            throw Misuse(text: "neither a shell nor a run: \(arguments)")
        }
    }

    /// The host's options in `arguments` (before a `--`), and the other arguments in order.
    private static func hostOptions(_ arguments: [String], environment: [String: String]) throws -> (
        HostOptions, [String]
    ) {
        var options = HostOptions(dataDir: environment["ASSIST_DATA_DIR"])
        // A third-party plugin runs in a helper process: the built `assist`, not this test process.
        options.helperExecutable = URL(fileURLWithPath: BuildProducts.assist)
        var rest: [String] = []
        var words = Words(all: arguments)
        while let word = words.current {
            switch word {
            case "--":
                // What follows is the feature's, as it is.
                return (options, rest + words.remaining)
            case "--no-speech": options.noSpeech = true
            case "--verbose": options.verbose = true
            case "--audio-out": options.audioOut = try words.value()
            case "--config": options.config = try words.value()
            case "--lang": options.lang = try words.value()
            case "--data-dir": options.dataDir = try words.value()
            case "--share-dir": options.shareDir = try words.value()
            case "--camera": options.camera = try words.value()
            case "--camera-fps": options.cameraFps = Double(try words.value())
            case "--mic": options.mic = try words.value()
            case "--plugin-dir": options.pluginDir.append(try words.value())
            case let other: rest.append(other)
            }
            words.next()
        }
        return (options, rest)
    }

    /// Command-line words read one at a time, an option's value taken with it.
    private struct Words {
        let all: [String]
        private var index = 0

        init(all: [String]) { self.all = all }

        /// The word at hand; nil after the last.
        var current: String? { index < all.count ? all[index] : nil }
        /// The word at hand and every one after it.
        var remaining: ArraySlice<String> { all[min(index, all.count)...] }

        mutating func next() { index += 1 }

        /// The value of the option at hand: the next word, taken.
        mutating func value() throws -> String {
            index += 1
            guard index < all.count else { throw Misuse(text: "\(all[index - 1]) without a value") }
            return all[index]
        }
    }

    /// A test that asks for what this driver does not do.
    package struct Misuse: Error, CustomStringConvertible {
        package var text: String
        package var description: String { text }
    }

    /// Runs feature `id` with `arguments`, as `assist run [options] ID ARGUMENTS` would; `environment` is laid
    /// over this process's for the session's folders and settings. After `timeoutSeconds` (times
    /// `ProcessRunner.timeScale`) the terminal hangs up, and the run ends as `assist` does on SIGHUP.
    package static func run(
        _ id: String, _ arguments: [String], options: HostOptions, environment: [String: String] = [:],
        input: String? = nil, timeoutSeconds: Double = 120
    ) throws -> ProcessResult {
        try session(
            environment: environment, input: input, timeoutSeconds: timeoutSeconds,
            feature(id, arguments, options: options))
    }

    /// What `assist run [options] ID ARGUMENTS` does, on the terminal and environment it is given.
    private static func feature(_ id: String, _ arguments: [String], options: HostOptions) -> Body {
        var options = options
        options.dataCommand = ["--json", "--csv", "--transcript"].contains { arguments.contains($0) }
        // After `--`, the arguments are the feature's as they are (the first `--` only marks where they start).
        var arguments = arguments
        if let separator = arguments.firstIndex(of: "--") { arguments.remove(at: separator) }
        return { [options, arguments] environment, terminal in
            try FeatureRun.run(options, id: id, arguments: arguments, environment: environment, terminal: terminal)
        }
    }

    /// A command of the app run on a session's environment and terminal.
    typealias Body = @Sendable ([String: String], SessionTerminal) throws -> Void

    /// Runs `body` with this process's environment with `environment` laid over it and a virtual terminal:
    /// `input` typed into it and then closed, a hang-up after `timeoutSeconds`; what it printed and the status
    /// `assist` would end with.
    private static func session(
        environment: [String: String], input: String?, timeoutSeconds: Double,
        _ body: ([String: String], SessionTerminal) throws -> Void
    ) throws -> ProcessResult {
        let virtual = try VirtualTerminal()
        if let input { virtual.type(input) }
        virtual.endInput()
        let timer = DispatchWorkItem { virtual.hangUp.hangUp() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds * ProcessRunner.timeScale, execute: timer)
        defer { timer.cancel() }
        let status = try exitStatus(errors: virtual.errors) { try body(merged(environment), virtual.terminal) }
        return virtual.result(status: status)
    }

    /// Runs `body` on a thread of its own (where its main loop runs) with a virtual terminal, while this thread
    /// calls `before` and types `lines` into it as `ProcessRunner.typing` does; then the input ends. When `body`
    /// has not returned `timeoutSeconds` (times `ProcessRunner.timeScale`) after that, the terminal hangs up and
    /// `body` is given 30 seconds more to end as on SIGHUP; `endedByItself` says whether it needed that. A step
    /// that throws (`before`, a line's `then`) ends the session the same way before the error goes on.
    private static func typed(
        _ lines: [ProcessRunner.TypedLine], before: (() throws -> Void)?, environment: [String: String],
        timeoutSeconds: Double, _ body: @escaping Body
    ) throws -> (result: ProcessResult, endedByItself: Bool) {
        let virtual = try VirtualTerminal()
        let (output, errors, terminal) = (virtual.output, virtual.errors, virtual.terminal)
        let environment = merged(environment)
        let ended = Locked<Result<Int32, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let outcome = Result { try exitStatus(errors: errors) { try body(environment, terminal) } }
            ended.withLock { $0 = outcome }
            done.signal()
        }
        thread.name = "in-process-session"
        thread.stackSize = 8 << 20
        thread.start()
        let running = { ended.withLock { $0 == nil } }
        do {
            try before?()
            for line in lines {
                if let once = line.once {
                    let deadline = Date().addingTimeInterval(line.pause)
                    while Date() < deadline, running(), !once(output.text) { Thread.sleep(forTimeInterval: 0.05) }
                } else {
                    Thread.sleep(forTimeInterval: line.pause)
                }
                guard running() else { break }
                virtual.type(line.line + "\n")
                try line.then?()
            }
        } catch {
            virtual.endInput()
            virtual.hangUp.hangUp()
            _ = done.wait(timeout: .now() + 30 * ProcessRunner.timeScale)
            throw error
        }
        virtual.endInput()
        var endedByItself = true
        if done.wait(timeout: .now() + timeoutSeconds * ProcessRunner.timeScale) == .timedOut {
            endedByItself = false
            virtual.hangUp.hangUp()
            guard done.wait(timeout: .now() + 30 * ProcessRunner.timeScale) == .success else {
                throw Misuse(text: "the session did not end when its terminal hung up; printed: \(output.text)")
            }
        }
        guard let outcome = ended.withLock({ $0 }) else { throw Misuse(text: "the session's end was not recorded") }
        return (virtual.result(status: try outcome.get()), endedByItself)
    }

    /// A session's virtual terminal: keys typed into a pipe, lines kept in memory, a hang-up.
    private struct VirtualTerminal {
        let output = KeptLines()
        let errors = KeptLines()
        let hangUp = TerminalHangUp()
        let terminal: SessionTerminal
        /// The pipe's write end, where keys are typed.
        private let keys: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
            // The read end stays open: the session's console thread may still be reading it after the run has
            // ended, and closing it under that thread made its read fail with a bad descriptor, which traps (once
            // in a whole run of the suite). The write end is closed (`endInput`), so that thread sees the end and
            // stops; one descriptor is left per run.
            keys = ends[1]
            terminal = SessionTerminal(input: ends[0], output: output, errors: errors, hangUp: hangUp)
        }

        func type(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(keys, $0.baseAddress, $0.count) }
        }

        /// No more keys: the session reads the end of its input.
        func endInput() { close(keys) }

        /// What the session printed, with the status `assist` would end with.
        func result(status: Int32) -> ProcessResult {
            ProcessResult(status: status, standardOutput: output.text, standardError: errors.text, signalled: false)
        }
    }

    /// This process's environment with `environment` laid over it.
    static func merged(_ environment: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }

    /// The status `assist` would end with after `body`: 0, or a failure's code (its message written to `errors`,
    /// as `assist` prints it).
    static func exitStatus(errors: any LineOutput, _ body: () throws -> Void) throws -> Int32 {
        do {
            try body()
            return 0
        } catch let failure as CLIFailure {
            errors.writeLine(PlainText.message(failure.message))
            return failure.exitCode
        } catch let exit as ExitStatus {
            return exit.code
        }
    }
}

/// Lines written by a session, kept in order. Any thread.
package final class KeptLines: LineOutput, @unchecked Sendable {  // because: `lines` is guarded by `lock`
    private let lock = NSLock()
    private var lines: [String] = []

    package init() {}

    /// As `StandardOutput` writes it: cleaned of control characters, but for a page's form feed.
    package func writeLine(_ line: String) {
        lock.withLock { lines.append(PlainText.printed(line)) }
    }
    package func writeRow(_ line: String) {
        lock.withLock { lines.append(PlainText.printed(line, keepingTabs: true)) }
    }

    /// Every line, each ended by a newline, as a program's output would read.
    package var text: String { lock.withLock { lines.map { $0 + "\n" }.joined() } }
}

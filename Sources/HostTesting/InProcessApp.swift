import AssistApp
import AssistCore
import Foundation
import Interaction

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
        var words = Words(all: rest)
        while let word = words.current {
            switch word {
            case "--json": json = true
            case "--window": window = true
            case "--no-score": scores = false
            case "--phrase": phrases.append(try words.value())
            case "--reference": reference = try words.value()
            case let other: throw Misuse(text: "\(other) is not an option of listen InProcessApp knows")
            }
            words.next()
        }
        return try session(environment: environment, input: nil, timeoutSeconds: timeoutSeconds) {
            environment, terminal in
            try Listening.run(
                options: options, json: json, window: window, phrases: phrases, reference: reference, scores: scores,
                environment: environment, terminal: terminal)
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
        var options = options
        options.dataCommand = ["--json", "--csv", "--transcript"].contains { arguments.contains($0) }
        // After `--`, the arguments are the feature's as they are (the first `--` only marks where they start).
        var arguments = arguments
        if let separator = arguments.firstIndex(of: "--") { arguments.remove(at: separator) }
        return try session(environment: environment, input: input, timeoutSeconds: timeoutSeconds) {
            environment, terminal in
            try FeatureRun.run(options, id: id, arguments: arguments, environment: environment, terminal: terminal)
        }
    }

    /// Runs `body` with this process's environment with `environment` laid over it and a virtual terminal:
    /// `input` typed into it and then closed, a hang-up after `timeoutSeconds`; what it printed and the status
    /// `assist` would end with.
    private static func session(
        environment: [String: String], input: String?, timeoutSeconds: Double,
        _ body: ([String: String], SessionTerminal) throws -> Void
    ) throws -> ProcessResult {
        let output = KeptLines()
        let errors = KeptLines()
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        // The read end stays open: the session's console thread may still be reading it after the run has
        // ended, and closing it under that thread made its read fail with a bad descriptor, which traps (once in
        // a whole run of the suite). The write end is closed below, so that thread sees the end and stops; one
        // descriptor is left per run.
        if let input {
            let bytes = Array(input.utf8)
            _ = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        }
        close(ends[1])
        let hangUp = TerminalHangUp()
        let terminal = SessionTerminal(input: ends[0], output: output, errors: errors, hangUp: hangUp)
        let timer = DispatchWorkItem { hangUp.hangUp() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeoutSeconds * ProcessRunner.timeScale, execute: timer)
        defer { timer.cancel() }
        var status: Int32 = 0
        do {
            try body(ProcessInfo.processInfo.environment.merging(environment) { _, new in new }, terminal)
        } catch let failure as CLIFailure {
            errors.writeLine(PlainText.message(failure.message))
            status = failure.exitCode
        } catch let exit as ExitStatus {
            status = exit.code
        }
        return ProcessResult(status: status, standardOutput: output.text, standardError: errors.text, signalled: false)
    }
}

/// Lines written by a session, kept in order. Any thread.
package final class KeptLines: LineOutput, @unchecked Sendable {  // because: `lines` is guarded by `lock`
    private let lock = NSLock()
    private var lines: [String] = []

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

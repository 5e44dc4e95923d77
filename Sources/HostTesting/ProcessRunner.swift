import CTestProcess
import Foundation

/// The result of running a program to completion.
package struct ProcessResult: Sendable {
    package var status: Int32
    package var standardOutput: String
    package var standardError: String
    /// True when the program was ended by a signal.
    package var signalled: Bool

    package init(status: Int32, standardOutput: String, standardError: String, signalled: Bool) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.signalled = signalled
    }

    /// Standard output's lines, without empty ones.
    package var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }

    /// `lines` without what read-text and find-object say once, at their first use on a data folder (the safety
    /// notice, and find-object's offer of the sound tour), for tests about what follows it.
    package var linesAfterNotice: [String] { lines.filter { !Self.safetyNotices.contains($0) } }

    /// Those first-use sentences in every language, from read-text's and find-object's phrase tables.
    package static let safetyNotices: Set<String> = {
        var found = Set<String>()
        for plugin in ["ReadText", "FindObject"] {
            let folder = BuildProducts.packageRoot.appendingPathComponent("Plugins/\(plugin)/share")
            for language in ["en", "ru", "zh", "es"] {
                let url = folder.appendingPathComponent("phrases.\(language).json")
                guard let data = try? Data(contentsOf: url),
                    let phrases = try? JSONSerialization.jsonObject(with: data) as? [String: String]
                else { continue }
                found.formUnion(["safety-notice", "sounds-offer"].compactMap { phrases[$0] })
            }
        }
        return found
    }()
}

/// Runs programs for tests: compilers, the built `assist` binary.
package enum ProcessRunner {
    /// `executable` with `arguments`, its environment this process's with `environment` laid over it.
    private static func program(_ executable: String, _ arguments: [String], environment: [String: String]?)
        -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        return process
    }

    /// True when this process ignores SIGPIPE, as every test process does from its start (CTestProcess): a write
    /// to a program that has ended returns EPIPE to the test instead of ending the whole test process silently.
    package static var ignoresBrokenPipes: Bool { assist_test_process_ignores_sigpipe() == 1 }

    /// Runs `executable` with `arguments`, feeding `input` on standard input; fails the test process only on
    /// a launch error. Kills the program after `timeoutSeconds`.
    package static func run(
        _ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil,
        timeoutSeconds: Double = 60
    ) throws -> ProcessResult {
        let process = program(executable, arguments, environment: environment)
        let output = Pipe()
        let error = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin
        try process.run()
        // A program that ends before it reads its input leaves the write EPIPE (SIGPIPE is ignored in the test
        // process: assist_test_process.h); what it printed is the result.
        if let input { try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        // Drain both pipes while waiting, so a chatty child never blocks on a full pipe.
        let collected = OutputCollector()
        let group = DispatchGroup()
        for (handle, isError) in [(output.fileHandleForReading, false), (error.fileHandleForReading, true)] {
            group.enter()
            DispatchQueue.global().async {
                let data = handle.readDataToEndOfFile()
                collected.store(data, isError: isError)
                group.leave()
            }
        }
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds * timeScale)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        let timedOut = process.isRunning
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        group.wait()
        // A child's sanitizer report or a kill for time would otherwise show only as a puzzling expectation:
        // the test log carries them, where scripts/memcheck.sh looks for reports.
        let report = collected.error
        if timedOut {
            FileHandle.standardError.write(
                Data("ProcessRunner: \(executable) \(arguments) killed after \(timeoutSeconds * timeScale) s\n".utf8))
        }
        if report.contains("WARNING: ThreadSanitizer") || report.contains("ERROR: AddressSanitizer") {
            FileHandle.standardError.write(Data("ProcessRunner: \(executable) \(arguments):\n\(report)\n".utf8))
        }
        return ProcessResult(
            status: process.terminationStatus, standardOutput: collected.output, standardError: collected.error,
            signalled: process.terminationReason == .uncaughtSignal
        )
    }

    /// One typed line for `typing`: written after `pause` seconds, then `then` runs (a file dropped, say).
    package struct TypedLine {
        package var line: String
        package var pause: Double
        /// When set, the line is typed as soon as what the program printed so far satisfies it (`pause` is
        /// then the longest wait), so a slow machine waits longer and a fast one no longer than needed.
        package var once: (@Sendable (String) -> Bool)?
        package var then: (() throws -> Void)?
        package init(
            _ line: String, after pause: Double, once: (@Sendable (String) -> Bool)? = nil,
            then: (() throws -> Void)? = nil
        ) {
            self.line = line
            self.pause = pause
            self.once = once
            self.then = then
        }
    }

    /// `line`, typed `wait` seconds after the program has printed `text` for the `count`th time, or after
    /// `atMost` seconds whatever it printed: a step that must not come before the program is ready for it,
    /// however slow the machine (a sanitizer's build).
    package static func when(
        _ text: String, count: Int = 1, thenWait wait: Double = 0, type line: String, atMost: Double = 15
    ) -> TypedLine {
        let seen = Collected<Date>()
        return TypedLine(
            line, after: atMost * timeScale,
            once: { printed in
                guard printed.components(separatedBy: text).count - 1 >= count else { return false }
                if seen.values.isEmpty { seen.append(Date()) }
                return Date().timeIntervalSince(seen.values[0]) >= wait
            })
    }

    /// Runs `executable` with `lines` typed at a person's pace (the shell or a plugin's menus reading them as
    /// they come), `before` first; closes standard input (and sends `stopSignal`, for a program that outlives
    /// its input, like the kiosk) and waits up to `timeoutSeconds` for the program to end on its own (it is
    /// killed after). Returns what it printed and whether it ended by itself.
    package static func typing(
        _ executable: String, _ arguments: [String], lines: [TypedLine], before: (() throws -> Void)? = nil,
        environment: [String: String]? = nil, timeoutSeconds: Double = 30, stopSignal: Int32? = nil
    ) throws -> (output: String, endedByItself: Bool) {
        let child = program(executable, arguments, environment: environment)
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        // Read as it comes, so a typed line can wait for what is printed.
        let collected = Collected<Data>()
        let drain = PipeDrain(output.fileHandleForReading) { collected.append($0) }
        let printed = { String(decoding: collected.values.reduce(Data(), +), as: UTF8.self) }
        try before?()
        for line in lines {
            if let once = line.once {
                let deadline = Date().addingTimeInterval(line.pause)
                while Date() < deadline, child.isRunning, !once(printed()) { Thread.sleep(forTimeInterval: 0.1) }
            } else {
                Thread.sleep(forTimeInterval: line.pause)
            }
            guard child.isRunning else { break }
            try? input.fileHandleForWriting.write(contentsOf: Data((line.line + "\n").utf8))
            try line.then?()
        }
        input.fileHandleForWriting.closeFile()
        if let stopSignal, child.isRunning { kill(child.processIdentifier, stopSignal) }
        let deadline = Date().addingTimeInterval(timeoutSeconds * timeScale)
        while child.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let ended = !child.isRunning
        if !ended { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
        drain.waitForEnd(seconds: 10)
        return (printed(), ended)
    }

    /// How much longer than usual programs may take: `ASSIST_TEST_TIME_SCALE` (scripts/memcheck.sh sets 4, as
    /// sanitizers slow every process 2–15 times and run them all at once on few cores).
    package static let timeScale: Double = {
        guard let text = ProcessInfo.processInfo.environment["ASSIST_TEST_TIME_SCALE"], let scale = Double(text),
            scale >= 1
        else { return 1 }
        return min(scale, 20)
    }()

    /// Searches PATH for `name`.
    package static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}

private final class OutputCollector: @unchecked Sendable {  // because: fields guarded by `lock`
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    func store(_ data: Data, isError: Bool) {
        lock.lock()
        if isError { err = data } else { out = data }
        lock.unlock()
    }

    var output: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: out, as: UTF8.self)
    }

    var error: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: err, as: UTF8.self)
    }
}

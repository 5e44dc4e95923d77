import Foundation

// The low-vision view driven from tests (docs/view.md): `assist … --view` as a person starts it, and its page
// in Debian's chromium through Playwright (`Tests/HostCLITests/view_browser.py`, in the environment
// `scripts/test-view.sh` makes). Used by the view's own suite and by the features' suites that show something
// on it.

/// `assist shell --view` on a pipe, speaking to no sound card at the pace of a real one.
public final class ViewedShell: @unchecked Sendable {  // because: `output` and `errors` are guarded by `lock`
    public let process = Process()
    public let input = Pipe()
    private let lock = NSLock()
    private var output = ""
    private var errors = ""
    /// Standard output's and error's readers (`PipeDrain`: a thread each, no dispatch source).
    private var drains: [PipeDrain] = []

    public init(_ arguments: [String], environment: [String: String], command: [String] = ["shell"]) throws {
        process.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        process.arguments = command + ["--view", "--audio-out", "null"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = input
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        drains = [
            PipeDrain(out.fileHandleForReading) { [weak self] chunk in
                let text = String(decoding: chunk, as: UTF8.self)
                self?.lock.withLock { self?.output += text }
            },
            PipeDrain(err.fileHandleForReading) { [weak self] chunk in
                let text = String(decoding: chunk, as: UTF8.self)
                self?.lock.withLock { self?.errors += text }
            },
        ]
    }

    /// A test that fails before `finish` or `interrupt` leaves no shell running: it is ended with its test
    /// (SIGTERM, which it answers by ending its helpers; SIGKILL after 5 s).
    deinit {
        guard process.isRunning else { return }
        process.terminate()
        if !ended(within: 5) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    public var standardOutput: String { lock.withLock { output } }
    public var standardError: String { lock.withLock { errors } }

    /// Waits up to `seconds` (scaled for the sanitizer lanes) for `found` to hold.
    public func wait(_ seconds: Double, until found: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds * ProcessRunner.timeScale)
        while Date() < deadline {
            if found() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return found()
    }

    /// The page's address, once printed after `View:`.
    public func address() -> String? {
        guard wait(30, until: { standardError.contains("View: http") }) else { return nil }
        return standardError.split(separator: "\n").first { $0.hasPrefix("View: ") }.map {
            String($0.dropFirst("View: ".count))
        }
    }

    public func type(_ line: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Sends Ctrl+C's signal and waits for the exit.
    public func interrupt() -> Int32 {
        process.interrupt()
        if !ended(within: 30 * ProcessRunner.timeScale) { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Closes the input (the terminal's end) and waits for a clean exit.
    public func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        if !ended(within: 30 * ProcessRunner.timeScale) { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Waits up to `seconds` for the shell to end; false when it still runs.
    private func ended(within seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return !process.isRunning
    }
}

/// The browser's half of a view test.
public enum ViewBrowser {
    /// What `view_browser.py SCENARIO` saw, as JSON.
    public static func browse(_ scenario: String, _ address: String, folder: URL) throws -> [String: Any] {
        let (python, script) = try tools()
        let result = try ProcessRunner.run(
            python, [script, scenario, address, folder.path], timeoutSeconds: 240)
        guard result.status == 0, let data = result.lines.last?.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw ViewTestSetupMissing(
                what: "view_browser.py \(scenario) failed: \(result.standardError.suffix(3_000))")
        }
        return object
    }

    /// The Python of `scripts/test-view.sh`'s environment and the scenarios' script; what is missing is thrown.
    static func tools() throws -> (python: String, script: String) {
        let python = BuildProducts.packageRoot.appendingPathComponent(".build/view-test/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ViewTestSetupMissing(
                what: "Playwright is not installed in .build/view-test: run scripts/test-view.sh")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw ViewTestSetupMissing(what: "Debian's chromium is not installed: run scripts/install-deps.sh")
        }
        return (python, BuildProducts.packageRoot.appendingPathComponent("Tests/HostCLITests/view_browser.py").path)
    }
}

/// A view scenario's browser started beside the test, which goes on meanwhile (stopping and starting Assist, or
/// starting what the page is to see once the scenario has written `page-open` in its folder).
public final class BrowserRun {
    public let process = Process()
    private let output = Pipe()
    private let folder: URL

    public init(_ scenario: String, _ address: String, folder: URL) throws {
        let (python, script) = try ViewBrowser.tools()
        self.folder = folder
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, scenario, address, folder.path]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit { if process.isRunning { process.terminate() } }

    /// Whether the page is open (the scenario wrote `page-open`), waiting up to `seconds` (scaled).
    public func pageOpened(within seconds: Double) -> Bool {
        let file = folder.appendingPathComponent("page-open").path
        let deadline = Date(timeIntervalSinceNow: seconds * ProcessRunner.timeScale)
        while Date() < deadline, process.isRunning || FileManager.default.fileExists(atPath: file) {
            if FileManager.default.fileExists(atPath: file) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return FileManager.default.fileExists(atPath: file)
    }

    /// What the scenario saw, once it has ended.
    public func result() throws -> [String: Any] {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last,
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw ViewTestSetupMissing(what: "the browser's scenario ended with no result") }
        return object
    }
}

/// A TCP socket listening on 127.0.0.1 at a port the kernel chose, closed when it goes.
public final class ListeningSocket {
    let descriptor: Int32
    public let port: Int

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 4) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw ViewTestSetupMissing(what: "cannot listen on 127.0.0.1") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

/// What a view test needs and this machine lacks, said with the command that provides it.
public struct ViewTestSetupMissing: Error, CustomStringConvertible {
    public var what: String
    public var description: String { what }
    public init(what: String) { self.what = what }
}

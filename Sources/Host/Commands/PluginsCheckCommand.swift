import ArgumentParser
import AssistCore
import Foundation
import PluginHost
import Voice

/// `assist plugins check PATH`: validates a plugin, then runs it. The library is first opened in a child
/// process with a deadline, so a crash in its code is a result, not an abort; then `PluginValidator` runs it
/// for real in a helper process, twice over, with time limits (`--no-run` skips that).
struct PluginsCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a plugin folder, manifest or library, then run it in a helper process.",
        discussion: """
            It starts the plugin with no arguments and with odd ones, sends every command, pauses, resumes, \
            stops and destroys it, twice, against Assist's services in a scratch folder. Each failure is one \
            line. Exit codes: 0 it passes; 1 it fails a check; 2 it crashed or hung.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A plugin folder, its manifest.json, or its library.")
    var path: String

    @Option(help: "Seconds the library may take to load and initialise, and each call may take when it runs.")
    var timeout: Double = 10

    @Flag(help: "Only load and initialise it; do not run it.")
    var noRun = false

    @Flag(help: "Print the result as one JSON object (for a third party's CI).")
    var json = false

    func run() throws {
        let (manifestURL, libraryDirectory) = try Self.locate(path)
        let record = PluginDiscovery.inspect(
            manifestURL: manifestURL, libraryDirectory: libraryDirectory, availableServices: HostServices.serviceIDs
        )
        guard record.isUsable else {
            throw CLIFailure(message: "\(record.id): \(record.state.rawValue): \(record.reason ?? "refused")")
        }
        let outcome = try ChildProbe.run(
            arguments: ["_probe", manifestURL.path, libraryDirectory.path] + global.passThrough, timeoutSeconds: timeout
        )
        var report = Report(id: record.id, passed: false, loaded: nil, steps: [], warnings: Self.voiceWarnings(record))
        switch outcome {
        case .passed(let line):
            report.loaded = line
            if !json {
                print(line)
                for warning in report.warnings { print(warning) }
            }
        case .failed(let line):
            if json { try Self.printJSON(report, failure: line) }
            throw CLIFailure(message: line)
        case .crashed(let line):
            if json { try Self.printJSON(report, failure: "crashed: \(line)") }
            throw CLIFailure(message: "\(record.id): crashed: \(line)", exitCode: 2)
        }
        guard !noRun else {
            report.passed = true
            if json { try Self.printJSON(report, failure: nil) }
            return
        }
        report.steps = try PluginValidator(
            manifest: manifestURL, libraryDirectory: libraryDirectory, timeoutSeconds: timeout
        ).run()
        let failed = report.steps.first { !$0.ok }
        report.passed = failed == nil
        if json {
            try Self.printJSON(report, failure: failed.map { "\($0.detail ?? "failed") in \($0.step)" })
        } else {
            for step in report.steps where step.ok && step.detail != nil {
                print("\(record.id): \(step.step): \(step.detail ?? "")")
            }
        }
        if let failed {
            throw CLIFailure(
                message: "\(record.id): fails at \(failed.step): \(failed.detail ?? "failed")", exitCode: 2)
        }
        if !json {
            print("\(record.id): ran in a helper process: \(report.steps.count) steps, no crash or hang.")
        }
    }

    /// What `--json` prints.
    struct Report: Encodable {
        var id: String
        var passed: Bool
        var loaded: String?
        var steps: [PluginValidator.Step]
        var warnings: [String]
        var failure: String?
    }

    static func printJSON(_ report: Report, failure: String?) throws {
        var report = report
        report.failure = failure
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        Swift.print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    /// A line for each of the plugin's keywords that voice cannot hear, naming the missing word (English, or
    /// a language whose model is installed). Warnings: typed phrases still work.
    static func voiceWarnings(_ record: PluginRecord) -> [String] {
        let paths = AssistPaths.resolve(dataDir: nil, shareDir: nil)
        let keywords = record.manifest?.keywords ?? []
        var lines: [String] = []
        for language in Set(keywords.map { $0.lang ?? "en" }).sorted() {
            guard case .success(let model) = VoiceModel.find(language: language, data: paths.data, share: paths.share)
            else { continue }
            let phrases = keywords.filter { ($0.lang ?? "en") == language }.map { KeyPhrase($0.phrase) }
            let spotter = try? KeywordSpotter(model: model, phrases: phrases)
            let unknown = spotter?.unknown ?? phrases.map { ($0.text, $0.words.first ?? "") }
            for (phrase, word) in unknown {
                lines.append(
                    "warning: \(record.id): the voice command “\(phrase)” cannot be heard: “\(word)” is not in the \(language) voice dictionary"
                )
            }
        }
        return lines
    }

    /// Accepts a folder holding manifest.json, the manifest itself, or a library with a manifest beside it.
    static func locate(_ path: String) throws -> (URL, URL) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CLIFailure(message: "\(path) does not exist; give a plugin folder, its manifest.json or its library.")
        }
        let manifest: URL
        if isDirectory.boolValue {
            manifest = url.appendingPathComponent("manifest.json")
        } else if url.lastPathComponent == "manifest.json" {
            manifest = url
        } else {
            manifest = url.deletingLastPathComponent().appendingPathComponent("manifest.json")
        }
        return (manifest, libraryDirectory(for: manifest))
    }

    /// The manifest's own folder, except for a first-party plugin in the source tree, whose library is in
    /// the build folder this `assist` runs from.
    static func libraryDirectory(for manifest: URL) -> URL {
        let folder = manifest.deletingLastPathComponent()
        let paths = AssistPaths.resolve(dataDir: nil, shareDir: nil)
        if let root = paths.developmentRoot, folder.path.hasPrefix(root.appendingPathComponent("Plugins").path) {
            return paths.executable.deletingLastPathComponent()
        }
        return folder
    }
}

extension GlobalOptions {
    /// The options to hand on to a child `assist` process.
    var passThrough: [String] {
        var arguments: [String] = []
        if let dataDir { arguments += ["--data-dir", dataDir] }
        if let shareDir { arguments += ["--share-dir", shareDir] }
        if verbose { arguments.append("--verbose") }
        return arguments + ["--no-speech"]
    }
}

/// Runs `assist _probe` in a child process and reads its verdict.
enum ChildProbe {
    enum Outcome {
        case passed(String)
        case failed(String)
        case crashed(String)
    }

    static func run(arguments: [String], timeoutSeconds: Double) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        var timedOut = false
        while process.isRunning {
            if Date() > deadline {
                timedOut = true
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let last = text.split(separator: "\n").last.map(String.init) ?? ""
        if timedOut { return .crashed("it did not finish loading within \(Int(timeoutSeconds)) s and was killed") }
        if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            let name = String(cString: strsignal(signal))
            return .crashed("signal \(signal) (\(name)) while loading; the plugin's init or load code is faulty")
        }
        return process.terminationStatus == 0 ? .passed(last) : .failed(last)
    }
}

import AssistCore
import Foundation
import PluginHost
import Voice

/// `assist plugins check PATH`: validates a plugin, then runs it. The library is first opened in a child
/// process with a deadline, so a crash in its code is a result, not an abort; then `PluginValidator` runs it
/// for real in a helper process, twice over, with time limits (`noRun` skips that).
package struct PluginCheck {
    package var options: HostOptions
    package var path: String
    package var timeout: Double
    package var noRun: Bool
    package var json: Bool

    package init(options: HostOptions, path: String, timeout: Double, noRun: Bool, json: Bool) {
        self.options = options
        self.path = path
        self.timeout = timeout
        self.noRun = noRun
        self.json = json
    }

    package func run() throws {
        let (manifestURL, libraryDirectory) = try Self.locate(path)
        let record = PluginDiscovery.inspect(
            manifestURL: manifestURL, libraryDirectory: libraryDirectory, availableServices: HostServices.serviceIDs
        )
        guard record.isUsable else {
            throw CLIFailure(message: "\(record.id): \(record.state.rawValue): \(record.reason ?? "refused")")
        }
        let outcome = try ChildProbe.run(
            arguments: ["_probe", manifestURL.path, libraryDirectory.path] + options.passThrough,
            timeoutSeconds: timeout
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
        (report.steps, report.permissions) = try PluginValidator(
            manifest: manifestURL, libraryDirectory: libraryDirectory, timeoutSeconds: timeout
        ).run()
        let failed = report.steps.first { !$0.ok }
        let refused = report.permissions.refused
        report.passed = failed == nil && refused.isEmpty
        if json {
            try Self.printJSON(
                report,
                failure: failed.map { "\($0.detail ?? "failed") in \($0.step)" }
                    ?? refused.first.map { "asked for \($0)" })
        } else {
            for step in report.steps where step.ok && step.detail != nil {
                print("\(record.id): \(step.step): \(step.detail ?? "")")
            }
            Self.permissionLines(record.id, report.permissions, manifest: record.manifest).forEach { print($0) }
        }
        if let failed {
            throw CLIFailure(
                message: "\(record.id): fails at \(failed.step): \(failed.detail ?? "failed")", exitCode: 2)
        }
        if !refused.isEmpty {
            throw CLIFailure(
                message: "\(record.id): fails: it asked for " + PluginInstaller.joined(refused)
                    + "; users' Assist refuses the same.")
        }
        if !json {
            print("\(record.id): ran in a helper process: \(report.steps.count) steps, no crash or hang.")
            print("\(record.id): passes the checks.")
        }
    }

    /// "ID: permissions declared: camera, network (data.example.org); used: camera." and a warning for each
    /// declared and not used.
    static func permissionLines(
        _ id: String, _ report: PluginValidator.PermissionReport, manifest: PluginManifest?
    ) -> [String] {
        func named(_ names: [String], servers: [String]) -> String {
            guard !names.isEmpty else { return "none" }
            return names.map { name in
                name == "network" && !servers.isEmpty ? "network (\(servers.joined(separator: ", ")))" : name
            }.joined(separator: ", ")
        }
        let hosts = manifest?.networkHosts ?? []
        var lines = [
            "\(id): permissions declared: \(named(report.declared, servers: hosts)); used while checked: \(named(report.used, servers: report.servers))."
        ]
        for name in report.unused {
            lines.append(
                "warning: \(id): it declares \(name == "network" ? "the network" : "the \(name)") but did not use it while checked; a plugin that asks only for what it uses is easier to trust."
            )
        }
        return lines
    }

    /// What `--json` prints.
    package struct Report: Encodable {
        var id: String
        var passed: Bool
        var loaded: String?
        var steps: [PluginValidator.Step]
        var permissions = PluginValidator.PermissionReport()
        var warnings: [String]
        var failure: String?
    }

    package static func printJSON(_ report: Report, failure: String?) throws {
        var report = report
        report.failure = failure
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        Swift.print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    /// A line for each of the plugin's keywords that voice cannot hear, naming the missing word (English, or
    /// a language whose model is installed). Warnings: typed phrases still work.
    package static func voiceWarnings(_ record: PluginRecord) -> [String] {
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
    package static func locate(_ path: String) throws -> (URL, URL) {
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
    package static func libraryDirectory(for manifest: URL) -> URL {
        let folder = manifest.deletingLastPathComponent()
        let paths = AssistPaths.resolve(dataDir: nil, shareDir: nil)
        if let root = paths.developmentRoot, folder.path.hasPrefix(root.appendingPathComponent("Plugins").path) {
            return paths.executable.deletingLastPathComponent()
        }
        return folder
    }
}

import Foundation
import HostTesting
import Outbox
import Testing

/// A stranger's plugin asks the host's services to do for it what its sandbox forbids (issue 68, docs/security.md
/// "What the services refuse"): another feature's database through ATTACH or a link, files made through VACUUM
/// INTO, an endless query, another feature's secret, Assist's own settings and events, a flood of commands, and
/// an upload swapped for a link to the user's key. Built from Tests/Fixtures/plugins/deputy_plugin.c and run by
/// the real `assist`, in a helper process and in Assist's own (where no sandbox stands behind the services).
@Suite("Services inside the grant", .serialized)
struct DeputyTests {
    let folder: TemporaryDirectory
    /// The one server the plugin declares: what reaches it is checked for the key.
    let server: LoopbackHTTPServer
    static let secret = "-----BEGIN OPENSSH PRIVATE KEY----- the-users-own-key"
    static let answer = "cough-answer-42"
    static let credential = "the-study-credential-7f3a"
    let id = "org.example.deputy"

    init() throws {
        folder = try TemporaryDirectory("assist-deputy")
        server = try LoopbackHTTPServer { _ in .answer(status: 200) }
        try FileManager.default.createDirectory(at: folder.path("home/.ssh"), withIntermediateDirectories: true)
        try Self.secret.write(to: folder.path("home/.ssh/id_rsa"), atomically: true, encoding: .utf8)
        let survey = data.appendingPathComponent("plugins/assist.survey")
        try FileManager.default.createDirectory(at: survey, withIntermediateDirectories: true)
        let made = try ProcessRunner.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute('CREATE TABLE answers (text)'); "
                    + "d.execute('INSERT INTO answers VALUES (?)', (sys.argv[2],)); d.commit()",
                survey.appendingPathComponent("survey.sqlite").path, Self.answer,
            ])
        #expect(made.status == 0, "\(made.standardError)")
        let config = folder.path("config/assist")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[collect-videos]\n\"app-credential\" = \"\(Self.credential)\"\n".write(
            to: config.appendingPathComponent("secrets.toml"), atomically: true, encoding: .utf8)
        try "[storage]\n\"statement-seconds\" = 1\n".write(
            to: config.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }

    var data: URL { folder.path("data") }
    var plugins: URL { folder.path("plugins") }
    var escape: URL { folder.path("escaped.sqlite") }

    func build(extra defines: [String] = []) throws {
        let manifest = CPluginBuilder.manifest(
            id: id,
            extra: [
                "name": "Deputy",
                "services": [
                    "required": [
                        "assist.dialog/1", "assist.session/1", "assist.storage/1", "assist.settings/1",
                        "assist.events/1", "assist.input/1", "assist.outbox/1",
                    ]
                ],
                "network": ["127.0.0.1"],
            ])
        try CPluginBuilder(root: plugins).build(
            folder: "deputy",
            defines: [
                #"PLUGIN_ID="\#(id)""#,
                #"OTHER_DB="\#(data.appendingPathComponent("plugins/assist.survey/survey.sqlite").path)""#,
                #"OUTBOX_DB="\#(data.appendingPathComponent("outbox.sqlite").path)""#,
                #"ESCAPE_FILE="\#(escape.path)""#, #"SECRET_FILE="\#(folder.path("home/.ssh/id_rsa").path)""#,
                #"UPLOAD_URL="\#(server.baseURL)/upload""#,
            ] + defines, manifest: manifest, source: "deputy_plugin.c")
    }

    var environment: [String: String] {
        [
            "XDG_CONFIG_HOME": folder.path("config").path, "HOME": folder.path("home").path,
            "ASSIST_SYSCONFDIR": folder.path("etc").path,
        ]
    }

    func assist(_ arguments: [String], inProcess: Bool = false) throws -> ProcessResult {
        var options = ["--no-speech", "--data-dir", data.path, "--plugin-dir", plugins.path]
        if inProcess {
            let explicit = folder.path("in-process.toml")
            try "[plugins]\n\"in-process\" = [\"\(id)\"]\n".write(to: explicit, atomically: true, encoding: .utf8)
            options += ["--config", explicit.path]
        }
        return try ProcessRunner.run(
            BuildProducts.assist, arguments + options, environment: environment, timeoutSeconds: 120)
    }

    /// The plugin's line for `attack`: "attack: ASSIST_E_PERMISSION".
    static func outcome(_ lines: [String], _ attack: String) -> String? {
        lines.first { $0.hasPrefix("\(attack): ") }.map { String($0.dropFirst(attack.count + 2)) }
    }

    @Test(arguments: [false, true])
    func everyRequestBeyondTheGrantIsRefusedAndNothingLeaves(inProcess: Bool) throws {
        // In a helper, glibc's system() too: refused with EPERM, said, and the plugin goes on.
        let trySystem = !inProcess && KernelSandbox.isFull
        try build(extra: trySystem ? ["TRY_SYSTEM"] : [])
        let run = try assist(["run", id], inProcess: inProcess)
        let lines = run.lines
        #expect(run.status == 0, "the host lives: \(run.standardError)")
        #expect(lines.contains("deputy done"), "\(lines)\n\(run.standardError)")
        let expected: [(String, String)] = [
            ("open own", "ASSIST_OK"), ("own table", "ASSIST_OK"), ("own row", "ASSIST_OK"),
            ("attach other feature", "ASSIST_E_PERMISSION"), ("attach outbox", "ASSIST_E_PERMISSION"),
            ("attach new file", "ASSIST_E_PERMISSION"), ("vacuum into", "ASSIST_E_PERMISSION"),
            ("writable schema", "ASSIST_E_PERMISSION"), ("journal off", "ASSIST_E_PERMISSION"),
            ("load extension", "ASSIST_E_PERMISSION"), ("endless query", "ASSIST_E_TIMEOUT"),
            ("huge blob", "ASSIST_E_INVALID"), ("vacuum own", "ASSIST_OK"), ("own row after", "ASSIST_OK"),
            ("read secret", "ASSIST_E_PERMISSION"), ("read server", "ASSIST_E_PERMISSION"),
            ("read public", "ASSIST_OK"), ("write sandbox", "ASSIST_E_PERMISSION"),
            ("write in-process", "ASSIST_E_PERMISSION"), ("write other server", "ASSIST_E_PERMISSION"),
            ("write own", "ASSIST_OK"), ("publish crash", "ASSIST_E_PERMISSION"),
            ("publish camera lost", "ASSIST_E_PERMISSION"), ("publish own", "ASSIST_OK"),
            ("many databases", "ASSIST_E_NOMEM"), ("command 250", "ASSIST_E_PERMISSION"), ("upload own", "ASSIST_OK"),
            ("upload link", "ASSIST_E_PERMISSION"), ("upload key", "ASSIST_E_PERMISSION"),
        ]
        for (attack, status) in expected {
            #expect(Self.outcome(lines, attack) == status, "\(attack): \(lines)\n\(run.standardError)")
        }
        #expect(lines.contains("commands added: 200"), "\(lines)")
        #expect(lines.contains("databases opened: 1"), "some opened before the limit: \(lines)")
        if trySystem {
            #expect(lines.contains("system: refused"), "\(lines)\n\(run.standardError)")
            #expect(lines.filter { $0 == "Deputy tried to start another program. Refused." }.count == 1, "\(lines)")
            #expect(!FileManager.default.fileExists(atPath: escape.path + ".ran"))
        }
        // In Assist's own process nothing stops the plugin making its links: the services must refuse them.
        if inProcess {
            #expect(Self.outcome(lines, "open link") == "ASSIST_E_PERMISSION", "\(lines)")
            #expect(Self.outcome(lines, "open journal link") == "ASSIST_E_PERMISSION", "\(lines)")
            #expect(Self.outcome(lines, "swap for link") == "ASSIST_OK", "\(lines)")
        } else {
            #expect(["ASSIST_E_PERMISSION", nil].contains(Self.outcome(lines, "open link")), "\(lines)")
        }
        // Each kind is said once, naming the plugin.
        for sentence in [
            "Deputy asked to reach another feature's data or a file outside its own. Refused.",
            "Deputy asked the storage for something only Assist may do. Refused.",
            "Deputy ran a storage request for too long; it was stopped.",
            "Deputy asked the storage for too much memory. Refused.",
            "Deputy asked for another feature's settings. Refused.",
            "Deputy tried to change a setting that is not its own. Refused.",
            "Deputy tried to send one of Assist's own messages. Refused.",
            "Deputy tried to add more commands than a feature may have. Refused.",
            "Deputy asked to send a file that is not one of its own. Refused.",
        ] {
            #expect(lines.filter { $0 == sentence }.count == 1, "\(sentence)\n\(lines)")
        }

        // The queued upload goes out (during the run or now): if the worker took it after the swap it was not
        // sent at all; before, it carried the plugin's own clip. The key never reaches the server.
        let send = try assist(["outbox", "send", "--now", "--timeout", "20"])
        #expect(send.status == 0 || send.status == 1, "\(send.standardError)")
        for request in server.requests {
            #expect(request.body.range(of: Data(Self.secret.utf8)) == nil, "the key reached the server")
        }
        #expect(server.requests.count <= 1, "\(server.requests.map(\.path))")

        // Nothing appeared outside, nothing of another feature or the user reached the plugin's output, the
        // settings it may not write are as they were, and its own data is whole.
        #expect(!FileManager.default.fileExists(atPath: escape.path))
        let everything = run.standardOutput + run.standardError
        for text in [Self.answer, Self.credential, Self.secret] { #expect(!everything.contains(text), "\(text)") }
        let saved = (try? String(contentsOf: folder.path("config/assist/settings.toml"), encoding: .utf8)) ?? ""
        #expect(!saved.contains("sandbox") && !saved.contains("in-process") && !saved.contains("server-url"))
        #expect(!saved.contains(Self.credential), "a secret is never copied into settings.toml: \(saved)")
        #expect(saved.contains("colour"), "its own setting was kept: \(saved)")
        let check = try ProcessRunner.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT body FROM notes').fetchone()[0])",
                data.appendingPathComponent("plugins/\(id)/own.sqlite").path,
            ])
        #expect(check.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "still kept")
    }

    /// The permission is asked again when a job is sent: with the network turned off after the upload was
    /// queued it waits (nothing reaches the server, nothing is given up), and goes once it is given back.
    @Test func aQueuedUploadWaitsWhileItsNetworkPermissionIsOff() throws {
        try build()
        let own = data.appendingPathComponent("plugins/\(id)")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        try Data("clip".utf8).write(to: own.appendingPathComponent("clip.bin"))
        let store = try OutboxStore(url: data.appendingPathComponent("outbox.sqlite"))
        _ = try store.enqueue(
            owner: id,
            request: OutboxRequest(
                method: "POST", url: server.baseURL + "/upload",
                body: .multipart(
                    boundary: "b",
                    parts: [
                        .file(
                            "file", path: own.appendingPathComponent("clip.bin").path, filename: "clip.bin",
                            contentType: "x/y")
                    ])))
        let off = try assist(["plugins", "permissions", id, "--network", "off"])
        #expect(off.status == 0, "\(off)")
        let held = try assist(["outbox", "send", "--timeout", "10"])
        #expect(held.lines.contains("1 uploads still wait; 'assist outbox' lists them."), "\(held)")
        #expect(held.standardError.contains("waits: Deputy is not given the network now"), "\(held.standardError)")
        #expect(server.requests.isEmpty)
        #expect(try store.outcomes(owner: id).isEmpty, "not given up")
        #expect(try assist(["plugins", "permissions", id, "--network", "on"]).status == 0)
        let sent = try assist(["outbox", "send", "--now", "--timeout", "20"])
        #expect(sent.lines.contains("Everything was sent."), "\(sent)")
        #expect(server.requests.count == 1)
    }

    /// A statement with a long budget holds the main loop; SIGTERM still ends Assist at once.
    @Test func sigtermEndsTheHostDuringAnEndlessQuery() throws {
        try build(extra: ["ENDLESS_ONLY"])
        try "[storage]\n\"statement-seconds\" = 600\n".write(
            to: folder.path("config/assist/config.toml"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        process.arguments = ["run", id, "--no-speech", "--data-dir", data.path, "--plugin-dir", plugins.path]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var printed = Data()
        let began = Date()
        while !String(decoding: printed, as: UTF8.self).contains("endless query begins"),
            Date().timeIntervalSince(began) < 60 * ProcessRunner.timeScale
        {
            printed += output.fileHandleForReading.availableData
        }
        Thread.sleep(forTimeInterval: 0.5)
        kill(process.processIdentifier, SIGTERM)
        let sent = Date()
        while process.isRunning, Date().timeIntervalSince(sent) < 30 { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!process.isRunning, "SIGTERM did not end the host within 30 s of a 600 s statement")
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

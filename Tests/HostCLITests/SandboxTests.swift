import Foundation
import HostTesting
import Testing

/// A stranger's plugin gets only what it asked for (issue 34, docs/security.md). A hostile plugin, built here
/// from Tests/Fixtures/plugins/hostile_plugin.c, tries from init, start, a timer and on_frame to read the
/// user's home, write beside its data, connect to a listener, run a shell, fork, trace and signal the host,
/// and use the camera, microphone and outbox it did not declare. The real `assist` runs it in a helper
/// process inside the sandbox.
@Suite("Sandbox and permissions", .serialized)
struct SandboxTests {
    let folder: TemporaryDirectory
    /// Where the plugin tries to connect by itself: nothing may ever reach it.
    let listener: LoopbackHTTPServer
    /// The one server the second plugin declares, reached through the outbox.
    let server: LoopbackHTTPServer
    static let secret = "ssh-ed25519 AAAA-the-users-own-key"

    init() throws {
        folder = try TemporaryDirectory("assist-sandbox")
        listener = try LoopbackHTTPServer { _ in .answer(status: 200) }
        server = try LoopbackHTTPServer { _ in .answer(status: 200) }
        try FileManager.default.createDirectory(at: folder.path("home/.ssh"), withIntermediateDirectories: true)
        try Self.secret.write(to: folder.path("home/.ssh/id_ed25519"), atomically: true, encoding: .utf8)
    }

    var data: URL { folder.path("data") }
    var plugins: URL { folder.path("plugins") }
    static let kernelHasSandbox = KernelSandbox.isFull

    /// Builds the hostile plugin as `org.example.<name>` with `manifest` fields added; `wantsCamera` subscribes.
    func build(_ name: String, fields: [String: Any] = [:], wantsCamera: Bool = false, extra more: [String] = [])
        throws -> String
    {
        let id = "org.example.\(name)"
        let beside = data.appendingPathComponent("plugins/\(id)-beside.txt").path
        var defines = [
            #"PLUGIN_ID="\#(id)""#, #"SECRET_FILE="\#(folder.path("home/.ssh/id_ed25519").path)""#,
            #"BESIDE_FILE="\#(beside)""#,
            #"ESCAPE_FILE="\#(folder.path("escaped").path)""#, "LISTEN_PORT=\(listener.port)",
            #"OUTBOX_URL="\#(server.baseURL)/upload""#,
        ]
        if wantsCamera { defines.append("WANTS_CAMERA") }
        defines += more
        var extra: [String: Any] = [
            "name": "Hostile \(name)",
            "services": ["required": ["assist.dialog/1", "assist.storage/1", "assist.clock/1"]],
        ]
        for (key, value) in fields { extra[key] = value }
        try CPluginBuilder(root: plugins).build(
            folder: name, defines: defines, manifest: CPluginBuilder.manifest(id: id, extra: extra),
            source: "hostile_plugin.c")
        return id
    }

    func assist(_ arguments: [String], config: String = "") throws -> ProcessResult {
        let configFolder = folder.path("config/assist")
        try FileManager.default.createDirectory(at: configFolder, withIntermediateDirectories: true)
        try config.write(to: configFolder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        return try ProcessRunner.run(
            BuildProducts.assist,
            arguments + ["--no-speech", "--data-dir", data.path, "--plugin-dir", plugins.path],
            environment: [
                "XDG_CONFIG_HOME": folder.path("config").path, "HOME": folder.path("home").path,
                "ASSIST_TEST_SECRET": "token-in-the-environment", "ASSIST_SYSCONFDIR": folder.path("etc").path,
            ], timeoutSeconds: 90)
    }

    /// Writes the admin's plugin rules `<etc>/plugins.d/NAME` with `mode`.
    func policy(_ name: String, _ text: String, mode: mode_t = 0o644) throws {
        let rules = folder.path("etc/plugins.d")
        try FileManager.default.createDirectory(at: rules, withIntermediateDirectories: true)
        try text.write(to: rules.appendingPathComponent(name), atomically: true, encoding: .utf8)
        chmod(rules.appendingPathComponent(name).path, mode)
    }

    /// Every file under `url` that holds `text`.
    func files(under url: URL, holding text: String) -> [String] {
        let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)
        var found: [String] = []
        while let file = walker?.nextObject() as? URL {
            if let bytes = try? Data(contentsOf: file), bytes.range(of: Data(text.utf8)) != nil {
                found.append(file.path)
            }
        }
        return found
    }

    /// The plugin's own lines: "init: read refused, …".
    static func attempts(_ lines: [String], _ place: String) -> String? {
        lines.first { $0.hasPrefix("\(place):") }
    }

    @Test func aPluginThatAskedForNothingGetsNothingAndTheHostSaysSoOnce() throws {
        guard Self.kernelHasSandbox else {
            // A kernel without Landlock or seccomp: the user is told, and the services still refuse (the plugin
            // tries nothing else here: it would get it).
            let run = try assist(["run", try build("hostile", extra: ["HARMLESS"])])
            #expect(run.lines.contains { $0.contains("runs without its full sandbox: \(KernelSandbox.missing)") })
            #expect(run.lines.contains { $0.contains("asked for the camera, which it was not given") })
            return
        }
        let id = try build("hostile")
        let run = try assist(["run", id])
        #expect(run.status == 0, "\(run.standardError)")
        let syscalls =
            "read refused, write refused, connect refused, exec refused, fork refused, ptrace refused, signal refused, environment refused"
        let services =
            "microphone ASSIST_E_PERMISSION, outbox ASSIST_E_PERMISSION, other server ASSIST_E_PERMISSION"
        #expect(Self.attempts(run.lines, "init") == "init: \(syscalls)", "\(run.lines)\n\(run.standardError)")
        #expect(
            Self.attempts(run.lines, "start") == "start: \(syscalls), camera ASSIST_E_PERMISSION, \(services)",
            "\(run.lines)")
        #expect(Self.attempts(run.lines, "timer") == "timer: \(syscalls), \(services)", "\(run.lines)")
        // Nothing reached anyone: no connection, no file beside its data or from an escaped child, and the key's
        // text nowhere in what it keeps.
        #expect(listener.connectionsAccepted == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.path("escaped").path))
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("plugins/\(id)-beside.txt").path))
        #expect(files(under: data, holding: Self.secret).isEmpty)
        #expect(files(under: data, holding: "token-in-the-environment").isEmpty)
        // Each kind of refusal said once, however many times it was tried (three places each).
        let said = [
            "Hostile hostile asked for the camera, which it was not given. Refused.",
            "Hostile hostile asked for the microphone, which it was not given. Refused.",
            "Hostile hostile tried to use the network, which it was not given. Refused.",
            "Hostile hostile tried to open a network connection of its own. Refused.",
            "Hostile hostile tried to start another program. Refused.",
            "Hostile hostile tried to reach another program's memory or signals. Refused.",
        ]
        for sentence in said {
            #expect(run.lines.filter { $0.contains(sentence) }.count == 1, "\(sentence)\n\(run.lines)")
        }
        #expect(run.standardError.components(separatedBy: "refused: camera was not granted").count == 2)
    }

    @Test(.enabled(if: KernelSandbox.isFull, "the kernel cannot shut a helper in"))
    func aPluginThatAskedForTheCameraAndOneServerGetsExactlyThose() throws {
        let id = try build(
            "declared", fields: ["devices": ["camera"], "network": ["127.0.0.1"]], wantsCamera: true)
        let run = try assist(["run", id, "--camera", "pattern", "--camera-fps", "10"])
        #expect(run.status == 0, "\(run.standardError)")
        let start = try #require(Self.attempts(run.lines, "start"), "\(run.lines)\n\(run.standardError)")
        // The camera and its one server, through the services; still no socket, program or file of its own.
        #expect(start.contains("camera ASSIST_OK"), "\(start)")
        #expect(start.contains("outbox ASSIST_OK"), "\(start)")
        #expect(start.contains("other server ASSIST_E_PERMISSION"), "\(start)")
        #expect(start.contains("microphone ASSIST_E_PERMISSION"), "\(start)")
        let frame = try #require(Self.attempts(run.lines, "on_frame"), "\(run.lines)")
        #expect(!frame.contains("ALLOWED"), "\(frame)")
        #expect(!run.lines.contains { $0.contains("ALLOWED") }, "\(run.lines)")
        #expect(run.lines.contains { $0.contains("tried to send to 192.0.2.1") }, "\(run.lines)")
        #expect(!run.lines.contains { $0.contains("asked for the camera") }, "\(run.lines)")
        #expect(listener.connectionsAccepted == 0, "the plugin itself connected")
        #expect(files(under: data, holding: Self.secret).isEmpty)
    }

    @Test func theUserTurnsAPermissionOffAndThePluginOff() throws {
        let id = try build("managed", fields: ["devices": ["camera"], "network": ["127.0.0.1"]])
        let info = try assist(["plugins", "info", id])
        #expect(info.lines.contains("Camera: allowed"), "\(info.lines)")
        #expect(info.lines.contains("Microphone: not asked for"), "\(info.lines)")
        #expect(info.lines.contains("Network: allowed (127.0.0.1)"), "\(info.lines)")
        #expect(info.lines.contains { $0.hasPrefix("Sandbox: ") }, "\(info.lines)")

        let off = try assist(["plugins", "permissions", id, "--camera", "off"])
        #expect(off.status == 0, "\(off.standardError)")
        #expect(off.lines.contains("Camera: asked for, turned off"), "\(off.lines)")
        let file = data.appendingPathComponent("plugin-permissions.json")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // What it does not declare cannot be given.
        let more = try assist(["plugins", "permissions", id, "--microphone", "on"])
        #expect(more.status == 65)
        #expect(more.standardError.contains("does not ask for the microphone"), "\(more.standardError)")

        if Self.kernelHasSandbox {
            let run = try assist(["run", id])
            #expect(run.lines.contains { $0.hasPrefix("start:") && $0.contains("camera ASSIST_E_PERMISSION") })
            #expect(run.lines.contains { $0.contains("asked for the camera, which it was not given") })
        }

        let disabled = try assist(["plugins", "disable", id])
        #expect(disabled.status == 0)
        let list = try assist(["plugins", "list"])
        #expect(
            list.lines.contains { $0.hasPrefix("\(id) 1.0.0") && $0.contains("disabled: turned off") }, "\(list.lines)")
        let refused = try assist(["run", id])
        #expect(refused.status != 0)
        _ = try assist(["plugins", "enable", id])
        let back = try assist(["plugins", "list"])
        #expect(back.lines.contains { $0.hasPrefix("\(id) 1.0.0") && !$0.contains("disabled") }, "\(back.lines)")
    }

    /// By ear and keyboard, on a terminal: the shell's menu offers the permissions once a stranger's plugin asks
    /// for any; each is turned off by choosing it, and the feature can be turned off there too.
    @Test func theShellTurnsAPermissionAndAFeatureOffByKeyboard() throws {
        let id = try build("ear", fields: ["devices": ["camera"], "network": ["127.0.0.1"]], extra: ["HARMLESS"])
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            ["shell", "--no-speech", "--data-dir", data.path, "--plugin-dir", plugins.path],
            environment: ["HOME": folder.path("home").path, "XDG_CONFIG_HOME": folder.path("config").path])
        /// The number the last list on the screen gives `label`.
        func choose(_ label: String) throws {
            screen.typeSlowly(try #require(screen.number(of: label), "\(screen.text)") + "\r", gap: 0.1)
        }
        #expect(screen.waitFor("Permissions of features"), "\(screen.text)")
        #expect(screen.waitFor("Control R repeats"), "\(screen.text)")
        try choose("Permissions of features")
        #expect(screen.waitFor("Whose permissions?"), "\(screen.text)")
        #expect(screen.waitFor(". Hostile ear"), "\(screen.text)")
        try choose("Hostile ear")
        #expect(screen.waitFor("2. Network: allowed"), "\(screen.text)")
        try choose("Camera: allowed")
        #expect(screen.waitFor("Hostile ear may not use the camera from its next start."), "\(screen.text)")
        #expect(screen.waitFor("1. Camera: turned off"), "\(screen.text)")
        try choose("Turn Hostile ear off")
        #expect(screen.waitFor("Hostile ear is turned off."), "\(screen.text)")
        #expect(screen.waitFor("Hostile ear, turned off"), "\(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Quit Assist?"), "\(screen.text)")
        screen.type("y")
        #expect(screen.waitForExit() == 0)
        let info = try assist(["plugins", "permissions", id])
        #expect(info.lines.contains("Camera: asked for, turned off"), "\(info.lines)")
        #expect(info.lines.contains("Network: allowed (127.0.0.1)"), "\(info.lines)")
        let list = try assist(["plugins", "list"])
        #expect(
            list.lines.contains { $0.hasPrefix("\(id) 1.0.0") && $0.contains("disabled: turned off") }, "\(list.lines)")
    }

    @Test func aManifestWithAPermissionAssistDoesNotKnowIsRefusedWithTheReason() throws {
        _ = try build("gps", fields: ["devices": ["camera", "gps"]])
        _ = try build("url", fields: ["network": ["https://example.org/api"]])
        let list = try assist(["plugins", "list"])
        #expect(
            list.lines.contains { $0.contains("devices lists \"gps\", which Assist does not know") }, "\(list.lines)")
        #expect(list.lines.contains { $0.contains("network lists \"https://example.org/api\"") }, "\(list.lines)")
    }

    @Test(.enabled(if: KernelSandbox.isFull, "the kernel cannot shut a helper in"))
    func aPluginThatCallsADeniedServiceInALoopIsToldOnceAndTheHostStaysUp() throws {
        // 40 more rounds of the microphone and the outbox, 100 ms apart, after the three places above.
        let id = try build("loop", extra: ["LOOP=40"])
        let run = try assist(["run", id])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.lines.contains { $0.hasPrefix("loop:, microphone ASSIST_E_PERMISSION") }, "\(run.lines)")
        #expect(run.lines.filter { $0.contains("asked for the microphone") }.count == 1, "\(run.lines)")
        #expect(run.lines.filter { $0.contains("tried to use the network") }.count == 1, "\(run.lines)")
        #expect(run.lines.filter { $0.contains("network connection of its own") }.count == 1, "\(run.lines)")
        #expect(run.standardError.components(separatedBy: "refused: microphone was not granted").count == 2)
    }

    @Test func aRequiredSandboxTheKernelCannotGiveRefusesThePlugin() throws {
        // The sandbox turned off stands for a kernel without it: required, the plugin is refused, with the reason.
        let id = try build("required", extra: ["HARMLESS"])
        let run = try assist(["run", id], config: "[plugins]\nsandbox = false\nrequire-sandbox = true\n")
        #expect(run.status != 0)
        let said = run.standardOutput + run.standardError
        #expect(said.contains("the sandbox cannot be set up in full"), "\(said)")
        #expect(!run.lines.contains { $0.hasPrefix("init:") }, "the plugin ran: \(run.lines)")
        // Not required: it runs, and the user hears that it runs without its sandbox.
        let open = try assist(["run", id], config: "[plugins]\nsandbox = false\n")
        #expect(open.lines.contains("init: nothing tried"), "\(open.lines)\n\(open.standardError)")
        #expect(open.lines.contains { $0.contains("runs without its full sandbox") }, "\(open.lines)")
    }

    /// The admin's rules in /etc/assist/plugins.d: a denied id never loads, an allow list leaves out the others
    /// (not Assist's own features), a permission users may not grant is withheld whatever they choose, and a
    /// rules file others may change stops every stranger's plugin, with the reason.
    @Test func theAdminsRulesDenyAllowAndWithholdPermissions() throws {
        let denied = try build("denied", extra: ["HARMLESS"])
        let kept = try build("kept", fields: ["devices": ["camera"], "network": ["127.0.0.1"]], extra: ["HARMLESS"])
        let other = try build("other", extra: ["HARMLESS"])
        try policy("50-site.toml", "# the school's rules\ndeny = [\"\(denied)\"]\nuser-may-grant = [\"camera\"]\n")
        let list = try assist(["plugins", "list"])
        #expect(
            list.lines.contains {
                $0.hasPrefix("\(denied) 1.0.0") && $0.contains("disabled: your administrator does not allow it")
            }, "\(list.lines)")
        #expect(list.lines.contains { $0.hasPrefix("\(other) 1.0.0") && !$0.contains("disabled") }, "\(list.lines)")
        let run = try assist(["run", denied])
        #expect(run.status != 0)
        #expect(!run.lines.contains { $0.hasPrefix("init:") }, "it ran: \(run.lines)")
        #expect((run.standardOutput + run.standardError).contains("your administrator does not allow it"))

        let info = try assist(["plugins", "info", kept])
        #expect(info.lines.contains("Camera: allowed"), "\(info.lines)")
        #expect(
            info.lines.contains { $0.hasPrefix("Network: asked for, withheld by your administrator (") },
            "\(info.lines)"
        )
        let give = try assist(["plugins", "permissions", kept, "--network", "on"])
        #expect(give.status == 77)
        #expect(
            give.standardError.contains("Your administrator does not let plugins have the network"),
            "\(give.standardError)")
        if Self.kernelHasSandbox {
            let withheld = try assist(["run", kept])
            #expect(withheld.status == 0, "\(withheld.standardError)")
            #expect(
                withheld.lines.contains { $0.contains("tried to use the network, which it was not given") },
                "\(withheld.lines)")
        }

        // An allow list: only what it names, and Assist's own features as before.
        try policy("60-allow.toml", "allow = [\"org.example.kep*\"]\n")
        let allowed = try assist(["plugins", "list"])
        #expect(
            allowed.lines.contains { $0.hasPrefix("\(kept) 1.0.0") && !$0.contains("disabled") }, "\(allowed.lines)")
        #expect(
            allowed.lines.contains {
                $0.hasPrefix("\(other) 1.0.0") && $0.contains("your administrator allows only the plugins they chose")
            }, "\(allowed.lines)")
        #expect(
            allowed.lines.contains { $0.hasPrefix("assist.clock ") && !$0.contains("disabled") }, "\(allowed.lines)")

        // A rules file anyone may change is no rule: every stranger's plugin stops until it is mended.
        try policy("70-open.toml", "allow = [\"*\"]\n", mode: 0o666)
        let open = try assist(["plugins", "list"])
        #expect(
            open.lines.contains {
                $0.hasPrefix("\(kept) 1.0.0") && $0.contains("may be changed by others than its owner")
            }, "\(open.lines)")
        #expect(open.lines.contains { $0.hasPrefix("assist.clock ") && !$0.contains("disabled") }, "\(open.lines)")
        try policy("70-open.toml", "allow = \"everything\"\n")
        let wrong = try assist(["plugins", "list"])
        #expect(
            wrong.lines.contains { $0.hasPrefix("\(kept) 1.0.0") && $0.contains("that is not a list") },
            "\(wrong.lines)")
    }

    /// `assist plugins check` says what a plugin used against what it declared, and fails one that asks for
    /// what it did not declare (its users' Assist would refuse it the same).
    /// Checking a stranger's plugin runs its init in the sandbox too: `plugins check` opens it twice (the probe,
    /// then a short run), and neither may read the user's key, write beside its data, connect, or start a
    /// program that writes the escape file.
    @Test(.enabled(if: KernelSandbox.isFull, "the kernel cannot shut a helper in"))
    func checkingAStrangersPluginNeverRunsItOutsideTheSandbox() throws {
        let id = try build("probed")
        let checked = try assist(["plugins", "check", plugins.appendingPathComponent("probed").path])
        #expect(!FileManager.default.fileExists(atPath: folder.path("escaped").path), "\(checked.standardError)")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("plugins/\(id)-beside.txt").path))
        #expect(listener.connectionsAccepted == 0)
        #expect(files(under: data, holding: Self.secret).isEmpty)
        // The probe's verdict came from the helper, not from a probe the plugin replaced with a shell.
        #expect(
            checked.standardOutput.contains("\(id) 1.0.0: loads, and its init and deinit balance"),
            "\(checked.standardOutput)")
    }

    @Test(.enabled(if: KernelSandbox.isFull, "the kernel cannot shut a helper in"))
    func checkReportsThePermissionsUsedAgainstThoseDeclared() throws {
        let id = try build("checked", fields: ["devices": ["camera", "microphone"], "network": ["127.0.0.1"]])
        let checked = try assist(["plugins", "check", plugins.appendingPathComponent("checked").path])
        #expect(checked.status == 1, "\(checked.standardOutput)\n\(checked.standardError)")
        #expect(
            checked.lines.contains(
                "\(id): permissions declared: camera, microphone, network (127.0.0.1); used while checked: camera, microphone, network (127.0.0.1)."
            ), "\(checked.lines)")
        let failure = checked.standardError
        #expect(failure.contains("sending to 192.0.2.1, a server its manifest's network does not list"), "\(failure)")
        #expect(failure.contains("a socket of its own (the sandbox)"), "\(failure)")

        let quiet = try build("quiet", fields: ["devices": ["microphone"]], extra: ["HARMLESS"])
        let harmless = try assist(["plugins", "check", plugins.appendingPathComponent("quiet").path, "--json"])
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(harmless.standardOutput.utf8)) as? [String: Any])
        let permissions = try #require(report["permissions"] as? [String: Any], "\(report)")
        #expect(permissions["declared"] as? [String] == ["microphone"], "\(permissions)")
        #expect(
            (permissions["refused"] as? [String])?.contains {
                $0.contains("the camera, which its manifest does not declare")
            } == true, "\(permissions)")
        #expect(report["passed"] as? Bool == false)
        _ = quiet
    }
}

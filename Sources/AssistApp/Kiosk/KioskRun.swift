import AssistCore
import Digest
import Foundation
import Interaction
import Kiosk
import PluginHost

/// The kiosk (`assist kiosk`, `assist kiosk check`): docs/kiosk.md.
package enum KioskRun {
    /// The exit status of a kiosk stopped from its admin menu (the unit does not restart it).
    package static let stoppedByAdmin: Int32 = 3
    /// The exit status of a set-up that cannot be used (sysexits' EX_CONFIG).
    package static let unusable: Int32 = 78

    package static func start(options given: HostOptions) throws {
        // systemd's variables, put back for a restart from the admin menu (the process took them out).
        let inherited = AssistProcess.systemdVariables
        var options = given
        let device = AssistPaths.resolve(dataDir: options.dataDir, shareDir: options.shareDir).data
        let sitting = try enterSitting(&options, device: device)
        if sitting != nil, let folder = options.dataDir {
            AssistProcess.logInto(dataFolder: URL(fileURLWithPath: folder))
        }
        let session = try HostSession(options: options, interactive: true, kiosk: true, kioskDevice: device)
        guard let config = session.kiosk else { return }
        let environment = ProcessInfo.processInfo.environment
        var blocking = config.problems.filter(\.blocking)
        var pin: PasswordHash?
        switch KioskPIN.load(from: config.pinFile, environment: environment) {
        case .success(let hash): pin = hash
        case .failure(let problem): blocking.append(problem)
        }
        guard let pin, blocking.isEmpty else {
            // Said and logged; no shell that its admin could not leave.
            for problem in blocking {
                session.logger.error("kiosk: \(problem.text)")
                session.announcer.say(
                    session.phrases.text("kiosk.cannot-start", ["reason": problem.text]), priority: .important)
            }
            session.shutdown(drainSeconds: 5)
            throw ExitStatus(code: KioskRun.unusable)
        }
        for problem in config.problems where !problem.blocking {
            session.logger.warning("kiosk: \(problem.text)")
        }
        let kiosk = KioskShell(session: session, config: config, pin: pin, device: device)
        if let sitting {
            if sitting.isNew { session.announcer.say(session.phrases.text("kiosk.sitting-new"), priority: .important) }
            if sitting.recovered {
                session.announcer.say(session.phrases.text("kiosk.sitting-recovered"), priority: .important)
                session.logger.warning(
                    "kiosk: the note of the sitting going on was damaged; sitting \(sitting.name), the newest not ended, goes on"
                )
            }
            session.logger.notice("kiosk: sitting \(sitting.name) \(sitting.isNew ? "begins" : "goes on")")
            kiosk.watchSitting(isNew: sitting.isNew)
        }
        if let quiet = config.quietHours, kiosk.isQuiet {
            session.announcer.say(session.phrases.text("kiosk.quiet", ["time": quiet.endDescription]))
        }
        // Departed people's sittings: what waits in them is sent, then they are deleted (also after a switch
        // back to a shared kiosk).
        let drain = SittingDrain(
            sittings: Sittings(device: device), options: options, config: config, logger: session.logger,
            installed: session.features.records)
        drain.start(every: 600, on: session.loop)
        ShellMenu.run(session: session, microphone: options.mic, kiosk: kiosk)
        drain.stop()
        switch kiosk.ending {
        case .restart, .endSitting:
            if kiosk.ending == .endSitting {
                do { try Sittings(device: device).end() } catch {
                    // Going on would show this person's data to the next: the kiosk stops instead (systemd's
                    // start limit then says "Assist keeps failing").
                    throw CLIFailure(
                        message:
                            "The kiosk cannot end this person's session (\(error.localizedDescription)); it stops rather than show their data to the next person.",
                        exitCode: KioskRun.unusable)
                }
            }
            for (name, value) in inherited { setenv(name, value, 1) }
            // The next process starts as a fresh one would: a blocked or ignored signal stays so across exec, and
            // systemd's stop, sent before that process listens for it, was kept pending and then dropped when it
            // set its handler up (a dispatch source blocked SIGTERM here then; setting SIG_IGN discards a pending
            // one), so the kiosk ran on. Unblocked and at its default, a stop in that window ends it at once, and
            // from `SignalWatch.watch` on it is the shell's.
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            signal(SIGTERM, SIG_DFL)
            let arguments = CommandLine.arguments
            let pointers = arguments.map { strdup($0) } + [nil]
            execv("/proc/self/exe", pointers)
            throw CLIFailure(message: "The kiosk could not restart itself: \(String(cString: strerror(errno))).")
        case .stop:
            throw ExitStatus(code: KioskRun.stoppedByAdmin)
        case .service, nil:
            return
        }
    }
    /// Where the kiosk's own `XDG_CONFIG_HOME` is kept while a sitting's stands in for it ("" for none).
    static let configHomeKey = "ASSIST_KIOSK_CONFIG_HOME"
    /// The same for `XDG_DOCUMENTS_DIR`, where read-text saves a text (Ctrl+S).
    static let documentsKey = "ASSIST_KIOSK_DOCUMENTS_DIR"

    /// A per-person kiosk's sitting (`Sittings`): its folder becomes the data folder, and its `config` folder
    /// the one for settings kept at run time, so nothing of one person is there for the next. Nil for a shared
    /// kiosk, which keeps `options` as they are.
    static func enterSitting(_ options: inout HostOptions, device: URL) throws -> (
        name: String, isNew: Bool, recovered: Bool
    )? {
        let environment = ProcessInfo.processInfo.environment
        // A restart (exec) inherits the last sitting's stand-in: the admin's own comes back first.
        for (kept, name) in [(configHomeKey, "XDG_CONFIG_HOME"), (documentsKey, "XDG_DOCUMENTS_DIR")] {
            guard let value = environment[kept] else { continue }
            if value.isEmpty { unsetenv(name) } else { setenv(name, value, 1) }
        }
        let admin = SettingsStore()
        _ = admin.loadStandardFiles(explicit: options.config, explicitIsAdmin: true)
        if case .success(let entries) = KioskAdminFile(device: device).load() { admin.apply(entries, admin: true) }
        // A restart after the admin turned per-person off must not keep the device folder of before.
        unsetenv(AssistPaths.deviceKey)
        guard KioskConfig(settings: admin).perPerson else { return nil }
        try AssistPaths.makePrivate(device)
        let sitting = try Sittings(device: device).begin()
        // Crashes and the features they turned off are the device's, not one person's (`AssistPaths.records`).
        setenv(AssistPaths.deviceKey, device.path, 1)
        if environment[configHomeKey] == nil { setenv(configHomeKey, environment["XDG_CONFIG_HOME"] ?? "", 1) }
        setenv("XDG_CONFIG_HOME", sitting.root.appendingPathComponent("config").path, 1)
        // What the person saves (read-text's Ctrl+S) goes into the sitting too, and leaves with it: never into
        // the device user's Documents for the next person to find.
        if environment[documentsKey] == nil { setenv(documentsKey, environment["XDG_DOCUMENTS_DIR"] ?? "", 1) }
        let documents = sitting.root.appendingPathComponent("documents")
        try AssistPaths.ensurePrivateDirectory(documents)
        setenv("XDG_DOCUMENTS_DIR", documents.path, 1)
        options.dataDir = sitting.root.path
        return (sitting.name, sitting.isNew, sitting.recovered)
    }

    package static func check(options: HostOptions) throws {
        let session = try HostSession(options: options, interactive: false, speaks: false, kiosk: true)
        guard let config = session.kiosk else { return }
        let records = session.features.records.filter { $0.manifest != nil }
        let problems = config.check(
            installed: Dictionary(records.map { ($0.id, $0.libraryURL) }) { first, _ in first },
            lockedKeys: session.settings.lockedKeys,
            pluginNamespaces: Set(records.flatMap { $0.manifest?.writableNamespaces ?? [] }))
        let output = StandardOutput()
        guard !problems.isEmpty else {
            let allowed = config.allowed.keys.sorted().joined(separator: ", ")
            output.writeLine(
                "The kiosk set-up is ready: \(config.allowed.count) feature\(config.allowed.count == 1 ? "" : "s") allowed (\(allowed)); the admin gesture is \(config.gestureDescription), then the PIN."
            )
            return
        }
        output.writeLine("The kiosk set-up has \(problems.count) problem\(problems.count == 1 ? "" : "s"):")
        for problem in problems {
            output.writeLine("\(problem.blocking ? "Refuses to start" : "Problem"): \(problem.text).")
        }
        throw ExitStatus(code: problems.contains(where: \.blocking) ? KioskRun.unusable : 1)
    }

    /// `assist kiosk set-pin`: asks for the admin PIN twice, never shown, and keeps its salted hash in `pinFile`
    /// (default: the setting kiosk.pin-file).
    package static func setPIN(config: String?, pinFile: String?) throws {
        let file: URL
        if let pinFile {
            file = URL(fileURLWithPath: pinFile)
        } else {
            let settings = SettingsStore()
            _ = settings.loadStandardFiles(explicit: config, explicitIsAdmin: true)
            file = KioskConfig(settings: settings).pinFile
        }
        let reader = SecretLineReader()
        guard let first = reader.read(prompt: "New admin PIN (4 to 12 digits, not shown): ") else {
            throw CLIFailure(message: "No PIN was given; nothing changed.")
        }
        if let problem = KioskPIN.problem(with: first) {
            throw CLIFailure(message: "That PIN cannot be used: \(problem). Nothing changed.")
        }
        guard reader.read(prompt: "The same PIN again: ") == first else {
            throw CLIFailure(message: "The two PINs differ. Nothing changed; run assist kiosk set-pin again.")
        }
        do { try KioskPIN.write(PasswordHash.make(first), to: file) } catch {
            throw CLIFailure(
                message:
                    "The PIN cannot be written to \(file.path): \(error.localizedDescription). Run it as root (sudo assist kiosk set-pin)."
            )
        }
        print("The admin PIN is set: its salted hash is in \(file.path), which only its owner can read.")
    }

    /// `assist kiosk hash`: a `[kiosk.features]` table of the installed features named in `ids` (all when
    /// empty), each with its library's SHA-256.
    package static func printHashes(options: HostOptions, ids: [String]) throws {
        let session = try HostSession(options: options, interactive: false, speaks: false)
        let records = session.features.records.filter { $0.manifest != nil }
        for id in ids where !records.contains(where: { $0.id == id }) {
            throw CLIFailure(message: "There is no installed feature called \(id).", exitCode: 64)
        }
        print("[kiosk.features]")
        for record in records where ids.isEmpty || ids.contains(record.id) {
            guard let hash = SHA256Digest.hex(ofFileAt: record.libraryURL) else {
                throw CLIFailure(message: "\(record.libraryURL.path) cannot be read.")
            }
            print("\"\(record.id)\" = \"\(hash)\"  # \(record.name)")
        }
    }

    /// `assist kiosk failed`: says, and logs for the journal, that the kiosk on `instance` hit its start limit.
    package static func sayFailing(options: HostOptions, instance: String) throws {
        let session = try HostSession(options: options, interactive: false, speaks: !options.noSpeech)
        let line =
            "Assist keeps failing: it stopped \(KioskUnits.startLimitBurst) times within \(KioskUnits.startLimitSeconds / 60) minutes and will not be started again until this device restarts. Please tell the person who looks after it."
        session.logger.critical(
            "Assist keeps failing on \(instance): the start limit was hit; journalctl -u assist-kiosk@\(instance) shows why"
        )
        session.announcer.say(line, priority: .important)
        session.shutdown(drainSeconds: 20)
    }
}

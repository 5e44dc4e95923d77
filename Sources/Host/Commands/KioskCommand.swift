import ArgumentParser
import AssistCore
import Digest
import Foundation
import Interaction
import Kiosk
import PluginHost

/// `assist kiosk`: the shell locked down for a shared machine (docs/kiosk.md), and the admin's commands that
/// set it up: `check`, `set-pin`, `hash`, `install`, `uninstall`.
struct KioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Run the shell as a kiosk that only its admin can leave, or set one up.",
        discussion: """
            Exit codes: 0 ended by systemd; 3 stopped from the admin menu; 78 the set-up is not usable \
            (assist kiosk check says why).
            """,
        subcommands: [
            Start.self, Check.self, SetPIN.self, Hash.self, KioskInstallCommand.self, KioskUninstallCommand.self,
            Failed.self,
        ],
        defaultSubcommand: Start.self)

    /// The exit status of a kiosk stopped from its admin menu (the unit does not restart it).
    static let stoppedByAdmin: Int32 = 3
    /// The exit status of a set-up that cannot be used (sysexits' EX_CONFIG).
    static let unusable: Int32 = 78

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start",
            abstract:
                "The kiosk itself (the default): the shell with only the allowed features, left by the admin gesture and PIN."
        )
        @OptionGroup var global: GlobalOptions

        func run() throws {
            // systemd's variables, put back for a restart from the admin menu (the session takes them out).
            let inherited = ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"].compactMap { name in
                ProcessInfo.processInfo.environment[name].map { (name, $0) }
            }
            let session = try HostSession(options: global, interactive: true, kiosk: true)
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
                throw ExitCode(KioskCommand.unusable)
            }
            for problem in config.problems where !problem.blocking {
                session.logger.warning("kiosk: \(problem.text)")
            }
            let kiosk = KioskShell(session: session, config: config, pin: pin)
            if let quiet = config.quietHours, kiosk.isQuiet {
                session.announcer.say(session.phrases.text("kiosk.quiet", ["time": quiet.endDescription]))
            }
            ShellMenu.run(session: session, microphone: global.mic, kiosk: kiosk)
            switch kiosk.ending {
            case .restart:
                for (name, value) in inherited { setenv(name, value, 1) }
                let arguments = CommandLine.arguments
                let pointers = arguments.map { strdup($0) } + [nil]
                execv("/proc/self/exe", pointers)
                throw CLIFailure(message: "The kiosk could not restart itself: \(String(cString: strerror(errno))).")
            case .stop:
                throw ExitCode(KioskCommand.stoppedByAdmin)
            case .service, nil:
                return
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a kiosk set-up without starting it: each problem on a line, with what to do.",
            discussion: "Exit codes: 0 ready; 1 something is wrong; 78 the kiosk would refuse to start.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let session = try HostSession(options: global, interactive: false, speaks: false, kiosk: true)
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
                    "The kiosk set-up is ready: \(config.allowed.count) features allowed (\(allowed)); the admin gesture is \(config.gestureDescription), then the PIN."
                )
                return
            }
            output.writeLine("The kiosk set-up has \(problems.count) problem\(problems.count == 1 ? "" : "s"):")
            for problem in problems {
                output.writeLine("\(problem.blocking ? "Refuses to start" : "Problem"): \(problem.text).")
            }
            throw ExitCode(problems.contains(where: \.blocking) ? KioskCommand.unusable : 1)
        }
    }

    struct SetPIN: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-pin",
            abstract: "Set the admin PIN (4 to 12 digits, asked twice, never shown); kept as a salted hash.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Where to keep the PIN's hash (default: kiosk.pin-file, or /etc/assist/kiosk-pin).")
        var pinFile: String?

        func run() throws {
            let file: URL
            if let pinFile {
                file = URL(fileURLWithPath: pinFile)
            } else {
                let settings = SettingsStore()
                _ = settings.loadStandardFiles(explicit: global.config, explicitIsAdmin: true)
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
    }

    struct Hash: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print [kiosk.features] lines for installed features: each id with its library's SHA-256.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Feature ids (default: every installed feature).")
        var ids: [String] = []

        func run() throws {
            let session = try HostSession(options: global, interactive: false, speaks: false)
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
    }

    struct Failed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say that the kiosk keeps failing (run by systemd when the kiosk's start limit is hit).",
            shouldDisplay: false)
        @OptionGroup var global: GlobalOptions
        @Option(help: "The kiosk's unit instance (its terminal).")
        var instance = "tty1"

        func run() throws {
            let session = try HostSession(options: global, interactive: false, speaks: !global.noSpeech)
            let line =
                "Assist keeps failing: it stopped \(KioskUnits.startLimitBurst) times within \(KioskUnits.startLimitSeconds / 60) minutes and will not be started again until this device restarts. Please tell the person who looks after it."
            session.logger.critical(
                "Assist keeps failing on \(instance): the start limit was hit; journalctl -u assist-kiosk@\(instance) shows why"
            )
            session.announcer.say(line, priority: .important)
            session.shutdown(drainSeconds: 20)
        }
    }
}

/// Reads a line with the terminal's echo off (or a plain line from a pipe, for scripts).
struct SecretLineReader {
    func read(prompt: String) -> String? {
        let terminal = isatty(0) == 1
        var saved = termios()
        if terminal {
            FileHandle.standardError.write(Data(prompt.utf8))
            tcgetattr(0, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        defer {
            if terminal {
                tcsetattr(0, TCSAFLUSH, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        return readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces)
    }
}

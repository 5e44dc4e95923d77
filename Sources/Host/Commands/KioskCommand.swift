import ArgumentParser
import AssistApp
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

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "start",
            abstract:
                "The kiosk itself (the default): the shell with only the allowed features, left by the admin gesture and PIN."
        )
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try KioskRun.start(options: global.host)
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a kiosk set-up without starting it: each problem on a line, with what to do.",
            discussion: "Exit codes: 0 ready; 1 something is wrong; 78 the kiosk would refuse to start.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try KioskRun.check(options: global.host)
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
            let session = try HostSession(options: global.host, interactive: false, speaks: false)
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
            let session = try HostSession(options: global.host, interactive: false, speaks: !global.noSpeech)
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

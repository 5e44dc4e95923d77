import ArgumentParser
import AssistApp

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
            Failed.self, View.self,
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

        func run() throws { try KioskRun.setPIN(config: global.config, pinFile: pinFile) }
    }

    struct Hash: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print [kiosk.features] lines for installed features: each id with its library's SHA-256.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Feature ids (default: every installed feature).")
        var ids: [String] = []

        func run() throws { try KioskRun.printHashes(options: global.host, ids: ids) }
    }

    struct View: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Show the kiosk's large print view full-screen: Chromium in cage, once the kiosk's page answers (run by assist-kiosk-view@.service).",
            discussion: "Exit codes: 78 cage or the browser is missing (the message names the package).")
        @OptionGroup var global: QuietGlobalOptions
        @Option(help: "How long to wait for the kiosk's page, in seconds.")
        var waitSeconds = 60

        func run() throws { try KioskView.open(options: global.host, waitSeconds: waitSeconds) }
    }

    struct Failed: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say that the kiosk keeps failing (run by systemd when the kiosk's start limit is hit).",
            shouldDisplay: false)
        @OptionGroup var global: GlobalOptions
        @Option(help: "The kiosk's unit instance (its terminal).")
        var instance = "tty1"

        func run() throws { try KioskRun.sayFailing(options: global.host, instance: instance) }
    }
}

import ArgumentParser
import AssistApp
import AssistCore
import Foundation
import Kiosk

/// `assist kiosk install`: writes the kiosk's systemd units, makes its user, and enables it on a terminal.
struct KioskInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install the kiosk as a systemd service on a terminal (as root).",
        discussion: """
            Writes assist-kiosk@.service and assist-kiosk-failed@.service (and assist-kiosk-view@.service when \
            [kiosk] view = true), makes the user if missing (a system user in the audio and video groups), then \
            enables and starts assist-kiosk@TTY.service (and assist-kiosk-view@VIEW-TTY.service). With \
            --unit-dir the units are only written there.
            """)

    @Option(help: "The user the kiosk runs as (made if missing; added to the audio and video groups).")
    var user = "assist"
    @Option(help: "The terminal the kiosk takes over.")
    var tty = "tty1"
    @Option(help: "A config.toml for the kiosk (default: /etc/assist/config.toml and conf.d only).")
    var config: String?
    @Option(help: "Write the unit files here and do nothing else (default: /etc/systemd/system, then enable).")
    var unitDir: String?
    @Option(help: "The assist the units start (default: this one; packages give /usr/bin/assist).")
    var executable: String?
    @Option(help: "The terminal the large print view takes, with [kiosk] view = true.")
    var viewTty = "tty7"

    func validate() throws {
        for (option, value) in [("--tty", tty), ("--view-tty", viewTty)] {
            guard value.range(of: #"^tty[0-9]{1,2}$"#, options: .regularExpression) != nil else {
                throw ValidationError("\(option) takes a console terminal like tty1, not \(value).")
            }
        }
        guard tty != viewTty else { throw ValidationError("--view-tty must be another terminal than --tty.") }
        guard user.range(of: #"^[a-z_][a-z0-9_-]{0,31}$"#, options: .regularExpression) != nil else {
            throw ValidationError("--user takes a user name like assist, not \(user).")
        }
    }

    func run() throws {
        var installer = KioskInstaller(user: user, tty: tty, config: config, unitDir: unitDir, executable: executable)
        installer.viewTTY = viewTty
        try installer.install()
    }
}

/// `assist kiosk uninstall`: stops the kiosk and removes its units (the user and the data stay).
struct KioskUninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Stop the kiosk and remove its systemd units (as root); the user and its data stay.")

    @Option(help: "Remove the unit files from here only (default: /etc/systemd/system, after disabling).")
    var unitDir: String?

    func run() throws {
        let folder = URL(fileURLWithPath: unitDir ?? "/etc/systemd/system")
        if unitDir == nil {
            // Every instance, whichever terminal it took.
            _ = SystemCommand.run(
                "/usr/bin/systemctl", ["disable", "--now", "assist-kiosk@*.service", "assist-kiosk-view@*.service"])
        }
        var removed = 0
        for name in [KioskUnits.name, KioskUnits.failedName, KioskUnits.viewName] {
            let url = folder.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            do { try FileManager.default.removeItem(at: url) } catch {
                throw CLIFailure(
                    message: "\(url.path) cannot be removed: \(error.localizedDescription). Run it as root.")
            }
            print("Removed \(url.path).")
            removed += 1
        }
        if unitDir == nil { _ = SystemCommand.run("/usr/bin/systemctl", ["daemon-reload"]) }
        if removed == 0 { print("No kiosk units were installed in \(folder.path).") }
    }
}

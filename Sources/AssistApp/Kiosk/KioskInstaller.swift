import AssistCore
import Foundation
import Kiosk

/// `assist kiosk install`: writes the kiosk's systemd units, makes its user, and enables it on a terminal.
package struct KioskInstaller {
    /// The user the kiosk runs as (made if missing; added to the audio and video groups).
    package var user: String
    /// The terminal the kiosk takes over.
    package var tty: String
    /// A config.toml for the kiosk.
    package var config: String?
    /// Write the unit files here and do nothing else.
    package var unitDir: String?
    /// The assist the units start (default: this one).
    package var executable: String?
    /// The terminal the large print view takes (`[kiosk] view = true`).
    package var viewTTY = "tty7"

    package init(user: String, tty: String, config: String?, unitDir: String?, executable: String?) {
        self.user = user
        self.tty = tty
        self.config = config
        self.unitDir = unitDir
        self.executable = executable
    }

    package func install() throws {
        let folder = URL(fileURLWithPath: unitDir ?? "/etc/systemd/system")
        let executable = self.executable ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let settings = SettingsStore()
        _ = settings.loadStandardFiles(explicit: config, explicitIsAdmin: true)
        let pinFile = KioskConfig(settings: settings).pinFile.path
        let configPath = config.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let units = [
            (
                KioskUnits.name,
                KioskUnits.kiosk(executable: executable, user: user, config: configPath, pinFile: pinFile)
            ),
            (KioskUnits.failedName, KioskUnits.failed(executable: executable, user: user)),
        ]
        // The large print view (docs/kiosk.md): Chromium in cage on a terminal of its own.
        let withView = settings.value("kiosk.view")?.flag ?? false
        let viewUnits =
            withView
            ? [(KioskUnits.viewName, KioskUnits.view(executable: executable, user: user, config: configPath))] : []
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, text) in units + viewUnits {
                let url = folder.appendingPathComponent(name)
                try Data(text.utf8).write(to: url, options: .atomic)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
                print("Wrote \(url.path).")
            }
        } catch {
            throw CLIFailure(
                message:
                    "The unit files cannot be written to \(folder.path): \(error.localizedDescription). Run it as root."
            )
        }
        let instance = "assist-kiosk@\(tty).service"
        let viewInstance = withView ? ["assist-kiosk-view@\(viewTTY).service"] : []
        guard unitDir == nil else {
            print(
                "Enable it with: systemctl daemon-reload && systemctl enable --now "
                    + ([instance] + viewInstance).joined(separator: " "))
            return
        }
        try makeUser()
        for arguments in [["daemon-reload"], ["enable", "--now", instance] + viewInstance] {
            let status = SystemCommand.run("/usr/bin/systemctl", arguments)
            guard status == 0 else {
                throw CLIFailure(
                    message:
                        "systemctl \(arguments.joined(separator: " ")) failed (status \(status)); the units are written. Check that systemd runs here."
                )
            }
        }
        print("The kiosk runs on \(tty) as \(user). assist kiosk check says whether its set-up is complete.")
    }

    /// Makes `user` a system user with a home when missing, and puts it in the audio and video groups.
    private func makeUser() throws {
        if getpwnam(user) == nil {
            let status = SystemCommand.run(
                "/usr/sbin/useradd",
                [
                    "--system", "--create-home", "--home-dir", "/var/lib/\(user)", "--shell", "/usr/sbin/nologin",
                    "--groups", "audio,video", user,
                ])
            guard status == 0 else {
                throw CLIFailure(message: "The user \(user) could not be made (useradd status \(status)).")
            }
            print("Made the system user \(user), in the audio and video groups.")
        } else {
            let status = SystemCommand.run("/usr/sbin/usermod", ["--append", "--groups", "audio,video", user])
            guard status == 0 else {
                throw CLIFailure(
                    message: "\(user) could not be added to the audio and video groups (usermod status \(status)).")
            }
        }
    }
}

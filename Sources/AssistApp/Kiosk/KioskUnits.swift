import Foundation

/// The systemd units of a kiosk (`assist kiosk install` writes them, `uninstall` removes them):
/// `assist-kiosk@.service`, one instance per terminal (`assist-kiosk@tty1.service`), and
/// `assist-kiosk-failed@.service`, which says "Assist keeps failing" when the start limit is hit instead of
/// a restart loop.
package enum KioskUnits {
    package static let name = "assist-kiosk@.service"
    package static let failedName = "assist-kiosk-failed@.service"
    /// Five failed starts within five minutes end the restarts.
    package static let startLimitBurst = 5
    package static let startLimitSeconds = 300
    /// systemd restarts a kiosk whose main loop has not turned for this long.
    package static let watchdogSeconds = 10

    /// The kiosk's unit, running `executable` as `user`.
    package static func kiosk(executable: String, user: String, config: String?, pinFile: String) -> String {
        let configOption = config.map { " --config \(quoted($0))" } ?? ""
        return """
            # Written by `assist kiosk install`; `assist kiosk uninstall` removes it. See man assist and
            # /usr/share/doc/assist/kiosk.md. One instance per terminal: assist-kiosk@tty1.service.
            [Unit]
            Description=Assist kiosk on %I
            Documentation=man:assist(1)
            After=systemd-user-sessions.service plymouth-quit-wait.service sound.target
            After=getty@%i.service
            Conflicts=getty@%i.service
            StartLimitIntervalSec=\(startLimitSeconds)
            StartLimitBurst=\(startLimitBurst)
            OnFailure=assist-kiosk-failed@%i.service
            # Stopped on purpose (the admin menu, or systemctl stop): the terminal's login comes back.
            OnSuccess=getty@%i.service

            [Service]
            Type=notify
            NotifyAccess=main
            ExecStart=\(quoted(executable)) kiosk\(configOption)
            User=\(user)
            SupplementaryGroups=audio video
            WorkingDirectory=~
            LoadCredential=kiosk-pin:\(pinFile)
            WatchdogSec=\(watchdogSeconds)
            TimeoutStartSec=30
            TimeoutStopSec=20
            Restart=always
            RestartSec=500ms
            # 3: stopped from the admin menu.
            SuccessExitStatus=3
            RestartPreventExitStatus=3
            TTYPath=/dev/%I
            TTYReset=yes
            TTYVHangup=yes
            TTYVTDisallocate=yes
            StandardInput=tty-force
            StandardOutput=tty
            StandardError=journal
            SyslogIdentifier=assist
            UtmpIdentifier=%I
            UtmpMode=user
            NoNewPrivileges=yes
            PrivateTmp=yes
            ProtectSystem=full
            ProtectKernelTunables=yes
            ProtectControlGroups=yes
            RestrictSUIDSGID=yes

            [Install]
            WantedBy=multi-user.target
            DefaultInstance=tty1

            """
    }

    /// Says on the kiosk's terminal, and logs, that the kiosk keeps failing; then gives the terminal its login.
    package static func failed(executable: String, user: String) -> String {
        """
        # Written by `assist kiosk install`: started when assist-kiosk@%i.service hits its start limit.
        [Unit]
        Description=Tell that the Assist kiosk on %I keeps failing
        Documentation=man:assist(1)
        OnSuccess=getty@%i.service
        OnFailure=getty@%i.service

        [Service]
        Type=oneshot
        ExecStart=\(quoted(executable)) kiosk failed --instance %I
        User=\(user)
        SupplementaryGroups=audio
        TTYPath=/dev/%I
        StandardInput=null
        StandardOutput=tty
        StandardError=journal
        SyslogIdentifier=assist
        TimeoutStartSec=60

        """
    }

    /// The kiosk's large print view (`[kiosk] view = true`): `assist kiosk view` waits for the kiosk's page, then
    /// runs Chromium full-screen in `cage` on this terminal, in a login session of its own (logind gives cage the
    /// seat). The keyboard is the page's then: its keys reach the kiosk as the terminal's would, the admin gesture
    /// and PIN among them.
    package static let viewName = "assist-kiosk-view@.service"

    package static func view(executable: String, user: String, config: String?) -> String {
        let configOption = config.map { " --config \(quoted($0))" } ?? ""
        return """
            # Written by `assist kiosk install` for a kiosk with view = true; `assist kiosk uninstall` removes it.
            # See /usr/share/doc/assist/kiosk.md. One instance per terminal: assist-kiosk-view@tty7.service.
            [Unit]
            Description=Assist kiosk's large print view on %I
            Documentation=man:assist(1)
            After=systemd-user-sessions.service assist-kiosk@tty1.service
            After=getty@%i.service
            Conflicts=getty@%i.service

            [Service]
            ExecStart=\(quoted(executable)) kiosk view\(configOption)
            User=\(user)
            SupplementaryGroups=video render input
            PAMName=login
            WorkingDirectory=~
            TTYPath=/dev/%I
            TTYReset=yes
            TTYVHangup=yes
            TTYVTDisallocate=yes
            StandardInput=tty-fail
            StandardOutput=journal
            StandardError=journal
            SyslogIdentifier=assist-view
            UtmpIdentifier=%I
            UtmpMode=user
            Restart=always
            RestartSec=2s
            # 78: cage or the browser is missing (the journal says which package to install).
            RestartPreventExitStatus=78

            [Install]
            WantedBy=graphical.target
            DefaultInstance=tty7

            """
    }

    /// A path as systemd reads it in ExecStart= (quoted when it has a space).
    package static func quoted(_ text: String) -> String {
        text.contains(" ") ? "\"\(text.replacingOccurrences(of: "\"", with: "\\\""))\"" : text
    }
}

import ArgumentParser
import AssistApp
import AssistCore
import Audio
import Foundation
import Interaction
import PluginHost
import Voice

/// `assist doctor`: checks every dependency and device and says how to fix what is missing.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check devices, voices, languages, models, plugins and folders; each problem comes with a fix.",
        discussion: "Exit codes: 0 Assist can run (warnings may remain); 1 something it needs is broken."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let session = try HostSession(options: global.host, interactive: false)
        let checks = HealthChecks(session: session)
        var broken = false
        for result in checks.all() {
            print(checks.line(result))
            if result.level == .broken { broken = true }
        }
        if broken { throw ExitCode(1) }
    }
}

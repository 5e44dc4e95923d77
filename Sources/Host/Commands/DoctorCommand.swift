import ArgumentParser
import AssistApp

/// `assist doctor`: checks every dependency and device and says how to fix what is missing.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check devices, voices, languages, models, plugins and folders; each problem comes with a fix.",
        discussion: "Exit codes: 0 Assist can run (warnings may remain); 1 something it needs is broken."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws { try Doctor.run(global.host) }
}

import ArgumentParser
import AssistApp
import Foundation

/// `assist survey …`: the survey plugin's verbs as host commands. Each starts the plugin `assist.survey` with
/// the verb as its first argument (as `assist run survey VERB …` would); the plugin does the work.
struct SurveyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "survey",
        abstract: "Answer a survey, check a definition, export kept answers, and set up reminders.",
        subcommands: [Start.self, Check.self, Export.self, Reminders.self, Remind.self, Sync.self, Forget.self],
        defaultSubcommand: Start.self
    )

    static let pluginID = "assist.survey"

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Answer the survey now (the default).")
        @OptionGroup var survey: SurveyOptions

        func run() throws { try survey.run(["start"]) }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check survey definition files; each problem on its own line with the item and the fix.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Definition files (JSON).") var files: [String]

        func run() throws { try FeatureRun.run(global.host, id: pluginID, arguments: ["check"] + files) }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the answers kept on this device: JSON lines, or CSV with --csv.")
        @OptionGroup var survey: SurveyOptions
        @Flag(help: "CSV with a header line instead of JSON lines.") var csv = false

        func run() throws { try survey.run(["export"] + (csv ? ["--csv"] : []), dataCommand: true) }
    }

    struct Reminders: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install (on) or remove (off) the systemd user timer that reminds the participant.")
        @OptionGroup var survey: SurveyOptions
        @Argument(help: "on or off.") var state: String

        func validate() throws {
            guard state == "on" || state == "off" else { throw ValidationError("Say on or off, not \(state).") }
        }

        func run() throws { try survey.run(["reminders", state]) }
    }

    struct Remind: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Speak the reminder when one is due (run by the timer); quiet otherwise.")
        @OptionGroup var survey: SurveyOptions

        func run() throws { try survey.run(["remind"]) }
    }

    struct Sync: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send the kept answers that still wait, without asking anything; end once none is on its way.")
        @OptionGroup var survey: SurveyOptions
        // Unconditional: "-1" is taken as the value (and refused below), not as an option named 1.
        @Option(parsing: .unconditional, help: "Give up waiting after this many seconds (1 to 3600).")
        var wait: Double = 120

        func validate() throws {
            guard (1...3600).contains(wait) else {
                throw ValidationError("--wait must be 1 to 3600 seconds, not \(wait.formatted())")
            }
        }

        func run() throws { try survey.run(["sync", "--wait", String(wait)]) }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the account, tokens, drafts and kept answers of a survey from this device.")
        @OptionGroup var survey: SurveyOptions
        @Flag(help: "Confirm the deletion.") var yes = false

        func run() throws { try survey.run(["forget"] + (yes ? ["--yes"] : [])) }
    }
}

/// The options of the survey commands about one survey: the global ones and which survey.
struct SurveyOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @Option(help: "The survey's id (default: setting survey.definition, else covid19-sounds).")
    var definition: String?

    /// Starts the survey plugin with `arguments` and `--definition` when one was given; a data command's
    /// standard output holds only its data.
    func run(_ arguments: [String], dataCommand: Bool = false) throws {
        var host = global.host
        host.dataCommand = dataCommand
        try FeatureRun.run(
            host, id: SurveyCommand.pluginID, arguments: arguments + (definition.map { ["--definition", $0] } ?? []))
    }
}

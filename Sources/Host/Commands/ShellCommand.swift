import ArgumentParser
import AssistApp
import Foundation
import Interaction
import PluginHost

/// `assist shell`: speaks a menu of features, launches them by number, name or keyword, and comes back to
/// the menu when one ends.
struct ShellCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: "The interactive menu: choose a feature by number, name or keyword."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var viewOptions: ViewOptions

    @Option(
        help: ArgumentHelp(
            "Voice commands for this session: push (say a command after tapping the voice key, F4), always, wake (after \"assist\"), or off. Default: the voice.mode setting, else push.",
            valueName: "mode"))
    var voice: String?

    func validate() throws {
        if let voice, ShellRun.voiceModes[voice.lowercased()] == nil {
            throw ValidationError("--voice takes push, always, wake or off, not \(voice)")
        }
    }

    func run() throws {
        var host = global.host
        host.view = viewOptions.request
        try ShellRun.run(host, voice: voice)
    }
}

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

    /// `--voice` as a `voice.mode` value.
    static let voiceModes = [
        "push": "push-to-talk", "push-to-talk": "push-to-talk", "always": "always", "wake": "wake-word",
        "wake-word": "wake-word", "off": "off",
    ]

    func validate() throws {
        if let voice, Self.voiceModes[voice.lowercased()] == nil {
            throw ValidationError("--voice takes push, always, wake or off, not \(voice)")
        }
    }

    func run() throws {
        var host = global.host
        host.view = viewOptions.request
        let session = try HostSession(options: host, interactive: true)
        if let voice, let mode = Self.voiceModes[voice.lowercased()] {
            // For this session only, as --config would set it; an admin's lock keeps its own.
            if session.settings.isLocked("voice.mode") {
                session.announcer.say("Voice commands are set by your administrator; --voice \(voice) is not used.")
            } else {
                session.settings.apply(["voice.mode": .string(mode)], admin: false)
            }
        }
        ShellMenu.run(session: session, microphone: global.mic)
    }
}

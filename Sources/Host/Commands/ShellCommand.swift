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

    func run() throws {
        let session = try HostSession(options: global.host, interactive: true)
        ShellMenu.run(session: session, microphone: global.mic)
    }
}

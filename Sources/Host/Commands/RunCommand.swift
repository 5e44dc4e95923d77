import ArgumentParser
import AssistApp
import Foundation
import PluginAPI
import PluginHost

/// `assist run ID [ARGS…]`: starts one feature and runs until it finishes or the user stops it.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Start one feature, passing it the remaining arguments.",
        discussion: "Keys while it runs: Escape or q stops, h lists the commands, r repeats the last message."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var viewOptions: ViewOptions

    @Argument(help: "The plugin id, such as assist.clock, or its short name (clock).")
    var id: String

    @Argument(
        parsing: .captureForPassthrough,
        help: "Arguments for the feature. Assist's own options may stand among them; after --, all are the feature's."
    )
    var arguments: [String] = []

    /// The feature's arguments: the first `--`, which only marks where Assist's options end, is dropped.
    var featureArguments: [String] {
        var kept = arguments
        if let separator = kept.firstIndex(of: "--") { kept.remove(at: separator) }
        return kept
    }

    func run() throws {
        var host = global.host
        host.dataCommand = Self.asksForData(featureArguments)
        host.view = viewOptions.request
        try FeatureRun.run(host, id: id, arguments: featureArguments)
    }

    /// A feature's data commands (`status --json`, `--csv`, read-text's `--transcript`): standard output is
    /// kept for their data, and what is said goes to standard error. (photo-sensor's `export` writes files.)
    static func asksForData(_ arguments: [String]) -> Bool {
        arguments.contains { ["--json", "--csv", "--transcript"].contains($0) }
    }
}

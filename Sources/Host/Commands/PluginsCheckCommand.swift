import ArgumentParser
import AssistApp
import AssistCore
import Foundation
import PluginHost
import Voice

/// `assist plugins check PATH`: validates a plugin, then runs it. The library is first opened in a child
/// process with a deadline, so a crash in its code is a result, not an abort; then `PluginValidator` runs it
/// for real in a helper process, twice over, with time limits (`--no-run` skips that).
struct PluginsCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a plugin folder, manifest or library, then run it in a helper process.",
        discussion: """
            It starts the plugin with no arguments and with odd ones, sends every command, pauses, resumes, \
            stops and destroys it, twice, against Assist's services in a scratch folder, then says what it \
            used against what its manifest declares. Each failure is one line. Exit codes: 0 it passes; 1 it \
            fails a check (asking for what it did not declare is one); 2 it crashed or hung.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A plugin folder, its manifest.json, or its library.")
    var path: String

    @Option(help: "Seconds the library may take to load and initialise, and each call may take when it runs.")
    var timeout: Double = 10

    @Flag(help: "Only load and initialise it; do not run it.")
    var noRun = false

    @Flag(help: "Print the result as one JSON object (for a third party's CI).")
    var json = false

    func run() throws {
        try PluginCheck(options: global.host, path: path, timeout: timeout, noRun: noRun, json: json).run()
    }
}

import ArgumentParser
import AssistApp

/// `assist events [--follow]`: prints the events of running Assist sessions as JSON lines.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print Assist's events as JSON lines (plugins started and stopped, the camera, plugins' own).")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Keep printing new events as they happen, until interrupted.")
    var follow = false

    @Option(help: "Only events whose name starts with this (assist.plugin.).")
    var prefix: String = ""

    // Unconditional: "-1" is taken as the value (and refused below), not as an option named 1.
    @Option(parsing: .unconditional, help: "How many past events to print first (0 to 100000).")
    var last: Int = 20

    func validate() throws {
        guard (0...100_000).contains(last) else {
            throw ValidationError("--last must be a count from 0 to 100000, not \(last)")
        }
    }

    func run() throws { try EventsPrinting.run(global.host, follow: follow, prefix: prefix, last: last) }
}

import ArgumentParser
import AssistApp
import Foundation
import Interaction
import Outbox
import PluginHost

/// `assist outbox [status|send]`: what waits to be uploaded, and sending it now.
struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Show the uploads waiting in the outbox, or send them now.",
        subcommands: [Status.self, Send.self], defaultSubcommand: Status.self)

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List waiting uploads (credentials are never shown) and outcomes not yet collected.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let session = try HostSession(options: global.host, interactive: false, speaks: false)
            let store = try session.services.outbox.store()
            let jobs = try store.jobs()
            let damaged = try store.unreadableJobs()
            let output = StandardOutput()
            let count = jobs.count + damaged.count
            output.writeLine(count == 0 ? "The outbox is empty." : "\(count) waiting:")
            for entry in damaged {
                output.writeLine(
                    "\(entry.id) \(entry.owner): damaged and cannot be read; 'assist outbox send' sets it aside as "
                        + "failed so the rest can go")
            }
            let now = Date().timeIntervalSince1970
            for entry in jobs {
                var line = "\(entry.job.id) \(entry.job.owner) \(entry.job.request.loggable)"
                line += ", \(entry.state), attempt \(entry.job.attempts + 1) of \(entry.job.maxAttempts)"
                if entry.nextTry > now { line += ", next try in \(Int((entry.nextTry - now).rounded(.up))) s" }
                if let error = entry.lastError { line += ", last: \(error)" }
                output.writeLine(line)
            }
            let owners = Set(jobs.map(\.job.owner)).union(session.features.records.map(\.id))
            for owner in owners.sorted() {
                let waiting = try store.outcomes(owner: owner).count
                if waiting > 0 { output.writeLine("\(waiting) outcomes wait for \(owner).") }
            }
        }
    }

    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send what is due now and wait until nothing more is due (later retries stay queued).")
        @OptionGroup var global: GlobalOptions

        // Unconditional: "-1" is taken as the value (and refused below), not as an option named 1.
        @Option(parsing: .unconditional, help: "Give up waiting after this many seconds (0 to 86400).")
        var timeout: Double = 600

        @Flag(help: "Make every waiting upload due now first, instead of after its retry pause.")
        var now = false

        func validate() throws {
            guard (0...86_400).contains(timeout) else {
                throw ValidationError("--timeout must be 0 to 86400 seconds, not \(timeout.formatted())")
            }
        }

        func run() throws {
            let session = try HostSession(options: global.host, interactive: false, speaks: false)
            let outbox = session.services.outbox
            if now { try outbox.store().wake(now: Date().timeIntervalSince1970) }
            try outbox.start()
            let idle = outbox.waitUntilIdle(timeout: timeout)
            outbox.stopAndFinishExchanges(timeout: 0)
            // Say what the user must act on (refused credentials, given-up uploads), queued on the main loop.
            session.loop.drain(timeoutSeconds: 0.5)
            let left = try outbox.store().pendingCount()
            StandardOutput().writeLine(
                left == 0 ? "Everything was sent." : "\(left) uploads still wait; 'assist outbox' lists them.")
            if !idle { throw CLIFailure(message: "The outbox was still busy after \(Int(timeout)) s.") }
        }
    }
}

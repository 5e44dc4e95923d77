import ArgumentParser
import AssistApp
import Foundation
import PluginHost

/// `assist _probe MANIFEST LIBDIR`: the child side of `plugins check` and `plugins install`. Opens the library
/// where a session would (a stranger's plugin in its sandboxed helper), checks the entry, and balances
/// init/deinit twice. Prints one line; exit 0 pass, 1 fail, 2 its helper died loading it.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "_probe", shouldDisplay: false)

    @OptionGroup var global: GlobalOptions

    @Argument var manifest: String
    @Argument var libraryDirectory: String

    func run() throws {
        let session = try HostSession(options: global.host, interactive: false)
        let record = session.features.inspect(
            manifestURL: URL(fileURLWithPath: manifest), libraryDirectory: URL(fileURLWithPath: libraryDirectory))
        let started = DispatchTime.now().uptimeNanoseconds
        if let refusal = session.features.load(record) {
            // A helper that died loading the library is a crash, as a probe that died in-process would be.
            guard refusal.state != .crashed else {
                let how = record.helperEnd ?? "ended while loading"
                throw CLIFailure(
                    message: "its helper process \(how); the plugin's init or load code is faulty",
                    exitCode: ChildProbe.crashStatus)
            }
            throw CLIFailure(message: "\(record.id): \(refusal.state.rawValue): \(refusal.message)")
        }
        let initMs = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        guard let entry = record.entry, let context = record.context, let initialise = entry.`init`,
            let deinitialise = entry.deinit
        else { throw CLIFailure(message: "\(record.id): the entry table was not kept") }
        // Refcounted init: a second init must succeed and each init gets one deinit.
        guard initialise(context.host) else {
            throw CLIFailure(
                message: "\(record.id): failed-init: a second init returned false; init must be refcounted")
        }
        deinitialise()
        deinitialise()
        let version = record.manifest?.version ?? "?"
        let slow =
            initMs > 50 ? " (warning: loading and init took \(String(format: "%.0f", initMs)) ms, over 50 ms)" : ""
        print("\(record.id) \(version): loads, and its init and deinit balance\(slow)")
    }
}

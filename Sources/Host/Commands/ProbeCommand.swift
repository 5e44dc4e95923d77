import ArgumentParser
import AssistApp
import Foundation
import PluginHost

/// `assist _probe MANIFEST LIBDIR`: the child side of `plugins check`. Opens the library, checks the entry,
/// and balances init/deinit twice. Prints one line; exit 0 pass, 1 fail.
struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "_probe", shouldDisplay: false)

    @OptionGroup var global: GlobalOptions

    @Argument var manifest: String
    @Argument var libraryDirectory: String

    func run() throws {
        let session = try HostSession(options: global.host, interactive: false)
        let record = PluginDiscovery.inspect(
            manifestURL: URL(fileURLWithPath: manifest), libraryDirectory: URL(fileURLWithPath: libraryDirectory),
            availableServices: HostServices.serviceIDs
        )
        let started = DispatchTime.now().uptimeNanoseconds
        if let refusal = session.features.load(record) {
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
        print("\(record.id) \(version): passes the checks\(slow)")
    }
}

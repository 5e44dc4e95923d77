import AssistCore
import Foundation
import HostTesting
import Outbox
import PluginHost
import Testing

/// The in-process test host is wired by the same `HostAssembly` as `assist`, so what the host does beside the
/// plugins (speaking outbox trouble, writing the events journal) happens in tests too.
@Suite("One composition root")
struct HostAssemblyTests {
    /// `shell.digit-wait-seconds` reaches the dialogs (2 s when unset; issue 72: 1.5 s lost second digits).
    @Test func theDigitWaitIsTheSetting() throws {
        #expect(try TestHost(pluginDirectories: []).services.interaction.dialogs.digitPauseMilliseconds == 2_000)
        let settings = SettingsStore()
        settings.apply(["shell.digit-wait-seconds": .double(3.5)], admin: false)
        let host = try TestHost(pluginDirectories: [], settings: settings)
        #expect(host.services.interaction.dialogs.digitPauseMilliseconds == 3_500)
    }

    @Test func anUploadGivenUpIsSpokenAndTheJournalIsWritten() throws {
        let host = try TestHost(pluginDirectories: [])
        // Port 9 on loopback refuses at once; one attempt, so the job is given up.
        _ = try host.services.outbox.store().enqueue(
            owner: "org.test.uploader", request: OutboxRequest(method: "GET", url: "http://127.0.0.1:9/"),
            maxAttempts: 1)
        host.services.outbox.startIfJobsWait()
        defer { host.services.outbox.stop() }
        let output = host.output
        let spoken = host.run(timeoutSeconds: 20, until: { output.lines.contains { $0.contains("could not be sent") } })
        #expect(spoken, "\(output.lines)")
        #expect(output.lines.contains { $0.hasPrefix("An upload from org.test.uploader could not be sent") })

        host.services.events.publish("org.test.ping", json: nil)
        host.settle(0.2)
        let journal = host.dataDirectory.path("events.jsonl")
        let text = try String(contentsOf: journal, encoding: .utf8)
        #expect(text.contains("assist.outbox.failed") && text.contains("org.test.ping"), "\(text)")
    }

    /// Help read out is a list a key stops (issue 72: its lines are printed as they are heard, so help left to
    /// read to the end would hold the screen back for half a minute after the person has moved on).
    @Test func helpIsAListTheNextKeyStops() throws {
        let host = try TestHost(pluginDirectories: [])
        host.features.speakHelp()
        let speaker = host.speaker
        #expect(speaker.spoken.count > 3 && speaker.groups.allSatisfy { $0 == .list }, "\(speaker.spoken)")
        host.input(.key(.character("r")))
        #expect(speaker.cancels.contains(.list), "\(speaker.cancels)")
    }
}

import Foundation
import HostTesting
import Interaction
import PluginABI
import PluginAPI
import PluginHost
import Testing

/// A C99 plugin compiled against the v1.0 header is loaded and driven through the dialog and command
/// services, as a third party's would be.
@Suite("ABI v1.0 with a C plugin")
struct ABITests {
    let root: TemporaryDirectory
    let host: TestHost
    let plugin: PluginRecord

    init() throws {
        root = try TemporaryDirectory("assist-abi")
        try CPluginBuilder(root: root.url).build(folder: "c", manifest: CPluginBuilder.manifest(id: "org.test.plugin"))
        host = try TestHost(pluginDirectories: [root.url])
        plugin = try #require(host.features.record(id: "org.test.plugin"))
    }

    /// The 1.0 layout through each struct's last 1.0 field (the same as `assist_plugin.c` pins), which stays
    /// true when a minor version appends fields (`scripts/abi-compat.sh` builds this suite against 1.1 too).
    @Test func headerLayoutIsTheOneShipped() {
        #expect(assist_host.minimumSize == 48)
        #expect(assist_plugin.minimumSize == 80)
        #expect(assist_entry.minimumSize == 56)
        #expect(assist_frame.minimumSize == 80)
        #expect(assist_dialog_result.minimumSize == 32)
        #expect(assist_value.minimumSize == 40)
        #expect(assist_outbox_request.minimumSize == 112)
    }

    @Test func aChoiceDialogReachesThePluginAndItFinishes() throws {
        let features = host.features
        let ended = EndRecorder()
        features.onFeatureEnded = { record, status in ended.record(record.id, status) }
        let plugin = self.plugin
        host.run(until: { true }) { _ = features.activate(plugin) }
        host.settle()
        #expect(host.output.lines.contains("Pick a colour."))
        #expect(host.output.lines.contains("2. Green"))
        host.input(.key(.character("2")))
        host.settle(0.1)
        #expect(host.output.lines.contains("You chose number 2."))
        #expect(ended.events == [EndRecorder.Event(id: "org.test.plugin", status: 0)])
        #expect(features.focused == nil)
    }

    @Test func typedWordsChooseAndEscapeCancels() throws {
        let features = host.features
        let plugin = self.plugin
        host.run(until: { true }) { _ = features.activate(plugin) }
        host.settle()
        host.input(.line("blue"))
        #expect(host.output.lines.contains("You chose number 3."))
        host.run(until: { true }) { _ = features.activate(plugin) }
        host.settle()
        host.input(.key(.escape))
        #expect(host.output.lines.contains("No choice: ASSIST_E_CANCELLED."))
    }

    @Test func commandsAreRoutedToTheFocusedFeature() throws {
        let features = host.features
        let plugin = self.plugin
        host.run(until: { true }) { _ = features.activate(plugin, arguments: ["--stay"]) }
        host.settle()
        #expect(host.output.lines.contains("Staying until stopped."))
        host.input(.key(.right))
        host.input(.line("next"))
        host.input(.key(.character("]")))
        #expect(host.output.lines.filter { $0 == "Command next." }.count == 2)
        #expect(host.output.lines.contains("Command faster."))
        host.input(.key(.space))
        #expect(features.isPaused)
        host.input(.key(.space))
        #expect(!features.isPaused)
        host.input(.key(.character("r")))
        #expect(host.output.lines.last == "Command faster.")
        host.input(.key(.escape))
        #expect(host.output.lines.contains("Test plugin stopped."))
        #expect(features.focused == nil)
    }

    @Test func aStartErrorIsSpokenAndTheFeatureEnds() throws {
        let features = host.features
        let plugin = self.plugin
        let result = ResultBox()
        host.run(until: { true }) { result.value = features.activate(plugin, arguments: ["--fail"]) }
        host.settle()
        #expect(result.value == false)
        #expect(host.speaker.spoken.contains("The test plugin was told to fail."))
        #expect(features.focused == nil)
    }

    @Test func helpListsHostAndFeatureCommands() throws {
        let features = host.features
        let plugin = self.plugin
        host.run(until: { true }) { _ = features.activate(plugin, arguments: ["--stay"]) }
        host.settle()
        host.input(.key(.character("h")))
        let lines = host.output.lines
        #expect(lines.contains("Commands for Test org.test.plugin:"))
        #expect(lines.contains { $0.hasPrefix("Stop: Escape, q") })
        #expect(lines.contains("Command help."))
    }
}

final class EndRecorder: @unchecked Sendable {  // because: `stored` is guarded by `lock`
    struct Event: Equatable {
        var id: String
        var status: Int32
    }

    private let lock = NSLock()
    private var stored: [Event] = []

    func record(_ id: String, _ status: Int32) {
        lock.lock()
        stored.append(Event(id: id, status: status))
        lock.unlock()
    }

    var events: [Event] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

// because: set on the loop thread, read after the loop returns on the same thread
final class ResultBox: @unchecked Sendable {
    var value: Bool?
}

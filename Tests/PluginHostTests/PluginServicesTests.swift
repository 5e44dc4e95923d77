import AssistCore
import Foundation
import HostTesting
import Interaction
import PluginAPI
import PluginHost
import PluginKit
import Speech
import Testing

/// The C service tables reach a plugin's host only through its `PluginServices`: a context served by other
/// values than the host's own (as a helper process will serve one) gets every call there, bound to the
/// plugin, and the host's shared objects hear nothing.
@Suite("Per-plugin services behind protocols")
struct PluginServicesTests {
    let folder: TemporaryDirectory
    let host: TestHost
    let manifest: PluginManifest

    init() throws {
        folder = try TemporaryDirectory("assist-services")
        let manifestURL = folder.path("manifest.json")
        try JSONSerialization.data(withJSONObject: CPluginBuilder.manifest(id: "org.test.served")).write(
            to: manifestURL)
        manifest = try PluginManifest.load(from: manifestURL)
        host = try TestHost(pluginDirectories: [])
    }

    @Test func everyCallGoesToTheServicesTheContextWasGiven() throws {
        var services = host.services.plugin(manifest, directory: folder.url)
        let speech = RecordingSpeech()
        let settings = MemorySettings(namespaces: manifest.writableNamespaces)
        let events = RecordingEvents()
        services.speech = speech
        services.settings = settings
        services.events = events
        let context = PluginContext(manifest: manifest, services: services)
        let kit = PluginHostHandle(UnsafePointer(context.host))

        let id = try #require(kit.speak("Hello from elsewhere", priority: .important))
        #expect(speech.spoken.values.map(\.text) == ["Hello from elsewhere"])
        #expect(speech.spoken.values.first?.priority == .important)
        kit.stopSpeech(id)
        #expect(speech.stopped.values == [id])

        settings.values["served.colour"] = .string("green")
        #expect(kit.setting("colour") == "green", "a bare key is the plugin's own namespace")
        #expect(kit.setting("served.colour") == "green")

        kit.publish("org.test.served.ping", json: #"{"n":1}"#)
        #expect(events.published.values.map(\.0) == ["org.test.served.ping"])

        // The host's own speech and settings heard nothing of it.
        #expect(host.services.settings.value("served.colour") == nil)
        #expect(!host.services.events.publish("not json", json: "{"), "the real bus still checks JSON")
    }

    /// A plugin's thread that calls through `h` after the host let its context go (a worker still finishing a
    /// job at `destroy`) is refused: the table outlives the context, and never reaches freed memory (CI once
    /// aborted read-text with "PluginContext deallocated with non-zero retain count" under ASan).
    @Test func aCallAfterTheContextIsGoneIsRefused() throws {
        var services = host.services.plugin(manifest, directory: folder.url)
        let events = RecordingEvents()
        services.events = events
        var context: PluginContext? = PluginContext(manifest: manifest, services: services)
        let table = UnsafePointer(try #require(context).host)
        let kit = PluginHostHandle(table)
        kit.publish("org.test.served.before", json: "{}")
        weak let gone = context
        context = nil
        #expect(gone == nil, "nothing else keeps the context")
        kit.publish("org.test.served.after", json: "{}")
        #expect(kit.speak("Too late", priority: .important) == nil)
        #expect(events.published.values.map(\.0) == ["org.test.served.before"])
    }

    @Test func aServiceIsBoundToItsPluginSoOwnersNeverCross() throws {
        let first = PluginContext(manifest: manifest, pluginDirectory: folder.url, servedBy: host.services)
        let otherManifestURL = folder.path("other.json")
        try JSONSerialization.data(withJSONObject: CPluginBuilder.manifest(id: "org.test.other")).write(
            to: otherManifestURL)
        let second = PluginContext(
            manifest: try PluginManifest.load(from: otherManifestURL), pluginDirectory: folder.url,
            servedBy: host.services)
        #expect(first.services.session.folders.data.lastPathComponent == "org.test.served")
        #expect(second.services.session.folders.data.lastPathComponent == "org.test.other")
        // A command registered through the second plugin's table is owned by it, whatever the binding said.
        let binding = CommandBinding(
            id: "wave", label: "Wave", key: nil, phrases: ["wave"], scope: .focused, owner: "org.test.served")
        host.loop.post { try? second.services.commands.register(binding) }
        host.settle()
        let router = { host.services.interaction.router }
        #expect(router().allBindings.filter { $0.id == "wave" }.map(\.owner) == ["org.test.other"])
        // Releasing the first plugin's holdings leaves the second's command in place; the second's removes it.
        host.loop.post { first.releaseHoldings() }
        host.settle()
        #expect(router().allBindings.contains { $0.id == "wave" })
        host.loop.post { second.releaseHoldings() }
        host.settle()
        #expect(!router().allBindings.contains { $0.id == "wave" })
    }

    @Test func aSettingOutsideThePluginsNamespacesIsRefusedByTheService() throws {
        let settings = MemorySettings(namespaces: ["served"])
        #expect(throws: PluginSettingsError.outsideNamespace("other.key")) {
            try settings.set("other.key", .int(1))
        }
        try settings.set("key", .int(2))
        #expect(settings.values["served.key"] == .int(2))
    }
}

/// Speech that only remembers what it was asked.
final class RecordingSpeech: SpeechProviding {
    let spoken = Collected<Utterance>()
    let stopped = Collected<UInt64>()
    func speak(_ utterance: Utterance, printed: SpokenLine, callbacks: SpeechCallbacks) -> UInt64? {
        spoken.append(utterance)
        return UInt64(spoken.values.count)
    }
    func stop(_ id: UInt64) -> Bool {
        stopped.append(id)
        return true
    }
    func cancelAll() {}
    func pause() -> Bool { false }
    func resume() {}
    var isSpeaking: Bool { false }
    func print(_ line: String) {}
    func release() {}
}

/// Settings kept in memory under the plugin's namespaces.
final class MemorySettings: SettingsProviding, @unchecked Sendable {  // because: used from one test thread
    var values: [String: SettingValue] = [:]
    let namespaces: [String]
    init(namespaces: [String]) { self.namespaces = namespaces }
    func value(_ key: String) -> SettingValue? { values[SettingsStore.qualify(key, namespaces: namespaces)] }
    func set(_ key: String, _ value: SettingValue) throws(PluginSettingsError) {
        let name = SettingsStore.qualify(key, namespaces: namespaces)
        guard namespaces.contains(where: { name.hasPrefix($0 + ".") }) else { throw .outsideNamespace(name) }
        values[name] = value
    }
}

/// Events that are only remembered.
final class RecordingEvents: EventProviding {
    let published = Collected<(String, String?)>()
    func publish(_ name: String, json: String?) -> Bool {
        published.append((name, json))
        return true
    }
    func subscribe(prefix: String, _ handler: @escaping @Sendable (String, String) -> Void) -> UInt64 { 1 }
    func unsubscribe(_ id: UInt64) {}
    func mayPublish(_ name: String) -> Bool { true }
}

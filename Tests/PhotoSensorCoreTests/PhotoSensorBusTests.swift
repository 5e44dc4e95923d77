import AssistCore
import Foundation
import HostTesting
import PluginHost
import Testing

/// The sensor running in a complete in-process host takes the AWARE command events other plugins post on the
/// bus (spec §3.20), confirms each under the same name, and never takes its own confirmations for commands.
@Suite("photo-sensor bus commands", .serialized)
struct PhotoSensorBusTests {
    let plugins: TemporaryDirectory
    let pictures: TemporaryDirectory
    let host: TestHost
    let server: AwareMicroServer
    let seen = Collected<(String, String)>()

    init() throws {
        plugins = try TemporaryDirectory("assist-photo-bus-plugins")
        pictures = try TemporaryDirectory("assist-photo-bus-pictures")
        let folder = plugins.url.appendingPathComponent("photo-sensor")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (from, name) in [
            (BuildProducts.packageRoot.appendingPathComponent("Plugins/PhotoSensor/manifest.json"), "manifest.json"),
            (BuildProducts.directory.appendingPathComponent("libAssistPhotoSensor.so"), "libAssistPhotoSensor.so"),
        ] {
            try FileManager.default.copyItem(at: from, to: folder.appendingPathComponent(name))
        }
        server = try AwareMicroServer()
        let settings = SettingsStore()
        let values: [String: SettingValue] = [
            "photo-sensor.watchDirectories": .list([pictures.url.path]), "photo-sensor.debounceSeconds": .double(0.1),
            "photo-sensor.serverUrl": .string(server.baseURL), "photo-sensor.studyNumber": .string(server.studyNumber),
            "photo-sensor.studyKey": .string(server.studyKey), "photo-sensor.syncInterval": .double(600),
            "photo-sensor.transparency": .bool(false),
        ]
        for (key, value) in values { settings.setDefault(key, value) }
        let host = try TestHost(pluginDirectories: [plugins.url], settings: settings)
        self.host = host
        let seen = self.seen
        _ = host.services.events.subscribe(prefix: "") { name, json in seen.append((name, json)) }
        let found = host.features.record(id: "assist.photo-sensor")
        try #require(found != nil)
        guard let record = found else { return }
        _ = host.run(until: { record.context?.instance != nil }) { _ = host.features.activate(record) }
        host.settle(0.5)  // the first catch-up (the baseline) on the sensor's worker
    }

    func picture(_ name: String) throws {
        let made = try ProcessRunner.run(
            "/usr/bin/convert", ["-size", "30x20", "xc:navy", pictures.path(name).path])
        try #require(made.status == 0)
    }

    /// Every event so far under `name`, as JSON objects.
    func events(_ name: String) -> [[String: Any]] {
        seen.values.filter { $0.0 == name }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.1.utf8)) as? [String: Any]
        }
    }

    @Test func labelStopStartAndSyncArriveAsEventsAndAreConfirmed() throws {
        let prefix = "com.awareframework.ios.sensor.photos."
        host.services.events.publish(prefix + "SET_LABEL", json: #"{"label":"ward 3"}"#)
        host.settle(0.2)
        try picture("a.jpg")
        _ = host.run(timeoutSeconds: 10, until: { !events(prefix + "ACTION_AWARE_PHOTO_TAKEN").isEmpty }) {}
        #expect(events(prefix + "ACTION_AWARE_PHOTO_TAKEN").first?["label"] as? String == "ward 3")
        #expect(
            events(prefix + "SET_LABEL").contains { $0["source"] as? String == "assist.photo-sensor" },
            "the label is confirmed under the same name")

        host.services.events.publish(prefix + "SENSOR_STOP", json: "{}")
        host.settle(0.3)
        try picture("b.jpg")
        host.settle(0.8)
        #expect(events(prefix + "ACTION_AWARE_PHOTO_TAKEN").count == 1, "nothing is recorded while stopped")
        host.services.events.publish(prefix + "SENSOR_START", json: "{}")
        _ = host.run(timeoutSeconds: 10, until: { events(prefix + "ACTION_AWARE_PHOTO_TAKEN").count == 2 }) {}
        #expect(events(prefix + "ACTION_AWARE_PHOTO_TAKEN").count == 2, "caught up after the start event")

        host.services.events.publish("AwareDBSyncRequest", json: "{}")
        let completion = prefix + "SENSOR_SYNC_COMPLETION"
        _ = host.run(
            timeoutSeconds: 10, until: { events(completion).contains { $0["tableName"] == nil } }
        ) {}
        #expect(server.ids("ios_photos") == [1, 2])
        let overall = events(completion).filter { $0["tableName"] == nil }
        #expect(overall.last?["status"] as? Bool == true, "\(overall)")
        // Its own confirmations never started anything: one stop, one start, one sync each way.
        #expect(events(prefix + "SENSOR_STOP").count == 2 && events(prefix + "SENSOR_START").count == 3)
    }
}

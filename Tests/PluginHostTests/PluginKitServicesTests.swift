import Foundation
import HostTesting
import PluginAPI
import PluginHost
import PluginKit
import Testing

/// PluginKit's typed wrappers (outbox, media files, audio input, storage) driven through the host's real C
/// service tables, in process: what a Swift plugin such as collect-videos or survey calls.
@Suite("PluginKit over the real service tables")
struct PluginKitServicesTests {
    let folder: TemporaryDirectory
    let host: TestHost
    let context: PluginContext
    let kit: PluginHostHandle

    init() throws {
        folder = try TemporaryDirectory("assist-kit")
        let manifestURL = folder.path("manifest.json")
        // It uploads and records: it asks for the network and the microphone.
        let fields = CPluginBuilder.manifest(
            id: "org.test.kit", extra: ["devices": ["microphone", "camera"], "network": ["*"]])
        try JSONSerialization.data(withJSONObject: fields).write(to: manifestURL)
        host = try TestHost(pluginDirectories: [])
        context = PluginContext(
            manifest: try PluginManifest.load(from: manifestURL), pluginDirectory: folder.url, servedBy: host.services)
        kit = PluginHostHandle(UnsafePointer(context.host))
    }

    @Test func tablesAreLookedUpOnceAndEveryServiceIsThere() {
        #expect(kit.tables.outbox != nil && kit.tables.audioIn != nil && kit.tables.storage != nil)
        #expect(kit.tables.speech != nil && kit.tables.cues != nil && kit.tables.camera != nil)
    }

    @Test func anUploadWithAFileIsSentAndItsOutcomeArrivesTyped() throws {
        let server = try LoopbackHTTPServer { request in
            .answer(status: 201, headers: ["orbit-id": "42"], body: Data(#"{"id":42}"#.utf8))
        }
        defer { server.stop() }
        let path = try kit.createMediaFile("clips/cup-1.bin")
        try Data(repeating: 7, count: 50_000).write(to: URL(fileURLWithPath: path))
        var request = OutboxRequest(method: "POST", url: "\(server.baseURL)/api/video/")
        request.headers = [("Authorization", "Token not-logged")]
        request.body = .multipart([
            .field("thing", "7"), .file("file", path: "clips/cup-1.bin", contentType: "video/mp4"),
        ])
        request.tag = "cup-1"
        let job = try kit.enqueue(request)
        #expect(job > 0)
        let arrived = Collected<OutboxOutcome>()
        let kit = self.kit
        host.run(timeoutSeconds: 20, until: { !arrived.values.isEmpty }) {
            try? kit.onOutcome { outcome in
                arrived.append(outcome)
                return true
            }
        }
        let outcome = try #require(arrived.values.first)
        #expect(outcome.job == job && outcome.status == 201 && outcome.tag == "cup-1")
        #expect(outcome.header("ORBIT-ID") == "42" && String(decoding: outcome.body, as: UTF8.self) == #"{"id":42}"#)
        let sent = try #require(server.requests.first)
        #expect(sent.header("Authorization") == "Token not-logged")
        #expect(sent.bodyLength > 50_000 && String(decoding: sent.body, as: UTF8.self).contains(#"name="thing""#))
        #expect(try kit.pendingUploads() == 0)
        let stopped = Collected<Bool>()
        host.run(timeoutSeconds: 1, until: { !stopped.values.isEmpty }) {
            kit.stopOutcomes()
            stopped.append(true)
        }
    }

    @Test func aBadRequestThrowsTheHostsSentence() throws {
        var request = OutboxRequest(method: "POST", url: "ftp://example.org/")
        request.body = .json(Data("{}".utf8))
        #expect {
            try kit.enqueue(request)
        } throws: { error in
            (error as? PluginStatus) == .invalid && !(error as? PluginStatus)!.message.hasPrefix("ASSIST_")
        }
        #expect(throws: PluginStatus.notFound) { try kit.cancel(job: 999_999) }
    }

    @Test func mediaFilesStayInsideTheFolderAndAreCounted() throws {
        let path = try kit.createMediaFile("takes/cough-1.wav")
        #expect(path.hasSuffix("takes/cough-1.wav") && FileManager.default.fileExists(atPath: path))
        try Data(repeating: 1, count: 10_000).write(to: URL(fileURLWithPath: path))
        #expect(try kit.mediaUsage().used >= 10_000)
        #expect(throws: PluginStatus.permission) { try kit.createMediaFile("../outside.wav") }
        let cached = try kit.moveMediaToCache("takes/cough-1.wav")
        #expect(FileManager.default.fileExists(atPath: cached) && !FileManager.default.fileExists(atPath: path))
        try kit.deleteMedia("takes/cough-1.wav", inCache: true)
        #expect(throws: PluginStatus.notFound) { try kit.deleteMedia("takes/cough-1.wav", inCache: true) }
    }

    @Test func aDatabasesMigrationsRunOnceEachAndOnlyTheNewOnesLater() throws {
        let first = [
            "CREATE TABLE seen (name TEXT PRIMARY KEY); INSERT INTO seen VALUES ('cup');"
        ]
        let database = try PluginDatabaseHandle(host: kit, name: "history", migrations: first)
        try database.execute("INSERT INTO seen VALUES ('mug')")
        // Opened again with one more version: the first is not run again (its INSERT would fail on the key).
        let grown = try PluginDatabaseHandle(
            host: kit, name: "history", migrations: first + ["ALTER TABLE seen ADD COLUMN at INTEGER DEFAULT 7;"])
        var rows: [[String]] = []
        try grown.execute("SELECT name, at FROM seen ORDER BY name") { rows.append($0) }
        #expect(rows == [["cup", "7"], ["mug", "7"]])
        // A broken migration is refused with SQLite's reason and leaves the schema as it was.
        #expect(throws: PluginStatus.self) {
            _ = try PluginDatabaseHandle(host: kit, name: "history", migrations: first + ["", "ALTER TABLE nowhere;"])
        }
        var columns: [[String]] = []
        try grown.execute("SELECT count(*) FROM pragma_table_info('seen')") { columns.append($0) }
        #expect(columns == [["2"]])
    }

    @Test func theMicrophoneIsReadFromAWavFile() throws {
        // One second of a 440 Hz tone at 16 kHz, as --mic wav:PATH gives it.
        let wav = folder.path("tone.wav")
        let made = try ProcessRunner.run(
            "/usr/bin/sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", wav.path, "synth", "1", "sine", "440"])
        #expect(made.status == 0)
        let tested = try TestHost(
            pluginDirectories: [], sound: SoundServices(microphone: .wav(wav)),
            dataDirectory: try TemporaryDirectory("assist-kit-mic"))
        let manifestURL = folder.path("manifest.json")
        let micContext = PluginContext(
            manifest: try PluginManifest.load(from: manifestURL), pluginDirectory: folder.url, servedBy: tested.services
        )
        let micKit = PluginHostHandle(UnsafePointer(micContext.host))
        let opened = Collected<AudioInputStream>()
        tested.run(timeoutSeconds: 2, until: { !opened.values.isEmpty }) {
            if let stream = try? micKit.openAudioInput(rateHz: 16_000) { opened.append(stream) }
        }
        let stream = try #require(opened.values.first)
        // Reads are [worker] calls: never on the main loop's thread, which is this one.
        let result = Collected<(frames: Int, peak: Int16, failure: String?)>()
        Thread.detachNewThread {
            var total = 0
            var peak: Int16 = 0
            var samples = [Int16](repeating: 0, count: 1_600)
            do {
                while case let frames = try stream.read(into: &samples), frames > 0 {
                    total += frames
                    peak = max(peak, samples.prefix(frames).map { $0 == .min ? .max : abs($0) }.max() ?? 0)
                }
                result.append((total, peak, nil))
            } catch {
                result.append((total, peak, "\(error)"))
            }
        }
        #expect(result.wait(count: 1, timeout: 10))
        let read = try #require(result.values.first)
        #expect(read.failure == nil)
        #expect(read.frames == 16_000, "one second at 16 kHz")
        #expect(read.peak > 10_000, "the tone, not silence")
        let closed = Collected<Bool>()
        tested.run(timeoutSeconds: 1, until: { !closed.values.isEmpty }) {
            stream.close()
            closed.append(true)
        }
        var samples = [Int16](repeating: 0, count: 16)
        #expect(throws: PluginStatus.invalid) { try stream.read(into: &samples) }
    }

    /// Another feature's live-only events (read-text's page and the picture it reads, for the low-vision view)
    /// never reach a plugin that listens to everything: with them, a plugin without the camera permission would
    /// see what the camera saw. Its own live events and everyone's ordinary ones still arrive.
    @Test func anotherFeaturesLiveEventsAreNotHeard() throws {
        let kit = self.kit
        let heard = Collected<String>()
        let bus = host.services.events
        host.run(timeoutSeconds: 5, until: { heard.values.contains("assist.read-text.finished") }) {
            kit.subscribeEvents(prefix: "") { name, _ in heard.append(name) }
            kit.subscribeEvents(prefix: "assist.read-text.view.") { name, _ in heard.append("direct " + name) }
            for name in [
                "assist.read-text.view.page", "assist.read-text.view.picture", "ASSIST.READ-TEXT.VIEW.PAGE",
                "plugin.org.other.view.x", "org.test.kit.view.mine", "assist.read-text.finished",
            ] {
                _ = bus.publish(name, json: #"{"sentences":["Private letter."]}"#)
            }
        }
        #expect(heard.values == ["org.test.kit.view.mine", "assist.read-text.finished"], "\(heard.values)")
    }

    /// One plugin library serving two hosts in one process (the app's sessions in a test process), each with its
    /// own main loop and timer ids: a timer cancelled by one host leaves the other's timer of the same id firing.
    /// PluginKit kept the closures by id alone: the cancel released the other host's closure, which then fired on
    /// freed memory (found by collect-videos run in process beside another collect-videos run).
    @Test func twoHostsTimersOfTheSameIdAreEachTheirOwn() throws {
        let other = try TestHost(pluginDirectories: [])
        let manifest = try #require(context.manifest)
        let otherContext = PluginContext(manifest: manifest, pluginDirectory: folder.url, servedBy: other.services)
        let otherKit = PluginHostHandle(UnsafePointer(otherContext.host))
        let kit = self.kit
        let ids = Collected<UInt64>()
        let fired = Collected<Int>()
        // This host's first timer, then the other host's (the same id, each host counting its own), then this
        // host cancels its own.
        host.run(timeoutSeconds: 1, until: { ids.values.count == 1 }) {
            ids.append(kit.addTimer(milliseconds: 60_000, repeating: true) {} ?? 0)
        }
        other.run(timeoutSeconds: 1, until: { ids.values.count == 2 }) {
            ids.append(otherKit.addTimer(milliseconds: 20, repeating: true) { fired.append(1) } ?? 0)
        }
        try #require(ids.values.count == 2 && ids.values[0] == ids.values[1] && ids.values[0] != 0, "\(ids.values)")
        host.run(timeoutSeconds: 1, until: { ids.values.count == 3 }) {
            kit.cancelTimer(ids.values[0])
            ids.append(0)
        }
        let goesOn = other.run(timeoutSeconds: 5, until: { fired.values.count >= 5 })
        #expect(goesOn, "the other host's timer goes on: \(fired.values.count) firings")
        other.run(timeoutSeconds: 1, until: { fired.values.count >= 6 }) { otherKit.cancelTimer(ids.values[1]) }
        other.run(timeoutSeconds: 1, until: { true }) { otherContext.releaseHoldings() }
    }

    /// What a plugin acquires is held, each holding releasing itself; stopping gives everything back in one
    /// loop, newest first, and a timer given back never fires.
    @Test func whatAPluginHoldsIsGivenBackInOneLoop() throws {
        let kit = self.kit
        let fired = Collected<Int>()
        let held = Collected<[String]>()
        host.run(timeoutSeconds: 1, until: { !held.values.isEmpty }) { [context] in
            _ = kit.addTimer(milliseconds: 200, repeating: true) { fired.append(1) }
            kit.subscribeEvents(prefix: "org.test.") { _, _ in }
            held.append(context.holdings.keys)
        }
        let keys = held.values.first ?? []
        #expect(keys.count == 2 && keys[0].hasPrefix("timer ") && keys[1].hasPrefix("events "), "\(keys)")
        let context = self.context
        let released = Collected<Bool>()
        host.run(timeoutSeconds: 1, until: { !released.values.isEmpty }) {
            context.releaseHoldings()
            released.append(true)
        }
        #expect(context.holdings.keys.isEmpty)
        host.settle(0.5)
        #expect(fired.values.isEmpty, "the timer was cancelled")

        let order = PluginHoldings()
        var given: [String] = []
        order.hold("a") { given.append("a") }
        order.hold("b") { given.append("b") }
        order.hold("c") { given.append("c") }
        #expect(order.drop("b") && !order.drop("b"))
        order.releaseAll()
        #expect(given == ["c", "a"])
    }
}

import AssistCore
import Audio
import Foundation
import HostTesting
import Interaction
import PluginHost
import Testing

/// The survey plugin as built (`libAssistSurvey.so`), installed in a folder of its own and run by a complete
/// in-process host, with a WAV file as the microphone and the fake COVID-19 Sounds server.
final class SurveyHarness {
    let data: TemporaryDirectory
    let plugins: TemporaryDirectory
    let server: Covid19SoundsServer
    let microphone: URL
    private(set) var host: TestHost
    let settings: SettingsStore
    let language: String

    init(
        data: TemporaryDirectory? = nil, server: Covid19SoundsServer? = nil, micSeconds: Double = 2.5,
        micRate: Int = 44_100, configured: Bool = true, extra: [String: String] = [:], language: String = "en"
    ) throws {
        self.data = try data ?? TemporaryDirectory("assist-survey-data")
        plugins = try TemporaryDirectory("assist-survey-plugins")
        let folder = plugins.url.appendingPathComponent("survey")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: BuildProducts.packageRoot.appendingPathComponent("Plugins/Survey/manifest.json"),
            to: folder.appendingPathComponent("manifest.json"))
        try FileManager.default.copyItem(
            at: BuildProducts.directory.appendingPathComponent("libAssistSurvey.so"),
            to: folder.appendingPathComponent("libAssistSurvey.so"))
        try FileManager.default.copyItem(
            at: BuildProducts.packageRoot.appendingPathComponent("Plugins/Survey/share"),
            to: folder.appendingPathComponent("share"))
        self.server = try server ?? Covid19SoundsServer()
        microphone = plugins.path("mic.wav")
        try Self.noise(seconds: micSeconds, rate: micRate).write(to: microphone)
        settings = SettingsStore()
        var values = [
            "survey.retry-seconds": "0.3,0.6", "survey.systemd-user-dir": plugins.path("systemd").path,
            "outbox.retry-base-seconds": "0.2",
        ]
        if configured {
            values["survey.server-url"] = self.server.baseURL + "/"
            values["survey.client-id"] = self.server.clientID
            values["survey.client-secret"] = self.server.clientSecret
            values["survey.preauth-password"] = self.server.preauthPassword
            values["survey.preauth-email"] = self.server.preauthEmail
        }
        for (key, value) in values.merging(extra, uniquingKeysWith: { $1 }) { settings.setDefault(key, .string(value)) }
        self.language = language
        host = try Self.makeHost(
            plugins: plugins, data: self.data, microphone: microphone, settings: settings, language: language)
    }

    private static func makeHost(
        plugins: TemporaryDirectory, data: TemporaryDirectory, microphone: URL, settings: SettingsStore,
        language: String
    ) throws -> TestHost {
        try TestHost(
            pluginDirectories: [plugins.url], language: language, sound: SoundServices(microphone: .wav(microphone)),
            dataDirectory: data, settings: settings)
    }

    /// A new host on the same data, as after quitting (or a crash) and starting again.
    func restart() throws {
        host.features.stopAll()
        host.settle(0.1)
        // The old host's outbox must stop too: two hosts sending from one outbox.sqlite would let the old one
        // take a job of the new one and keep its outcome from the new plugin until the next start.
        host.services.outbox.stop()
        _ = host.services.outbox.waitUntilIdle(timeout: 5)
        host = try Self.makeHost(
            plugins: plugins, data: data, microphone: microphone, settings: settings, language: language)
    }

    /// Starts the survey with `arguments`.
    func start(_ arguments: [String] = []) {
        let host = self.host
        let record = host.features.record(id: "assist.survey")
        #expect(record != nil, "the survey plugin is discovered")
        guard let record else { return }
        host.run(until: { host.features.focused != nil }) { host.features.activate(record, arguments: arguments) }
    }

    var lines: [String] { host.output.lines }

    /// Sends a key and lets the plugin react.
    func key(_ key: Key) { host.input(.key(key)) }

    func type(_ line: String) { host.input(.line(line)) }

    /// Runs the loop until a printed line contains `text` (after `from` lines), or `timeout` (longer in the
    /// sanitizer lanes, where a take of a microphone file played at its own pace ends seconds late: a TSan run
    /// on CI took over 10 s to end the reading take).
    @discardableResult
    func waitFor(_ text: String, after from: Int = 0, timeout: Double = 10) -> Bool {
        let output = host.output
        return host.run(
            timeoutSeconds: timeout * ProcessRunner.timeScale,
            until: { output.lines.dropFirst(from).contains { $0.contains(text) } })
    }

    @discardableResult
    func waitUntil(timeout: Double = 10, _ condition: @escaping @Sendable () -> Bool) -> Bool {
        host.run(timeoutSeconds: timeout * ProcessRunner.timeScale, until: condition)
    }

    /// Another process holding the survey database's write lock (`BEGIN IMMEDIATE`) until `release`: every
    /// write of the survey then fails after the 5 s busy timeout, as on a full or read-only disk.
    final class DatabaseLock {
        private let holder = Process()
        private let input = Pipe()

        init(_ database: URL) throws {
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            // It ends when its standard input does (a signal may be blocked in what the test runner spawns).
            holder.arguments = [
                "-c",
                "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                    + "db.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\nsys.stdin.read()",
                database.path,
            ]
            let said = Pipe()
            holder.standardOutput = said
            holder.standardInput = input
            try holder.run()
            let first = String(decoding: said.fileHandleForReading.availableData, as: UTF8.self)
            #expect(first.hasPrefix("locked"), "the lock is held: \(first)")
        }

        func release() {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }

        deinit { if holder.isRunning { release() } }
    }

    func holdDatabaseWriteLock() throws -> DatabaseLock {
        try DatabaseLock(data.path("plugins/assist.survey/survey.sqlite"))
    }

    /// Answers a recording item: Space, wait for the take, Enter.
    func record() {
        let mark = lines.count
        key(.space)
        #expect(waitFor("Recorded", after: mark), "a take ends at the end of the microphone file")
        key(.enter)
    }

    /// The first session opens with the study's privacy and data-use text: heard, then Enter.
    func pastPrivacy() {
        #expect(waitFor("How your data is used."), "the privacy text comes first: \(lines.suffix(3))")
        key(.enter)
    }

    /// From the age gate to the first recording: Female, 20-29, asthma, never smoked, fever, prefer not to say
    /// about COVID-19, not in hospital.
    func answerUpToTheRecordings() {
        pastPrivacy()
        key(.character("y"))
        for choice in ["2", "3", "3", "1", "3", "4", "1", "1"] {
            key(.character(Character(choice)))
            key(.enter)
        }
    }

    /// Goes through the whole COVID-19 Sounds survey; `initial` answers the once-only part too.
    func answerEverything(initial: Bool, symptoms: [Int] = [3, 5], covid: Int = 1, covidFollowUp: Int = 1) {
        if initial {
            pastPrivacy()
            key(.character("y"))  // age gate
            key(.character("2")); key(.enter)  // Female
            key(.character("3")); key(.enter)  // 20-29
            key(.character("3")); key(.enter)  // asthma
            key(.character("1")); key(.enter)  // never smoked
        }
        for symptom in symptoms { key(.character(Character("\(symptom)"))) }
        key(.enter)
        key(.character(Character("\(covid)"))); key(.enter)
        key(.character(Character("\(covidFollowUp)"))); key(.enter)
        key(.character("1")); key(.enter)  // hospital: no
        record()
        record()
        record()
        let mark = lines.count
        #expect(waitFor("latitude and longitude", after: max(0, mark - 3)))
        type("52.2, 0.12")
        #expect(waitFor("Your answers:", after: mark))
        // The follow-up's answer is in the review (issue 72, item 8).
        let followUp = ["Do you think you have had COVID-19: ", "When was the positive test: "][covid == 2 ? 1 : 0]
        if covid == 1 || covid == 2 {
            #expect(
                lines[mark...].contains { $0.hasPrefix("Your answers:") && $0.contains(followUp) }, "\(lines[mark...])")
        }
        key(.enter)
    }

    /// Mono 16-bit noise at about −20 dBFS, as WAV.
    static func noise(seconds: Double, rate: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        let samples = (0..<Int(seconds * Double(rate))).map { _ in Int16.random(in: -3_300...3_300, using: &generator) }
        return WavFile(format: AudioFormat(sampleRateHz: rate, channels: 1), samples: samples).data
    }

    /// The WAV header's rate, channels, bits and data length.
    static func wavFacts(_ data: Data) -> (rate: Int, channels: Int, bits: Int, dataBytes: Int)? {
        guard data.count >= 44, data.prefix(4) == Data("RIFF".utf8), data[8..<12] == Data("WAVE".utf8) else {
            return nil
        }
        func u32(_ at: Int) -> Int {
            Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16 | Int(data[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        return (u32(24), u16(22), u16(34), u32(40))
    }

    /// Files under the plugin's media folder.
    var mediaFiles: [String] {
        let root = data.url.appendingPathComponent("plugins/assist.survey/media")
        let names = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        return names.filter {
            !$0.hasSuffix("/")
                && (try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent($0).path)[.type]
                    as? FileAttributeType) == .typeRegular
        }
    }
}

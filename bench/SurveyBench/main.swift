// survey figures (issue 15), printed as plain lines, through the real plugin library, host services, speech
// service and mixer in one process:
//  - a key that answers (Enter) or goes back (Backspace) to the first sample of the next question's speech,
//    beside the speech service speaking the same text directly (what `assist say` does once started);
//  - the start tone's end to the moment the microphone opens (sound before it is lost) and to the first kept
//    samples, from the plugin's `assist.survey.take` event, with `live:` pacing as a microphone has;
//  - a whole COVID-19 Sounds session, speech printed only, from start to "Sent." against a loopback server.
// Medians and p95 over RUNS (default 21).
import AssistCore
import Audio
import Foundation
import HostTesting
import Interaction
import Logging
import PluginHost
import Runtime
import Speech

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
let milliseconds = BenchFigures.milliseconds
let percentile = BenchFigures.percentile
let format = { (value: Double) in String(format: "%.1f", value) }
let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 21

// A server answering the three endpoints as the COVID-19 Sounds server does when all goes well.
let server = try LoopbackHTTPServer { _ in
    .afterBody { request in
        switch request.path {
        case "/api/create_app_user_preauth/":
            return .answer(status: 200, body: Data(#"{"username":"benchbench123","password":"p"}"#.utf8))
        case "/auth/token/":
            return .answer(
                status: 200, body: Data(#"{"access_token":"a","refresh_token":"r","expires_in":3600}"#.utf8))
        default:
            return .answer(status: 200, body: Data(#"{"received_data_length":1}"#.utf8))
        }
    }
}

let work = try TemporaryDirectory("assist-survey-bench")
let pluginFolder = work.path("plugins/survey")
try FileManager.default.createDirectory(at: pluginFolder, withIntermediateDirectories: true)
try FileManager.default.copyItem(
    at: BuildProducts.packageRoot.appendingPathComponent("Plugins/Survey/manifest.json"),
    to: pluginFolder.appendingPathComponent("manifest.json"))
try FileManager.default.copyItem(
    at: BuildProducts.directory.appendingPathComponent("libAssistSurvey.so"),
    to: pluginFolder.appendingPathComponent("libAssistSurvey.so"))

/// 1.5 s of noise as the microphone.
func micFile() throws -> URL {
    var generator = SystemRandomNumberGenerator()
    let samples = (0..<66_150).map { _ in Int16.random(in: -3_000...3_000, using: &generator) }
    let url = work.path("mic.wav")
    try WavFile(format: AudioFormat(sampleRateHz: 44_100, channels: 1), samples: samples).data.write(to: url)
    return url
}
let mic = try micFile()

func settings() -> SettingsStore {
    let store = SettingsStore()
    for (key, value) in [
        "survey.server-url": server.baseURL, "survey.client-id": "c", "survey.client-secret": "s",
        "survey.preauth-password": "p", "survey.preauth-email": "e@example.org", "survey.eligible-after-seconds": "0",
    ] { store.setDefault(key, .string(value)) }
    return store
}

/// A host like `assist`'s, with `speaker` saying what is printed.
func assemble(speaker: Speaker?, sound: SoundServices, data: String) throws -> HostAssembly {
    var paths = AssistPaths.resolve(
        dataDir: data, shareDir: BuildProducts.packageRoot.appendingPathComponent("share/assist").path)
    paths.developmentRoot = nil
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    var configuration = HostAssembly.Configuration(
        paths: paths, settings: settings(), language: "en", output: RecordingOutput(), speaker: speaker,
        searchPath: PluginSearchPath(entries: [.installed(work.path("plugins"))]), logger: logger)
    configuration.sound = sound
    return try HostAssembly(configuration)
}

// 1 and 2: speech on, through the mixer to the timing sink.
let sink = FirstSoundSink(pauseMicroseconds: 5_000)  // a period is 5.8 ms
let mixer = AudioMixer(sink: sink) { _, failed in failed }
guard let speech = SpeechService(mixer: mixer, logger: Logger(label: "bench")) else {
    print("espeak-ng could not start")
    exit(1)
}
let cues = CuePlayer(mixer: mixer)
let assembly = try assemble(
    speaker: speech, sound: SoundServices(speech: speech, cues: cues, microphone: .live(mic)),
    data: work.path("data-speech").path)
let loop = assembly.loop
let takes = Collected<String>()
assembly.services.events.subscribe(prefix: "assist.survey.take") { _, json in _ = takes.append(json) }
guard let record = assembly.features.record(id: "assist.survey") else {
    print("the survey plugin was not found beside this benchmark (build AssistSurvey in release)")
    exit(1)
}

func send(_ key: Key) {
    let dispatcher = assembly.dispatcher
    loop.post { dispatcher.dispatch(.key(key)) }
}
func quiet() {
    speech.stopAll()
    mixer.waitUntilIdle(timeoutSeconds: 5)
    _ = loop.run(until: { false }, timeoutSeconds: 0.05)
}
/// ms from posting `key` to the first audible sample.
func timeToSpeech(_ key: Key) -> Double {
    quiet()
    sink.reset()
    let start = now()
    send(key)
    _ = loop.run(until: { sink.heard != nil }, timeoutSeconds: 5)
    return milliseconds(start, sink.heard ?? now())
}

_ = loop.run(until: { false }, timeoutSeconds: 0.05)
loop.post { _ = assembly.features.activate(record) }
_ = loop.run(until: { false }, timeoutSeconds: 0.2)
send(.enter)  // past the privacy text
send(.character("y"))
quiet()
var answered: [Double] = []
var back: [Double] = []
for _ in 0..<runs {
    send(.character("2"))  // Female: an echo, let it finish
    quiet()
    answered.append(timeToSpeech(.enter))  // to "Question 3 of 12. How old are you? …"
    back.append(timeToSpeech(.backspace))  // back to "Question 2 of 12. What is your biological sex? …"
}
let questionText =
    "Question 2 of 12. What is your biological sex? 1, Male. 2, Female. 3, Other. 4, Prefer not to say. Press a number to choose, then Enter."
var direct: [Double] = []
for _ in 0..<runs {
    quiet()
    sink.reset()
    let start = now()
    speech.speak(questionText, language: "en", priority: .message)
    while sink.heard == nil { usleep(200) }
    direct.append(milliseconds(start, sink.heard ?? now()))
}

// Forward to the recordings, then the takes.
quiet()
for key: Key in [
    .enter, .character("3"), .enter, .character("3"), .enter, .character("1"), .enter,
    .character("3"), .enter, .character("4"), .enter, .character("1"), .enter,
] {
    send(key)
    _ = loop.run(until: { false }, timeoutSeconds: 0.02)
}
var toneToOpen: [Double] = []
var toneToFirst: [Double] = []
let toneSeconds = 0.18  // the rise earcon: 40 ms, a gap, 100 ms
for run in 0..<min(runs, 9) {
    quiet()
    let before = takes.values.count
    send(run == 0 ? .space : .character("a"))  // record, then record again: one take per run
    _ = loop.run(until: { takes.values.count > before }, timeoutSeconds: 10)
    guard let json = takes.values.last,
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
        let tone = object["tone_requested_s"] as? Double, let opened = object["mic_opened_s"] as? Double,
        let first = object["first_sample_s"] as? Double
    else { continue }
    toneToOpen.append((opened - tone - toneSeconds) * 1000)
    toneToFirst.append((first - tone - toneSeconds) * 1000)
    _ = loop.run(until: { false }, timeoutSeconds: 0.1)
}
loop.post { assembly.features.stopAll() }
_ = loop.run(until: { false }, timeoutSeconds: 0.2)

// 3: a whole session, speech printed only, microphone all at once.
func wholeSession(_ index: Int) throws -> Double {
    let session = try assemble(
        speaker: nil, sound: SoundServices(microphone: .wav(mic)), data: work.path("data-session-\(index)").path)
    guard let survey = session.features.record(id: "assist.survey") else { return .nan }
    let start = now()
    let dispatcher = session.dispatcher
    session.loop.post { _ = session.features.activate(survey) }
    var keys: [InputEvent] = [.key(.enter), .key(.character("y"))]
    keys += ["2", "3", "3", "1", "3", "1", "1", "1"].flatMap { [.key(.character(Character($0))), .key(.enter)] }
    for event in keys { session.loop.post { dispatcher.dispatch(event) } }
    let endings = Collected<Int>()
    session.features.onFeatureEnded = { _, _ in _ = endings.append(1) }
    let sent = Collected<Int>()
    session.services.events.subscribe(prefix: "assist.outbox.sent") { _, _ in _ = sent.append(1) }
    let taken = Collected<Int>()
    session.services.events.subscribe(prefix: "assist.survey.take") { _, _ in _ = taken.append(1) }
    for take in 0..<3 {
        session.loop.post { dispatcher.dispatch(.key(.space)) }
        _ = session.loop.run(until: { taken.values.count > take }, timeoutSeconds: 10)
        _ = session.loop.run(until: { false }, timeoutSeconds: 0.01)
        session.loop.post { dispatcher.dispatch(.key(.enter)) }
    }
    _ = session.loop.run(until: { false }, timeoutSeconds: 0.02)
    session.loop.post { dispatcher.dispatch(.line("52.2,0.12")) }
    _ = session.loop.run(until: { false }, timeoutSeconds: 0.02)
    session.loop.post { dispatcher.dispatch(.key(.enter)) }
    _ = session.loop.run(until: { !endings.values.isEmpty }, timeoutSeconds: 30)
    let elapsed = milliseconds(start, now())
    session.services.outbox.stop()
    return !endings.values.isEmpty && sent.values.count == 3 ? elapsed : .nan
}
var sessions: [Double] = []
for index in 0..<min(runs, 5) { sessions.append(try wholeSession(index)) }

print("survey benchmark (release, \(runs) runs; medians and p95):")
print(
    "Enter on an answer to the first sample of the next question: \(format(BenchFigures.median(answered))) ms, p95 \(format(percentile(answered, 0.95))) ms (goal ≤ 30 ms)"
)
print(
    "Backspace to the first sample of the previous question: \(format(BenchFigures.median(back))) ms, p95 \(format(percentile(back, 0.95))) ms"
)
print(
    "the speech service speaking the same question directly (assist say once started): \(format(BenchFigures.median(direct))) ms, p95 \(format(percentile(direct, 0.95))) ms; ratio \(String(format: "%.2f", BenchFigures.median(answered) / BenchFigures.median(direct)))"
)
print(
    "start tone's end to the microphone opening (capture starts): \(format(BenchFigures.median(toneToOpen))) ms, p95 \(format(percentile(toneToOpen, 0.95))) ms (goal ≤ 50 ms), \(toneToOpen.count) takes"
)
print(
    "start tone's end to the first samples kept (a 50 ms period of a live source included): \(format(BenchFigures.median(toneToFirst))) ms, p95 \(format(percentile(toneToFirst, 0.95))) ms"
)
print(
    "a whole COVID-19 Sounds session, scripted, start to sent (3 takes of 1.5 s from a file, loopback server): \(format(BenchFigures.median(sessions))) ms"
)

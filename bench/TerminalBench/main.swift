// Terminal figures (issue 31), printed as plain lines: a key typed on a real pseudo-terminal to the first
// audible sample of its spoken answer, through the console (termios, KeyDecoder, LineEditor), the dispatcher,
// the dialogs, the speech service and the mixer, in one process. Keys at a menu of six choices: a letter
// (said back as it is typed), Backspace (what it took), Ctrl+R (the question again), ? (its hint) and a number
// out of range (the one sentence saying so). Beside them, the speech service speaking the same answer
// directly, its floor. Medians and p95 over RUNS (default 21).
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

/// A pseudo-terminal pair: what is typed goes into `master`; the console reads `slave` as its terminal.
func openTerminal() -> (master: Int32, slave: Int32)? {
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    // TIOCSPTLCK and TIOCGPTN (linux/asm-generic/ioctls.h).
    guard master >= 0, ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0
    else { return nil }
    let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
    return slave >= 0 ? (master, slave) : nil
}

guard let terminal = openTerminal() else {
    print("no pseudo-terminal could be opened")
    exit(1)
}
// Echo drained from the terminal's other side, so writes never block.
let drain = Thread {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while read(terminal.master, &buffer, buffer.count) > 0 {}
}
drain.start()

/// The speech service as the host's speaker, noting when each utterance queued after `mark` (not a hint, not the
/// echo of a key) speaks its first word: the answer to a key, heard behind whatever hints stray keys left.
final class AnswerWatch: Speaker, @unchecked Sendable {  // because: `answeredAt` and `mark` are guarded by `lock`
    let inner: SpeechService
    private let lock = NSLock()
    private var mark: UInt64 = .max
    private var answeredAt: UInt64?

    init(_ inner: SpeechService) { self.inner = inner }

    func watch(from time: UInt64) { lock.withLock { (mark, answeredAt) = (time, nil) } }
    var answered: UInt64? { lock.withLock { answeredAt } }

    func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?) {
        let watched = group != .hint && group != .echo && lock.withLock { now() >= mark }
        guard watched else { return inner.speak(text, language: language, priority: priority, group: group) }
        let callbacks = SpeechCallbacks(onWord: { [weak self] _, _ in
            guard let self else { return }
            let time = now()
            self.lock.withLock { if self.answeredAt == nil { self.answeredAt = time } }
        })
        _ = inner.speak(Utterance(text, language: language, priority: priority, group: group), callbacks: callbacks)
    }
    func cancel(group: SpeechGroup) { inner.cancel(group: group) }
    func stopAll() { inner.stopAll() }
    func drain(timeoutSeconds: Double) { inner.drain(timeoutSeconds: timeoutSeconds) }
}

let work = try TemporaryDirectory("assist-terminal-bench")
let sink = FirstSoundSink(pauseMicroseconds: 5_000)  // a period is 5.8 ms
let mixer = AudioMixer(sink: sink) { _, failed in failed }
guard let speech = SpeechService(mixer: mixer, logger: Logger(label: "bench")) else {
    print("espeak-ng could not start")
    exit(1)
}
let answers = AnswerWatch(speech)
var paths = AssistPaths.resolve(
    dataDir: work.path("data").path, shareDir: BuildProducts.packageRoot.appendingPathComponent("share/assist").path)
paths.developmentRoot = nil
var logger = Logger(label: "bench")
logger.logLevel = .critical
let console = Console(
    fileDescriptor: terminal.slave,
    echo: { text in
        _ = text.utf8CString.withUnsafeBufferPointer { write(terminal.slave, $0.baseAddress, $0.count - 1) }
    })
var configuration = HostAssembly.Configuration(
    paths: paths, settings: SettingsStore(), language: "en", output: RecordingOutput(), speaker: answers,
    searchPath: PluginSearchPath(entries: [.installed(work.path("plugins"))]), logger: logger)
configuration.sound = SoundServices(speech: speech)
configuration.console = console
let assembly = try HostAssembly(configuration)
let loop = assembly.loop
let dispatcher = assembly.dispatcher
console.start { event in loop.post { dispatcher.dispatch(event) } }
defer { console.restore() }

let dialogs = assembly.services.interaction.dialogs
let choices = ["Collect videos", "Find object", "Read text", "Survey", "Talking clock", "Quit"]
func openMenu() {
    loop.post {
        guard !dialogs.isActive else { return }
        dialogs.open(.choice(prompt: "Choose a feature.", choices: choices, defaultIndex: nil), owner: "host") { _ in }
    }
}
func quiet() {
    speech.stopAll()
    mixer.waitUntilIdle(timeoutSeconds: 5)
    _ = loop.run(until: { false }, timeoutSeconds: 0.05)
}
/// ms from writing `bytes` to the terminal to the first audible sample.
func timeToSpeech(_ bytes: [UInt8]) -> Double {
    quiet()
    sink.reset()
    let start = now()
    _ = bytes.withUnsafeBytes { write(terminal.master, $0.baseAddress, $0.count) }
    _ = loop.run(until: { sink.heard != nil }, timeoutSeconds: 5)
    return milliseconds(start, sink.heard ?? now())
}

openMenu()
_ = loop.run(until: { false }, timeoutSeconds: 0.2)
let keys: [(name: String, bytes: [UInt8])] = [
    ("a letter, said back", Array("s".utf8)), ("Backspace, what it took", [0x7F]),
    ("Ctrl+R, the question again", [0x12]), ("?, the question's hint", Array("?".utf8)),
    ("a number out of range", Array("9".utf8)),
]
var measured: [String: [Double]] = [:]
var all: [Double] = []
for _ in 0..<runs {
    for key in keys {
        let value = timeToSpeech(key.bytes)
        measured[key.name, default: []].append(value)
        all.append(value)
    }
}
// Issue 72: 20 stray keys (F2, 40 ms apart, as a hand on the wrong row types them) and then a number out of range:
// ms from that key to the first word of its answer, against the same key with nothing before it.
func answerAfter(strayKeys: Int) -> Double {
    quiet()
    for _ in 0..<strayKeys {
        _ = [UInt8]([0x1B, 0x4F, 0x51]).withUnsafeBytes { write(terminal.master, $0.baseAddress, $0.count) }
        _ = loop.run(until: { false }, timeoutSeconds: 0.04)
    }
    let start = now()
    answers.watch(from: start)
    _ = Array("9".utf8).withUnsafeBytes { write(terminal.master, $0.baseAddress, $0.count) }
    _ = loop.run(until: { answers.answered != nil }, timeoutSeconds: 300)
    return milliseconds(start, answers.answered ?? now())
}
var afterStray: [Double] = []
var alone: [Double] = []
for _ in 0..<max(5, runs / 3) {
    afterStray.append(answerAfter(strayKeys: 20))
    alone.append(answerAfter(strayKeys: 0))
}
var direct: [Double] = []
for _ in 0..<runs {
    quiet()
    sink.reset()
    let start = now()
    speech.speak("Choose a number from 1 to 6.", language: "en", priority: .message)
    while sink.heard == nil { usleep(200) }
    direct.append(milliseconds(start, sink.heard ?? now()))
}
for key in keys {
    let values = measured[key.name] ?? []
    print(
        "\(key.name): \(format(BenchFigures.median(values))) ms, p95 \(format(percentile(values, 0.95))) ms")
}
print(
    "every key on the terminal to the first sample of its spoken answer: \(format(BenchFigures.median(all))) ms, p95 \(format(percentile(all, 0.95))) ms (goal ≤ 100 ms), \(all.count) keys"
)
print(
    "the speech service speaking an answer directly: \(format(BenchFigures.median(direct))) ms, p95 \(format(percentile(direct, 0.95))) ms; ratio of medians \(String(format: "%.2f", BenchFigures.median(all) / BenchFigures.median(direct)))"
)
print(
    "after 20 stray keys, a key to the first word of its answer: \(format(BenchFigures.median(afterStray))) ms, p95 \(format(percentile(afterStray, 0.95))) ms (goal ≤ 1000 ms), \(afterStray.count) runs; with no stray key before it \(format(BenchFigures.median(alone))) ms; ratio of medians \(String(format: "%.2f", BenchFigures.median(afterStray) / BenchFigures.median(alone)))"
)
exit(0)

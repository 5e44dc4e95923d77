// Audio figures for issue 4, printed as plain lines: speak() to the first sample at the sink, cue onset
// (mixer idle and mixer busy with speech), and the CPU of continuous cue playback, each beside a baseline
// measured in the same run with espeak-ng's own C API. Medians over RUNS (default 31).
import Audio
import CEspeakNG
import Foundation
import HostTesting
import Logging
import Speech

/// A sink that paces like a sound card and notes when the first non-silent sample arrives after `arm()`.
final class TimingSink: AudioSink, @unchecked Sendable {  // because: `armedAt`/`heardAt` are guarded by `lock`
    private let lock = NSLock()
    private var armedAt: UInt64?
    private var heardAt: UInt64?
    private var pacer = RealTimePacer(format: .playback)

    var name: String { "timing" }

    func arm() -> UInt64 {
        lock.withLock {
            heardAt = nil
            armedAt = DispatchTime.now().uptimeNanoseconds
            return armedAt ?? 0
        }
    }

    /// Milliseconds from `arm()` to the first sound, once heard.
    var latencyMs: Double? {
        lock.withLock {
            guard let armedAt, let heardAt else { return nil }
            return Double(heardAt - armedAt) / 1e6
        }
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        if samples.contains(where: { abs(Int($0)) > 8 }) {
            lock.withLock {
                if armedAt != nil && heardAt == nil { heardAt = DispatchTime.now().uptimeNanoseconds }
            }
        }
        pacer.wait(afterFrames: samples.count / 2)
    }

    func idle() { pacer.reset() }

}

func waitFor(_ seconds: Double = 5, _ condition: () -> Bool) {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() && Date() < deadline { usleep(200) }
}

func cpuSeconds() -> Double {
    let (user, system) = BenchFigures.cpuSeconds()
    return user + system
}

func median(_ values: [Double]) -> Double { BenchFigures.median(values) }

let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 31
let sentence = "Hello, this is Assist reading your page."
let format = { (value: Double) in String(format: "%.2f", value) }

// Our pipeline: speech service → mixer → sink.
let sink = TimingSink()
let mixer = AudioMixer(sink: sink) { _, failed in failed }
let cues = CuePlayer(mixer: mixer)
guard let speech = SpeechService(mixer: mixer, logger: Logger(label: "bench")) else {
    print("espeak-ng could not start; run 'assist doctor'.")
    exit(1)
}
var speakLatency: [Double] = []
for _ in 0..<runs {
    mixer.waitUntilIdle(timeoutSeconds: 2)
    _ = sink.arm()
    speech.speak(sentence, language: "en", priority: .message)
    waitFor { sink.latencyMs != nil }
    if let latency = sink.latencyMs { speakLatency.append(latency) }
    speech.stopAll()
}

var idleCue: [Double] = []
for _ in 0..<runs {
    mixer.waitUntilIdle(timeoutSeconds: 2)
    usleep(20_000)
    _ = sink.arm()
    cues.play(.tap)
    waitFor { sink.latencyMs != nil }
    if let latency = sink.latencyMs { idleCue.append(latency) }
}

// Busy: the mixer is already running (speech at volume 0 keeps it writing), so the cue waits for the next
// period; the sink hears the first non-silent sample, which is the cue's.
var busyCue: [Double] = []
speech.configure(volume: 0)
speech.speak(String(repeating: "Long text to keep the mixer busy. ", count: 40), language: "en", priority: .message)
usleep(300_000)
for _ in 0..<runs {
    _ = sink.arm()
    cues.play(.tap)
    waitFor { sink.latencyMs != nil }
    if let latency = sink.latencyMs { busyCue.append(latency) }
    usleep(60_000)
}
speech.stopAll()
speech.configure(volume: 1)
mixer.waitUntilIdle(timeoutSeconds: 2)

// CPU of five seconds of the centred (continuous) cue, as a share of one core.
let cueSeconds = 5.0
let cpuBefore = cpuSeconds()
cues.guidance(.continuous, intensity: 1, pan: 0)
Thread.sleep(forTimeInterval: cueSeconds)
cues.stop()
let cueCPU = (cpuSeconds() - cpuBefore) / cueSeconds * 100
mixer.waitUntilIdle(timeoutSeconds: 2)
speech.shutdown()
mixer.shutdown()
usleep(100_000)

// Baseline: espeak-ng's own C API, synchronous, to its first audible sample (same process, same voice).
nonisolated(unsafe) var firstChunkAt: UInt64?
nonisolated(unsafe) var synthesisedSamples = 0
assist_espeak_SetSynthCallback { wav, count, _ in
    if firstChunkAt == nil, let wav,
        UnsafeBufferPointer(start: wav, count: Int(max(0, count))).contains(where: {
            abs(Int($0)) > 8
        })
    {
        firstChunkAt = DispatchTime.now().uptimeNanoseconds
    }
    synthesisedSamples += Int(count)
    return 0
}
_ = assist_espeak_SetVoiceByName("en-us")
_ = assist_espeak_SetParameter(espeakRATE, 175, 0)
var nativeLatency: [Double] = []
let bytes = Array(sentence.utf8CString)
for _ in 0..<runs {
    firstChunkAt = nil
    let start = DispatchTime.now().uptimeNanoseconds
    _ = bytes.withUnsafeBufferPointer {
        assist_espeak_Synth($0.baseAddress, $0.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
    }
    if let firstChunkAt { nativeLatency.append(Double(firstChunkAt - start) / 1e6) }
}
// Native synthesis CPU per second of speech produced, for scale beside the cue's CPU.
synthesisedSamples = 0
let synthBefore = cpuSeconds()
let long = Array(String(repeating: sentence + " ", count: 10).utf8CString)
_ = long.withUnsafeBufferPointer {
    assist_espeak_Synth($0.baseAddress, $0.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
}
let synthCPU = (cpuSeconds() - synthBefore) / (Double(synthesisedSamples) / 22_050) * 100

let speak = median(speakLatency)
let native = median(nativeLatency)
print("audio benchmark, \(runs) runs each, medians")
print("speak() to first sample at the sink: \(format(speak)) ms (goal < 20 ms)")
print("  espeak-ng C API to its first audible sample: \(format(native)) ms; ratio \(format(speak / native))")
print("cue onset, mixer idle: \(format(median(idleCue))) ms (goal < 10 ms)")
print("cue onset, mixer busy with speech: \(format(median(busyCue))) ms (goal < 10 ms)")
print(
    "  ratio to espeak-ng's first sample: \(format(median(idleCue) / native)) idle, \(format(median(busyCue) / native)) busy"
)
print("(a sound card adds its own buffer on top: 40 ms configured for ALSA)")
print("continuous cue CPU: \(format(cueCPU)) % of one core")
print(
    "  espeak-ng synthesis CPU per second of speech: \(format(synthCPU)) % of one core; ratio \(format(cueCPU / synthCPU))"
)

// light's frame-to-tone figure (issue 75: p95 at most 50 ms), in process and on real samples: a grey frame the
// size light asks the camera for (320×240) is measured by light's own `Brightness` and its pitch handed to the
// cue player, as light's `handle(frame:)` does; a sink paced like a sound card finds, cycle by cycle, the moment
// the tone it is given has crossed half-way (on light's log scale) from the old pitch to the new. The frames
// alternate between a dark and a bright room, TRANSITIONS times, 400 ms apart. The baseline in the same run,
// each change in turn with light's: the same pitch handed to the cue player directly (without the frame). Also: the
// pitch heard at each of 12 grey levels, which must rise with every step. "Played" counts the buffer a sound card
// keeps ahead of what it plays: LEAD_MS, 40 by default, as Assist asks ALSA for. Not in these figures: the camera's
// capture to light's callback (bench/camera.sh).
import Audio
import Foundation
import HostTesting
import LightCore

/// Paces like a sound card and follows the left channel's pitch from the time between upward zero crossings;
/// notes when the pitch first crosses `threshold` (upward or downward) after `arm`.
final class PitchSink: AudioSink, @unchecked Sendable {  // because: every member is guarded by `lock`
    private let lock = NSLock()
    private var pacer: RealTimePacer

    /// `leadSeconds`: how far ahead of the clock the mixer may write, as a sound card's buffer lets it.
    init(leadSeconds: Double) {
        pacer = RealTimePacer(format: .playback)
        pacer.leadSeconds = leadSeconds
    }
    private var previous: Int16 = 0
    private var sinceCrossing = 0.0
    private var armedAt: UInt64?
    private var threshold = 0.0
    private var rising = true
    private var heardAt: (written: UInt64, played: UInt64)?
    private var cycles: [Double] = []

    var name: String { "pitch" }

    /// Starts a measurement: the time now, and what counts as the new pitch.
    func arm(threshold: Double, rising: Bool) -> UInt64 {
        lock.withLock {
            heardAt = nil
            self.threshold = threshold
            self.rising = rising
            armedAt = DispatchTime.now().uptimeNanoseconds
            return armedAt ?? 0
        }
    }

    /// Milliseconds from `arm` to the new pitch written and played (the pacer's lead after it), once heard.
    var latency: (written: Double, played: Double)? {
        lock.withLock {
            guard let armedAt, let heardAt else { return nil }
            return (Double(heardAt.written - armedAt) / 1e6, Double(heardAt.played - armedAt) / 1e6)
        }
    }

    /// The pitches of the cycles heard since the last call.
    func takeCycles() -> [Double] {
        lock.withLock {
            defer { cycles = [] }; return cycles
        }
    }

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        let now = DispatchTime.now().uptimeNanoseconds
        let rate = Double(AudioFormat.playback.sampleRateHz)
        lock.withLock {
            let queued = pacer.queuedSeconds
            for frame in stride(from: 0, to: samples.count - 1, by: 2) {
                let sample = samples[frame]
                sinceCrossing += 1
                guard previous < 0, sample >= 0 else {
                    previous = sample
                    continue
                }
                // An upward crossing, placed between the two samples: one whole cycle since the last.
                let fraction = Double(-Int(previous)) / Double(Int(sample) - Int(previous))
                let period = sinceCrossing - 1 + fraction
                sinceCrossing = 1 - fraction
                previous = sample
                guard period > 2 else { continue }
                let hz = rate / period
                cycles.append(hz)
                if armedAt != nil, heardAt == nil, rising ? hz >= threshold : hz <= threshold {
                    let played = now + UInt64((queued + Double(frame / 2) / rate) * 1e9)
                    heardAt = (now, played)
                }
            }
        }
        lock.withLock { pacer.wait(afterFrames: samples.count / 2) }
    }

    func idle() { lock.withLock { pacer.reset() } }
}

func waitFor(_ seconds: Double = 2, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(200)
    }
    return true
}

func percentile(_ values: [Double], _ share: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((share * Double(sorted.count - 1)).rounded()))]
}

/// A grey frame of light's size, every pixel `level`.
func frame(_ level: UInt8) -> [UInt8] { [UInt8](repeating: level, count: 320 * 240) }

/// What light's `handle(frame:)` does with a frame: measure it, hand the pitch to the cues.
func deliver(_ pixels: [UInt8], to cues: CuePlayer) {
    let reading = pixels.withUnsafeBufferPointer { buffer in
        buffer.baseAddress.map { Brightness(grey: $0, width: 320, height: 240, stride: 320) }
    }
    guard let reading else { return }
    cues.guidance(.tone, intensity: 0.6, pan: 0, pitchHz: reading.pitchHz)
}

let transitions = Int(ProcessInfo.processInfo.environment["TRANSITIONS"] ?? "") ?? 200
let format = { (value: Double) in String(format: "%.1f", value) }
// As ALSA's playback buffer, which Assist asks for 40 ms of (the file sinks keep 20 ms): LEAD_MS.
let leadMs = Double(ProcessInfo.processInfo.environment["LEAD_MS"] ?? "") ?? 40
let sink = PitchSink(leadSeconds: leadMs / 1000)
let mixer = AudioMixer(sink: sink) { _, failed in failed }
let cues = CuePlayer(mixer: mixer)

// The frames: a dark room (grey 30) and a bright one (grey 220), in turn.
let dark = frame(30)
let bright = frame(220)
let darkHz = Brightness.pitch(forGrey: 30)
let brightHz = Brightness.pitch(forGrey: 220)
let middle = (darkHz * brightHz).squareRoot()  // half-way on light's log scale
deliver(dark, to: cues)
usleep(300_000)
var written: [Double] = []
var played: [Double] = []
var direct: [Double] = []
var missed = 0
// Each change twice in turn: from a frame, as light makes it, and the baseline, the same pitch handed to the cue
// player directly (its own path, without light's measuring of the frame).
for index in 0..<(2 * transitions) {
    let toBright = (index / 2) % 2 == 0
    let fromFrame = index % 2 == 0
    if !fromFrame { cues.guidance(.tone, intensity: 0.6, pan: 0, pitchHz: toBright ? darkHz : brightHz) }
    usleep(200_000)
    _ = sink.arm(threshold: middle, rising: toBright)
    if fromFrame {
        deliver(toBright ? bright : dark, to: cues)
    } else {
        cues.guidance(.tone, intensity: 0.6, pan: 0, pitchHz: toBright ? brightHz : darkHz)
    }
    if waitFor(2, { sink.latency != nil }), let latency = sink.latency {
        if fromFrame {
            written.append(latency.written)
            played.append(latency.played)
        } else {
            direct.append(latency.written)
        }
    } else {
        missed += 1
    }
    if fromFrame { usleep(200_000) }
}

// Twelve grey levels, darkest first: the pitch heard over 150 ms at each must rise with every step.
var heard: [Double] = []
for step in 0..<12 {
    let grey = UInt8(10 + step * 21)
    deliver(frame(grey), to: cues)
    usleep(100_000)  // past the glide
    _ = sink.takeCycles()
    usleep(150_000)
    let cycles = sink.takeCycles()
    heard.append(cycles.isEmpty ? 0 : percentile(cycles, 0.5))
}
cues.stop()
mixer.waitUntilIdle(timeoutSeconds: 2)
mixer.shutdown()

guard !written.isEmpty, !direct.isEmpty else {
    print("light's tone was never heard to change: the benchmark cannot measure")
    exit(1)
}
let rises = zip(heard, heard.dropFirst()).allSatisfy { $0 < $1 }
let load = ProcessInfo.processInfo.environment["LOAD"] ?? ""
print("light, frame to tone, \(written.count) changes between a dark and a bright room\(load):")
print(
    "  frame to the new pitch written   median \(format(percentile(written, 0.5))) ms, "
        + "p95 \(format(percentile(written, 0.95))) ms")
print(
    "  frame to the new pitch played    median \(format(percentile(played, 0.5))) ms, "
        + "p95 \(format(percentile(played, 0.95))) ms (goal p95 at most 50 ms; \(Int(leadMs)) ms of "
        + "buffer, as \(leadMs == 40 ? "ALSA's" : "a sink's"))")
let (directMedian, directP95) = (percentile(direct, 0.5), percentile(direct, 0.95))
print(
    "  baseline, the same pitch handed to the cue player directly: median \(format(directMedian)) ms, "
        + "p95 \(format(directP95)) ms (written); the frame adds \(format(percentile(written, 0.5) - directMedian)) ms "
        + "at the median, \(format(percentile(written, 0.95) - directP95)) ms at p95 (ratio of the p95s "
        + String(format: "%.2f", percentile(written, 0.95) / max(directP95, 0.01)) + ")")
if missed > 0 { print("  \(missed) changes were not heard within 2 s") }
print(
    "  12 grey levels, pitch heard: " + heard.map { String(Int($0.rounded())) }.joined(separator: ", ")
        + " Hz: " + (rises ? "rises with every step" : "DOES NOT RISE with every step"))
print(
    "  not included: the camera's capture to light's callback (bench/camera.sh)"
)
exit(rises && missed == 0 ? 0 : 1)

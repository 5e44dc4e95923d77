// read-text figures for issue 6, printed as plain lines. On the same pictures in one run:
//  - Assist: a photo through the streaming pipeline (layout, first block, first sentence) into the speech
//    service and mixer, to the first audible sample at the sink; with the engine warm (as when the camera
//    picks a frame) and cold (engine start included);
//  - baseline: `tesseract IMAGE - | espeak-ng --stdout`, to the first audible sample on the pipe.
// Also the character error rate of both against the text that was drawn. Medians over RUNS (default 5).
import Audio
import Foundation
import HostTesting
import Logging
import OCR
import ReadTextCore
import Speech

final class FirstSoundSink: AudioSink, @unchecked Sendable {  // because: `heardAt` is guarded by `lock`
    private let lock = NSLock()
    private var heardAt: UInt64?
    var name: String { "timing" }
    func reset() { lock.withLock { heardAt = nil } }
    var heard: UInt64? { lock.withLock { heardAt } }
    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        if samples.contains(where: { abs(Int($0)) > 64 }) {
            lock.withLock { if heardAt == nil { heardAt = DispatchTime.now().uptimeNanoseconds } }
        }
        usleep(2_000)
    }
    func idle() {}
}

func median(_ values: [Double]) -> Double { BenchFigures.median(values) }
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

setenv("OMP_THREAD_LIMIT", "1", 1)
let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 5
let work = try TemporaryDirectory("assist-read-bench")
let paragraph = [
    "Assist reads printed pages aloud for people who cannot see them.",
    "Point the camera at a letter, a label or a page of a book.",
    "The first sentence is spoken while the rest is still being read.",
    "Columns are read one after the other, from left to right.",
    "The opposite page of an open book is left out on purpose.",
    "Press the right arrow for the next sentence and the left for the last.",
]
let lines = (0..<5).flatMap { _ in paragraph }
let page = work.path("a4.jpg")
try PageRenderer(width: 1654, height: 2339, degrade: ["-rotate", "1", "-quality", "90"]).render(
    [.init(lines, x: 120, y: 200, pointSize: 30, lineHeight: 62)], to: page)
let reference = lines.joined(separator: " ")

// Assist.
let sink = FirstSoundSink()
let mixer = AudioMixer(sink: sink) { _, failed in failed }
guard let speech = SpeechService(mixer: mixer, logger: Logger(label: "bench")) else {
    print("espeak-ng could not start")
    exit(1)
}
let pipeline = TextPipeline(options: ReadTextOptions(), builder: SentenceBuilder())

/// Streams the photo as read-text does and returns ms to the first audible sample and the recognised text.
func assistRun(engine warm: TesseractEngine?, started: UInt64) throws -> (Double, String) {
    // Warm is camera mode: the veto needs the first 3 lines before anything is spoken. Cold is a photo.
    let cameraMode = warm != nil
    let engine = try warm ?? TesseractEngine(languages: "eng")
    sink.reset()
    let photo = try TesseractEngine.loadGray(page)
    var spoke = false
    let summary = try photo.pixels.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress else { throw CocoaError(.fileReadCorruptFile) }
        return StreamingRecognizer(pipeline: pipeline).run(
            engine: engine, gray: base, width: photo.width, height: photo.height, stride: photo.width,
            vetoFirstBlock: cameraMode
        ) { items, _ in
            if !spoke, let first = items.first {
                spoke = true
                speech.speak(first.text, language: "en", priority: .message)
            }
        }
    }
    let text = summary.observations.map(\.text)
    while sink.heard == nil { usleep(500) }
    speech.stopAll()
    mixer.waitUntilIdle(timeoutSeconds: 2)
    return (Double((sink.heard ?? started) - started) / 1e6, text.joined(separator: " "))
}

let warmEngine = try TesseractEngine(languages: "eng")
var warm: [Double] = []
var cold: [Double] = []
var assistText = ""
for _ in 0..<runs {
    let start = now()
    let (ms, text) = try assistRun(engine: warmEngine, started: start)
    warm.append(ms)
    assistText = text
    let coldStart = now()
    cold.append(try assistRun(engine: nil, started: coldStart).0)
}

// Baseline: the command-line pipeline, to the first audible sample on espeak-ng's stdout.
func baselineRun() throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "tesseract '\(page.path)' - 2>/dev/null | espeak-ng --stdout"]
    var environment = ProcessInfo.processInfo.environment
    environment["OMP_THREAD_LIMIT"] = "1"
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    let start = now()
    try process.run()
    var buffer = Data()
    var heard: UInt64?
    while heard == nil {
        let chunk = pipe.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
        if buffer.count > 44 {
            let samples = buffer.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            if samples.contains(where: { abs(Int($0)) > 64 }) { heard = now() }
        }
    }
    // Let the pipeline finish (espeak-ng blocks on a full pipe otherwise), then reap it.
    while !pipe.fileHandleForReading.availableData.isEmpty {}
    process.waitUntilExit()
    return Double((heard ?? now()) - start) / 1e6
}
var baseline: [Double] = []
for _ in 0..<runs { baseline.append(try baselineRun()) }
let cliText = try ProcessRunner.run("/usr/bin/tesseract", [page.path, "-"], environment: ["OMP_THREAD_LIMIT": "1"])
    .standardOutput

let assistCER = PageRenderer.characterErrorRate(assistText, reference: reference)
let cliCER = PageRenderer.characterErrorRate(cliText, reference: reference)
let format = { (value: Double) in String(format: "%.0f", value) }
print("read-text benchmark: an A4 page at 200 dpi (1654x2339, 30 lines, rotated 1°), \(runs) runs, medians")
print("first audio, Assist, engine warm (camera mode): \(format(median(warm))) ms (goal < 400 ms)")
print("first audio, Assist, engine started for the photo: \(format(median(cold))) ms")
print("first audio, tesseract IMAGE - | espeak-ng --stdout: \(format(median(baseline))) ms")
print(
    String(
        format: "  speed-up: %.1fx warm, %.1fx cold (goal >= 2x)", median(baseline) / median(warm),
        median(baseline) / median(cold)))
print(
    String(
        format: "character error rate: Assist %.2f %%, tesseract CLI %.2f %% (goal: no worse)", assistCER * 100,
        cliCER * 100))

// find-object figures for issues 7 and 37, printed as plain lines:
// 1. Detection at 416×416 with 2 threads on Debian darknet's photos (resized to 1280×960, as the camera
//    delivers), through Assist's detector, beside OpenCV's own Python DNN (python3-opencv) running the same
//    model on the same frames with the same parameters, in the same run. Medians over ROUNDS passes.
// 2. Guidance at a camera's rate: `assist run find-object dog` on a dog moving across a picture at 30 frames/s:
//    frame-to-cue latency (each frame's capture to its cue request), p50 and p95; the share of cues the
//    follower gave between detections; how far each cue was from where the dog was in its frame; the direction;
//    the host's CPU and resident memory while it guides (its process tree sampled every 20 ms from the first
//    cue on), and its peak memory over the run, the models' loading included.
// 3. The same dog from a webcam: the fake V4L2 device (Tests/Fixtures/camera/fake_v4l2.c, preloaded) streams it
//    as MJPEG at 640×480, which libv4l2 decodes as it does a real webcam's; the host's CPU and resident memory
//    while it guides, beside the folder's run (whose JPEG files need FFmpeg's decoders, which a camera does not).
import FindObjectCore
import Foundation
import HostTesting
import ObjectDetection

let rounds = Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 5
let assist = ProcessInfo.processInfo.environment["ASSIST"] ?? ".build/release/assist"
let root = BuildProducts.packageRoot
let model = root.appendingPathComponent("share/assist/models/yolov4-tiny").path
let work = try TemporaryDirectory("assist-find-bench")
let photos = ["dog.jpg", "person.jpg", "horses.jpg", "giraffe.jpg", "eagle.jpg", "kite.jpg"]

// The frames, as raw BGR files both sides read.
var frames: [[UInt8]] = []
for (index, photo) in photos.enumerated() {
    let raw = work.path("frame\(index).bgr")
    _ = try ProcessRunner.run(
        "/usr/bin/convert",
        ["/usr/share/darknet/data/\(photo)", "-resize", "1280x960!", "-depth", "8", "bgr:\(raw.path)"])
    frames.append([UInt8](try Data(contentsOf: raw)))
}

let detector = try ObjectDetector(directory: model, threads: 2)
var ours: [Double] = []
for _ in 0..<rounds {
    for frame in frames {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = detector.detect(bgr: frame, width: 1280, height: 960)
        ours.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
}

let script = """
    import sys, time, statistics
    import numpy as np, cv2
    cv2.setNumThreads(2)
    net = cv2.dnn.readNetFromDarknet(sys.argv[1] + "/yolov4-tiny.cfg", sys.argv[1] + "/yolov4-tiny.weights")
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    names = net.getUnconnectedOutLayersNames()
    frames = [np.fromfile(p, np.uint8).reshape(960, 1280, 3) for p in sys.argv[3:]]
    def detect(frame):
        blob = cv2.dnn.blobFromImage(frame, 1 / 255.0, (416, 416), swapRB=True, crop=False)
        net.setInput(blob)
        boxes, scores = [], []
        for out in net.forward(names):
            for row in out:
                s = row[5:]; c = int(np.argmax(s)); score = float(s[c])
                if score >= 0.25:
                    boxes.append([int((row[0] - row[2] / 2) * 1280) + c * 4096, int((row[1] - row[3] / 2) * 960),
                                  int(row[2] * 1280), int(row[3] * 960)]); scores.append(score)
        return cv2.dnn.NMSBoxes(boxes, scores, 0.25, 0.45)
    detect(np.full((416, 416, 3), 128, np.uint8))
    times = []
    for _ in range(int(sys.argv[2])):
        for frame in frames:
            start = time.perf_counter(); detect(frame); times.append((time.perf_counter() - start) * 1000)
    print(statistics.median(times))
    """
try script.write(to: work.path("baseline.py"), atomically: false, encoding: .utf8)
let python = try ProcessRunner.run(
    "/usr/bin/python3",
    [work.path("baseline.py").path, model, "\(rounds)"] + photos.indices.map { work.path("frame\($0).bgr").path },
    timeoutSeconds: 600)
let theirs = Double(python.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
let median = BenchFigures.median(ours)
print("find-object: YOLOv4-tiny at 416, 2 threads, \(frames.count) photos × \(rounds) rounds at 1280×960")
print(
    String(format: "  Assist's detector: %.1f ms per frame, %.1f frames/s (goal: at least 15)", median, 1_000 / median))
print(
    String(format: "  baseline, OpenCV's Python DNN on the same frames: %.1f ms, %.1f frames/s", theirs, 1_000 / theirs)
)
print(String(format: "  ratio Assist/Python: %.2f", median / theirs))
if python.status != 0 { print("  (the Python baseline failed: \(python.standardError.prefix(300)))") }

// Guidance through the whole host, at a camera's rate: the dog moved across a real picture on a known path, 90
// frames at 30 a second (ffmpeg's overlay, as FindObjectCLITests makes them), as JPEG pictures: what a webcam's
// MJPEG gives the host to decode (PNG's inflate took 42 % of the host's time here, which no camera costs). Each
// guidance event names its frame, where the position came from (a detection in that frame, the follower between
// detections) and the frame-to-cue latency; the process tree's samples give the host's CPU and memory.
let moving = try TemporaryDirectory("assist-find-bench-moving")
let count = 90
func truth(_ frame: Int) -> Double { 0.2 + 0.6 * Double(frame) / Double(count - 1) }
_ = try ProcessRunner.run(
    "/usr/bin/ffmpeg",
    [
        "-v", "error", "-loop", "1", "-i", "/usr/share/darknet/data/scream.jpg", "-loop", "1", "-i",
        "/usr/share/darknet/data/dog.jpg", "-filter_complex",
        "[0]scale=800:600,setsar=1[bg];[1]crop=190:320:130:220[dog];[bg][dog]overlay=x='(0.2+0.6*n/\(count - 1))*800-95':y=140",
        "-frames:v", "\(count)", "-q:v", "3", moving.path("f%03d.jpg").path,
    ], timeoutSeconds: 120)
var latencies: [Double] = []
var fromFollower = 0
var rightWay = 0
var clearFrames = 0
var errors: [Double] = []
var cpu: [Double] = []
var resident: [Double] = []
var peak: [Double] = []
for _ in 0..<5 {
    let data = try TemporaryDirectory("assist-find-bench-data")
    if let guided = try guidedRun(camera: "dir:\(moving.url.path)", data: data) {
        cpu.append(guided.cpu)
        resident.append(guided.resident)
        peak.append(guided.peak)
    }
    let journal = (try? String(contentsOf: data.path("events.jsonl"), encoding: .utf8)) ?? ""
    for line in journal.split(separator: "\n") where line.contains("assist.find-object.guidance") {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let event = object["payload"] as? [String: Any], let frame = event["frame"] as? Int,
            let x = event["x"] as? Double, let direction = event["direction"] as? String
        else { continue }
        latencies.append(event["latency_ms"] as? Double ?? 0)
        if event["from"] as? String == "follower" { fromFollower += 1 }
        errors.append(abs(x - truth(frame)))
        let expected = truth(frame) < 0.4 ? "left" : truth(frame) > 0.6 ? "right" : "centered"
        if abs(truth(frame) - 0.4) > 0.03 && abs(truth(frame) - 0.6) > 0.03 {
            clearFrames += 1
            if direction == expected { rightWay += 1 }
        }
    }
}
latencies.sort()
if latencies.isEmpty {
    print("find-object: no guidance events were recorded")
} else {
    let p95 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.95))]
    print("find-object: a dog moving across a picture, 90 frames at 30 frames/s, 5 runs, whole host")
    print(
        String(
            format: "  frame-to-cue latency over %d cues: p50 %.1f ms, p95 %.1f ms (goal: p95 at most 50 ms)",
            latencies.count, BenchFigures.median(latencies), p95))
    print(
        String(
            format:
                "  cues from the follower between detections: %.0f %%; position error median %.3f, p95 %.3f of the width",
            Double(fromFollower) / Double(latencies.count) * 100, BenchFigures.median(errors),
            errors.sorted()[min(errors.count - 1, Int(Double(errors.count) * 0.95))]))
    print(
        String(
            format: "  direction right in %.1f %% of cued frames away from a boundary (goal: at least 95 %%)",
            Double(rightWay) / Double(max(1, clearFrames)) * 100))
}
if !cpu.isEmpty {
    print(
        String(
            format:
                "  host CPU while guiding (from the first cue to the last frame): median %.0f %% of one core (goal: at most 120 %%)",
            BenchFigures.median(cpu)))
    print(
        String(
            format:
                "  resident while guiding: at most %.0f MB (goal: at most 150); the run's peak, models loading included, %.0f MB",
            resident.max() ?? 0, peak.max() ?? 0))
}

// 3. The webcam: the same 90 pictures at 640×480, looped by the fake device at 30 a second; each run guides for
// four seconds and is then stopped.
let webcamFrames = try TemporaryDirectory("assist-find-bench-webcam")
_ = try ProcessRunner.run(
    "/usr/bin/ffmpeg",
    [
        "-v", "error", "-i", moving.path("f%03d.jpg").path, "-vf", "scale=640:480", "-q:v", "3",
        webcamFrames.path("w%03d.jpg").path,
    ], timeoutSeconds: 120)
let fake = try FakeCamera(folder: webcamFrames.url)
let list = (1...count).map { webcamFrames.path(String(format: "w%03d.jpg", $0)).path }.joined(separator: ":")
var webcamCPU: [Double] = []
var webcamResident: [Double] = []
for _ in 0..<3 {
    let data = try TemporaryDirectory("assist-find-bench-data")
    if let guided = try guidedRun(
        camera: "v4l2:\(FakeCamera.devicePath)", data: data,
        environment: fake.environment(format: "MJPG", frames: list), seconds: 4)
    {
        webcamCPU.append(guided.cpu)
        webcamResident.append(guided.resident)
    }
}
if webcamCPU.isEmpty {
    print("find-object from a webcam (fake V4L2, MJPEG 640×480): nothing was guided")
} else {
    print("find-object from a webcam (the fake V4L2 device, MJPEG at 640×480, decoded by libv4l2), 3 runs of 4 s")
    print(
        String(
            format:
                "  host CPU while guiding: median %.0f %% of one core; resident while guiding: at most %.0f MB (goal: at most 150)",
            BenchFigures.median(webcamCPU), webcamResident.max() ?? 0))
}

/// Runs `assist run find-object dog` on `camera` at 30 frames/s with its data in `data`, and samples its process
/// tree every 20 ms: the CPU it used from the first guidance event in the data's journal to its last sample (as a percentage of one core), the most resident memory sampled in that
/// time, and the tree's peak resident memory over the whole run (MB). Nil when nothing was guided.
/// With `seconds`, the run is stopped (SIGTERM) that long after it started: a camera does not end by itself.
func guidedRun(
    camera: String, data: TemporaryDirectory, environment: [String: String] = [:], seconds: Double? = nil
) throws -> (cpu: Double, resident: Double, peak: Double)? {
    let events = data.path("events.jsonl")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: assist)
    process.arguments = [
        "run", "--no-speech", "--camera", camera, "--camera-fps", "30", "--data-dir", data.url.path, "find-object",
        "dog",
    ]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    let started = ProcessInfo.processInfo.systemUptime
    var stopped = false
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    var first: (time: Double, cpu: Double)?
    var last: (time: Double, cpu: Double)?
    var (resident, peak) = (0.0, 0.0)
    while process.isRunning {
        let sample = ProcessSample(process.processIdentifier, withDescendants: true)
        let time = ProcessInfo.processInfo.systemUptime
        peak = max(peak, sample.peakMB)
        if first == nil, let journal = try? String(contentsOf: events, encoding: .utf8),
            journal.contains("assist.find-object.guidance")
        {
            first = (time, sample.cpuSeconds)
        }
        if first != nil, sample.cpuSeconds > 0 {
            last = (time, sample.cpuSeconds)
            resident = max(resident, sample.residentMB)
        }
        if let seconds, !stopped, time - started > seconds {
            kill(process.processIdentifier, SIGTERM)
            stopped = true
        }
        usleep(20_000)
    }
    guard let first, let last, last.time - first.time > 0.5 else { return nil }
    return ((last.cpu - first.cpu) / (last.time - first.time) * 100, resident, peak)
}

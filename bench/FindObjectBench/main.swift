// find-object figures for issue 7, printed as plain lines:
// 1. Detection at 416×416 with 2 threads on Debian darknet's photos (resized to 1280×960, as the camera
//    delivers), through Assist's detector, beside OpenCV's own Python DNN (python3-opencv) running the same
//    model on the same frames with the same parameters, in the same run. Medians over ROUNDS passes.
// 2. Frame-to-cue latency: `assist run find-object dog` on a 16 fps picture source, from each frame's capture
//    time to its cue request (the guidance events' latency_ms), p50 and p95.
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

// Frame-to-cue latency through the whole host.
let data = try TemporaryDirectory("assist-find-bench-data")
_ = try ProcessRunner.run(
    assist,
    [
        "run", "--no-speech", "--camera", "image:/usr/share/darknet/data/dog.jpg", "--camera-fps", "16", "--data-dir",
        data.url.path, "find-object", "dog",
    ], timeoutSeconds: 12)
let journal = (try? String(contentsOf: data.path("events.jsonl"), encoding: .utf8)) ?? ""
let latencies = journal.split(separator: "\n").compactMap { line -> Double? in
    guard line.contains("assist.find-object.guidance"), let range = line.range(of: #""latency_ms":"#) else {
        return nil
    }
    return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
}.sorted()
if latencies.isEmpty {
    print("find-object: no guidance events were recorded")
} else {
    let p95 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.95))]
    print("find-object: frame-to-cue latency over \(latencies.count) cues, 16 fps picture source, whole host")
    print(String(format: "  p50 %.1f ms, p95 %.1f ms (goal: p95 at most 120 ms)", BenchFigures.median(latencies), p95))
}

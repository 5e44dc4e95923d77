// Outbox figures for issue 5, printed as plain lines:
// 1. Resident memory while a 1 GB multipart upload streams from a (sparse) file to the loopback server, first,
//    while the process is small.
// 2. JOBS (default 10k) small JSON jobs through the outbox (stored, sent by the worker, outcomes stored) to a
//    loopback server, beside the same requests sent by the bare libcurl sender without the queue, same run.
import Foundation
import HostTesting
import Logging
import Outbox

let jobs = Int(ProcessInfo.processInfo.environment["JOBS"] ?? "") ?? 10_000
let uploadBytes = Int64(ProcessInfo.processInfo.environment["UPLOAD_MB"].flatMap(Int64.init) ?? 1_024) << 20
let work = try TemporaryDirectory("assist-outbox-bench")
let server = try LoopbackHTTPServer(keptBodyBytes: 0) { _ in .answer(status: 201, body: Data(#"{"ok":true}"#.utf8)) }
let request = OutboxRequest(
    method: "POST", url: server.baseURL + "/api/answers", headers: [.init("Authorization", "Token bench")],
    body: .json(Data(#"{"question":1,"answer":"yes"}"#.utf8)))

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

// A 1 GB upload streamed from a sparse file by the real host (`assist outbox send`), its peak resident memory
// read from /proc beside the same command with nothing to send.
let assist = ProcessInfo.processInfo.environment["ASSIST"] ?? ".build/release/assist"

/// Runs `assist arguments`, returning its peak resident memory in MB (VmHWM), the peak of its private
/// anonymous part (RssAnon: heap and stacks, without the shared libraries' pages), and its duration in seconds.
func peakMemory(_ arguments: [String]) throws -> (megabytes: Double, anonymous: Double, seconds: Double) {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: assist)
    child.arguments = arguments
    child.standardOutput = FileHandle.nullDevice
    let start = DispatchTime.now().uptimeNanoseconds
    try child.run()
    var highest = 0.0
    var anonymous = 0.0
    while child.isRunning {
        let sample = ProcessSample(child.processIdentifier, withDescendants: false)
        highest = max(highest, sample.peakMB)
        anonymous = max(anonymous, sample.anonymousMB)
        usleep(5_000)
    }
    child.waitUntilExit()
    return (highest, anonymous, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

let big = work.path("recording.wav")
_ = FileManager.default.createFile(atPath: big.path, contents: nil)
let handle = try FileHandle(forWritingTo: big)
try handle.truncate(atOffset: UInt64(uploadBytes))
try handle.close()
let data = work.path("data")
let idle = try peakMemory(["outbox", "send", "--data-dir", data.path])
let queue = try OutboxStore(url: data.appendingPathComponent("outbox.sqlite"))
_ = try queue.enqueue(
    owner: "bench",
    request: OutboxRequest(
        method: "POST", url: server.baseURL + "/api/video/",
        body: .multipart(
            boundary: "bench",
            parts: [
                .field("id", "1"), .file("file", path: big.path, filename: "recording.wav", contentType: "audio/wav"),
            ])))
let busy = try peakMemory(["outbox", "send", "--data-dir", data.path])
print("outbox: one \(uploadBytes >> 20) MB multipart upload streamed from disk by 'assist outbox send'")
print(
    String(
        format: "  peak resident memory: %.1f MB in all, %.1f MB of it private (heap, stacks) (goal: under 50 MB)",
        busy.megabytes, busy.anonymous))
print(
    String(
        format:
            "  baseline, the same command with nothing to send: %.1f MB in all, %.1f MB private; the upload adds %.1f MB",
        idle.megabytes, idle.anonymous, busy.megabytes - idle.megabytes))
print(
    String(format: "  time: %.1f s (%.0f MB/s over loopback)", busy.seconds, Double(uploadBytes >> 20) / busy.seconds))
print("  server received \(server.bodyBytesReceived >> 20) MB, whole: \(server.requests.last?.complete == true)")

let sender = try HTTPSender()

// Baseline: the same requests, one connection kept alive, no queue.
let bare = try seconds { for _ in 0..<jobs { _ = try sender.send(request, idempotencyKey: "k") } }

// The outbox: enqueue everything, then let the worker drain it; once from one plugin (its jobs go one at a
// time, in order), once spread over four plugins (the two senders work side by side).
func drain(owners: Int, file: String) throws -> (enqueue: Double, drain: Double) {
    var logger = Logger(label: "bench")
    logger.logLevel = .error
    let store = try OutboxStore(url: work.path(file))
    let enqueueing = try seconds {
        for index in 0..<jobs { _ = try store.enqueue(owner: "bench-\(index % owners)", request: request) }
    }
    let outcomes = Collected<Int64>()
    let worker = OutboxWorker(store: store, logger: logger) { outcomes.append($0.jobID) }
    let draining = try seconds {
        try worker.start()
        _ = outcomes.wait(count: jobs, timeout: 3_600)
    }
    worker.stop()
    return (enqueueing, draining)
}
let one = try drain(owners: 1, file: "one.sqlite")
let four = try drain(owners: 4, file: "four.sqlite")
print("outbox: \(jobs) small jobs to a loopback server")
print(
    String(
        format: "  enqueue: %.0f jobs/s (%.1f µs each)", Double(jobs) / one.enqueue, one.enqueue / Double(jobs) * 1e6))
print(
    String(
        format: "  send through the outbox, one plugin: %.0f jobs/s (%.0f µs each, stored outcome included)",
        Double(jobs) / one.drain, one.drain / Double(jobs) * 1e6))
print(
    String(
        format: "  send through the outbox, four plugins: %.0f jobs/s (%.0f µs each)", Double(jobs) / four.drain,
        four.drain / Double(jobs) * 1e6))
print(
    String(
        format: "  baseline, bare libcurl sender: %.0f requests/s (%.0f µs each)", Double(jobs) / bare,
        bare / Double(jobs) * 1e6))
print(String(format: "  ratio outbox/bare: %.2f one plugin, %.2f four plugins", one.drain / bare, four.drain / bare))

server.stop()

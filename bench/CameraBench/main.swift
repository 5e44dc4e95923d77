// Frame bus figures for issue 3, printed as plain lines: the host's cost per frame per subscriber when
// 1080p BGR24 frames fan out to 5 subscribers whose format matches (so no copy is made), beside one memcpy
// of the same frame measured in the same run. Medians over ROUNDS rounds (default 5) of SECONDS each.
import Camera
import Foundation
import HostTesting
import Logging

/// 1080p BGR24 frames from a small pool, at `fps`, without drawing anything: only the bus is measured.
final class PoolSource: FrameSource {
    let width = 1920
    let height = 1080
    let framesPerSecond: Double
    private let pool = sharedPool
    private var sequence: UInt64 = 0
    private var start = DispatchTime.now().uptimeNanoseconds

    init(framesPerSecond: Double) {
        self.framesPerSecond = framesPerSecond
    }

    var name: String { "a 1080p pool" }
    var label: String { "pool" }
    var isLive: Bool { false }

    func next() throws -> Frame? {
        let due = start + UInt64(Double(sequence) / framesPerSecond * 1e9)
        let now = DispatchTime.now().uptimeNanoseconds
        if due > now { usleep(useconds_t((due - now) / 1_000)) }
        defer { sequence += 1 }
        return Frame(
            storage: pool[Int(sequence % 4)], format: .bgr24, width: width, height: height, stride: width * 3,
            timestampNs: DispatchTime.now().uptimeNanoseconds, sequence: sequence)
    }
}

/// Four 1080p frames' memory, shared by every source so deliveries can be checked for copies.
let sharedPool: [FrameStorage] = (0..<4).map { _ in
    let storage = FrameStorage(capacity: 1920 * 1080 * 3)
    storage.bytes.initializeMemory(as: UInt8.self, repeating: 128, count: storage.capacity)
    return storage
}
let poolIDs = Set(sharedPool.map(ObjectIdentifier.init))

func cpuSeconds() -> (user: Double, system: Double) { BenchFigures.cpuSeconds() }

/// The same pattern with no bus: a paced thread wakes 5 sleeping threads 120 times a second. What is left
/// when this is taken away is the bus's own work.
final class BareWakeups: @unchecked Sendable {  // because: `pending` and `woken` are guarded by `condition`
    let condition = NSCondition()
    var pending = [Int](repeating: 0, count: 5)
    var woken = 0
    var running = true

    func run(seconds: Double) -> (user: Double, system: Double, wakeups: Int) {
        let threads = (0..<5).map { index in
            Thread { [self] in
                condition.lock()
                while running {
                    while running && pending[index] == 0 { condition.wait() }
                    if pending[index] > 0 {
                        pending[index] = 0
                        woken += 1
                    }
                }
                condition.unlock()
            }
        }
        threads.forEach { $0.start() }
        let before = cpuSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        var tick = 0
        while Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < seconds {
            condition.withLock {
                for index in 0..<5 { pending[index] = 1 }
                condition.broadcast()
            }
            tick += 1
            let due = start + UInt64(Double(tick) / 120 * 1e9)
            let now = DispatchTime.now().uptimeNanoseconds
            if due > now { usleep(useconds_t((due - now) / 1_000)) }
        }
        let after = cpuSeconds()
        let count = condition.withLock {
            running = false
            condition.broadcast()
            return woken
        }
        return (after.user - before.user, after.system - before.system, count)
    }
}

final class Counter: @unchecked Sendable {  // because: guarded by `lock`
    private let lock = NSLock()
    private var value = 0
    private var copies = 0
    func add(_ frame: Frame) {
        lock.withLock {
            value += 1
            if !poolIDs.contains(ObjectIdentifier(frame.storage)) { copies += 1 }
        }
    }
    var count: Int { lock.withLock { value } }
    var copied: Int { lock.withLock { copies } }
}

let environment = ProcessInfo.processInfo.environment
let rounds = Int(environment["ROUNDS"] ?? "") ?? 5
let seconds = Double(environment["SECONDS_PER_ROUND"] ?? "") ?? 2
let subscribers = 5
let fps = 120.0

// Baseline: one memcpy of a 1080p BGR24 frame.
let frameBytes = 1920 * 1080 * 3
let from = UnsafeMutableRawPointer.allocate(byteCount: frameBytes, alignment: 64)
let to = UnsafeMutableRawPointer.allocate(byteCount: frameBytes, alignment: 64)
from.initializeMemory(as: UInt8.self, repeating: 7, count: frameBytes)
var copyTimes: [Double] = []
for _ in 0..<51 {
    let start = DispatchTime.now().uptimeNanoseconds
    to.copyMemory(from: from, byteCount: frameBytes)
    copyTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3)
}

var overheads: [Double] = []
var userOverheads: [Double] = []
var bareCosts: [Double] = []
var bareUser: [Double] = []
var deliveredTotal = 0
var copiesSeen = 0
for _ in 0..<rounds {
    let camera = CameraService(source: { PoolSource(framesPerSecond: 120) }, logger: Logger(label: "bench"))
    let counters = (0..<subscribers).map { _ in Counter() }
    var ids: [UInt64] = []
    let before = cpuSeconds()
    for counter in counters {
        ids.append(try camera.subscribe(owner: "bench", request: SubscriptionRequest()) { counter.add($0) })
    }
    Thread.sleep(forTimeInterval: seconds)
    for id in ids { camera.unsubscribe(id) }
    let after = cpuSeconds()
    let delivered = counters.reduce(0) { $0 + $1.count }
    userOverheads.append((after.user - before.user) / Double(max(1, delivered)) * 1e6)
    let cpu = after.user - before.user + after.system - before.system
    deliveredTotal += delivered
    copiesSeen += counters.reduce(0) { $0 + $1.copied }
    // The source's own pacing sleeps cost nothing; everything else is the bus: offers, wake-ups, views, calls.
    overheads.append(cpu / Double(max(1, delivered)) * 1e6)
}

for _ in 0..<rounds {
    let bare = BareWakeups().run(seconds: seconds)
    bareCosts.append((bare.user + bare.system) / Double(max(1, bare.wakeups)) * 1e6)
    bareUser.append(bare.user / Double(max(1, bare.wakeups)) * 1e6)
}

let median = BenchFigures.median
let overhead = median(overheads)
let copy = median(copyTimes)
print(
    "frame bus benchmark: 1080p BGR24 at \(Int(fps)) fps to \(subscribers) subscribers, \(rounds) rounds of \(seconds) s"
)
let bare = median(bareCosts)
print(String(format: "CPU per frame per subscriber, all in: %.2f µs (user %.2f µs)", overhead, median(userOverheads)))
print(
    String(
        format: "  a bare thread wake-up in the same pattern, no bus: %.2f µs (user %.2f µs)", bare, median(bareUser)))
print(String(format: "  the bus's own work (all in minus the wake-up): %.2f µs (goal <= 5 µs)", overhead - bare))
print(String(format: "  one memcpy of the frame (6.2 MB): %.1f µs; all-in ratio %.3f", copy, overhead / copy))
print("  frames delivered: \(deliveredTotal); deliveries that were copies: \(copiesSeen) (0 means zero-copy)")

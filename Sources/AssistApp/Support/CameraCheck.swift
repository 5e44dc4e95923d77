import Camera
import Foundation

/// Capture-to-callback times and the last frame's size, collected on a delivery thread.
package final class LatencyLog: @unchecked Sendable {  // because: guarded by `lock`
    private let lock = NSLock()
    private var values: [Double] = []
    private var lastSize = "no frames"

    package init() {}

    package func add(_ frame: Frame) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            values.append(Double(now &- frame.timestampNs) / 1e6)
            lastSize = "\(frame.width)x\(frame.height) \(frame.format)"
        }
    }

    package var size: String { lock.withLock { lastSize } }

    package func percentile(_ fraction: Double) -> String {
        let sorted = lock.withLock { values.sorted() }
        guard !sorted.isEmpty else { return "-" }
        return String(format: "%.2f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))])
    }
}

/// The first frame delivered, waited for by the command.
package final class SnapshotBox: @unchecked Sendable {  // because: guarded by `condition`
    private let condition = NSCondition()
    private var frame: Frame?
    private var toSkip: Int

    package init(skip: Int) {
        toSkip = skip
    }

    package func keep(_ delivered: Frame) {
        condition.withLock {
            if toSkip > 0 {
                toSkip -= 1
                return
            }
            if frame == nil { frame = delivered.copied() }
            condition.signal()
        }
    }

    package func wait(seconds: Double) -> Frame? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while frame == nil && condition.wait(until: deadline) {}
        return frame
    }
}

/// Writes frames as binary PPM (RGB24) or PGM (GRAY8): formats every image tool reads.
package enum PortableAnymap {
    package static func write(_ frame: Frame, to url: URL) throws {
        let gray = frame.format == .gray8
        var data = Data("\(gray ? "P5" : "P6")\n\(frame.width) \(frame.height)\n255\n".utf8)
        let rowBytes = frame.width * (gray ? 1 : 3)
        for row in 0..<frame.height {
            data.append(
                UnsafeRawBufferPointer(start: frame.pixels + row * frame.stride, count: rowBytes).bindMemory(
                    to: UInt8.self))
        }
        do { try data.write(to: url) } catch {
            throw CLIFailure(
                message: "The picture cannot be saved to \(url.path): the folder is missing or not writable.")
        }
    }
}

/// What `assist camera` checks: the picture source an admin set up, without starting a feature.
package enum CameraCheck {
    /// `assist camera test`: subscribes like plugins would and prints what each subscriber got.
    package static func test(
        options: HostOptions, request: SubscriptionRequest, seconds: Double, subscribers: Int, slowMs: Double
    ) throws {
        let session = try HostSession(options: options, interactive: false, speaks: false)
        defer { session.shutdown() }
        guard let camera = session.services.camera else { return }
        let latencies = (0..<subscribers).map { _ in LatencyLog() }
        var ids: [UInt64] = []
        do {
            for index in 0..<subscribers {
                let log = latencies[index]
                let pause = index == subscribers - 1 ? slowMs : 0
                ids.append(
                    try camera.subscribe(owner: "test-\(index + 1)", request: request) { frame in
                        log.add(frame)
                        if pause > 0 { usleep(useconds_t(pause * 1_000)) }
                    })
            }
        } catch let error as CameraError {
            throw CLIFailure(message: error.message)
        }
        Thread.sleep(forTimeInterval: seconds)
        let statistics = camera.statistics()
        let controls = ["focus", "exposure", "zoom"].compactMap { name in camera.control(name).map { (name, $0) } }
        for id in ids { camera.unsubscribe(id) }
        print("source: \(statistics.source); captured \(statistics.captured) frames in \(seconds) s")
        for (index, (owner, stats)) in statistics.subscribers.enumerated() {
            let log = latencies[index]
            print(
                "\(owner): \(log.size), delivered \(stats.delivered), dropped \(stats.dropped), "
                    + "skipped \(stats.skipped), converted \(stats.converted), "
                    + "latency p50 \(log.percentile(0.5)) ms, p95 \(log.percentile(0.95)) ms")
        }
        for (name, control) in controls {
            print("control \(name): \(control.value) (\(control.minimum) to \(control.maximum))")
        }
    }

    /// `assist camera snapshot OUT`: saves one frame as PPM (colour) or PGM (gray8).
    package static func snapshot(options: HostOptions, request: SubscriptionRequest, skip: Int, output: String) throws {
        let session = try HostSession(options: options, interactive: false, speaks: false)
        defer { session.shutdown() }
        guard let camera = session.services.camera else { return }
        var request = request
        if request.format == .yuyv || request.format == .bgr24 { request.format = .rgb24 }
        let box = SnapshotBox(skip: max(0, skip))
        let id: UInt64
        do {
            id = try camera.subscribe(owner: "snapshot", request: request) { frame in box.keep(frame) }
        } catch let error as CameraError {
            throw CLIFailure(message: error.message)
        }
        let frame = box.wait(seconds: 5)
        camera.unsubscribe(id)
        guard let frame else { throw CLIFailure(message: "No frame arrived from the camera in 5 seconds.") }
        try PortableAnymap.write(frame, to: URL(fileURLWithPath: output))
        print("Saved a \(frame.width)x\(frame.height) picture to \(output).")
    }
}

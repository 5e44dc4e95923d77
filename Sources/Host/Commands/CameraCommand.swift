import ArgumentParser
import Camera
import Foundation

/// `assist camera`: checks the picture source an admin set up, without starting a feature.
struct CameraCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "camera",
        abstract: "Check the camera or picture source: info, a timed test with delivery counters, a snapshot.",
        subcommands: [CameraTestCommand.self, CameraSnapshotCommand.self],
        defaultSubcommand: CameraTestCommand.self)
}

/// Options shared by the camera commands: what a subscriber asks for.
struct FrameOptions: ParsableArguments {
    @Option(help: "Pixel format: bgr24, rgb24, gray8 or yuyv.")
    var format: String = "bgr24"

    @Option(help: "Scale frames down to at most this width (0: no limit).")
    var maxWidth: Int = 0

    @Option(help: "Digital zoom, 1 to 8 (a centred crop).")
    var zoom: Double = 1

    @Flag(help: "Crop the centred square first.")
    var square = false

    func request(maxFramesPerSecond: Double = 0) throws -> SubscriptionRequest {
        let formats: [String: PixelFormat] = ["bgr24": .bgr24, "rgb24": .rgb24, "gray8": .gray8, "yuyv": .yuyv]
        guard let pixel = formats[format.lowercased()] else {
            throw ValidationError("--format must be bgr24, rgb24, gray8 or yuyv")
        }
        guard (1...8).contains(zoom) else { throw ValidationError("--zoom must be between 1 and 8") }
        guard maxWidth >= 0 else { throw ValidationError("--max-width cannot be negative") }
        return SubscriptionRequest(
            format: pixel, maxWidth: maxWidth, maxFramesPerSecond: maxFramesPerSecond, zoom: zoom, square: square)
    }
}

/// `assist camera test`: subscribes like plugins would and prints what each subscriber got.
struct CameraTestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Capture for a few seconds with one or more subscribers and print frames, drops and latency.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var frames: FrameOptions

    @Option(help: "How long to capture, in seconds (0.2 to 60).")
    var seconds: Double = 3

    @Option(help: "How many subscribers (1 to 8).")
    var subscribers: Int = 1

    @Option(help: "Make the last subscriber this slow, in ms per frame, to show that it drops only its own frames.")
    var slowMs: Double = 0

    @Option(help: "At most this many frames a second per subscriber (0: every frame).")
    var maxFps: Double = 0

    func validate() throws {
        guard (0.2...60).contains(seconds) else { throw ValidationError("--seconds must be between 0.2 and 60") }
        guard (1...8).contains(subscribers) else { throw ValidationError("--subscribers must be between 1 and 8") }
    }

    func run() throws {
        let session = try HostSession(options: global, interactive: false, speaks: false)
        defer { session.shutdown() }
        guard let camera = session.services.camera else { return }
        let request = try frames.request(maxFramesPerSecond: maxFps)
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
}

/// Capture-to-callback times and the last frame's size, collected on a delivery thread.
final class LatencyLog: @unchecked Sendable {  // because: guarded by `lock`
    private let lock = NSLock()
    private var values: [Double] = []
    private var lastSize = "no frames"

    func add(_ frame: Frame) {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock {
            values.append(Double(now &- frame.timestampNs) / 1e6)
            lastSize = "\(frame.width)x\(frame.height) \(frame.format)"
        }
    }

    var size: String { lock.withLock { lastSize } }

    func percentile(_ fraction: Double) -> String {
        let sorted = lock.withLock { values.sorted() }
        guard !sorted.isEmpty else { return "-" }
        return String(format: "%.2f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))])
    }
}

/// `assist camera snapshot OUT`: saves one frame as PPM (colour) or PGM (gray8).
struct CameraSnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot", abstract: "Save one frame as a PPM (colour) or PGM (gray8) file.")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var frames: FrameOptions

    @Option(help: "Skip this many frames first, while a camera settles its exposure.")
    var skip: Int = 0

    @Argument(help: "The file to write.")
    var output: String

    func run() throws {
        let session = try HostSession(options: global, interactive: false, speaks: false)
        defer { session.shutdown() }
        guard let camera = session.services.camera else { return }
        var request = try frames.request()
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

/// The first frame delivered, waited for by the command.
final class SnapshotBox: @unchecked Sendable {  // because: guarded by `condition`
    private let condition = NSCondition()
    private var frame: Frame?
    private var toSkip: Int

    init(skip: Int) {
        toSkip = skip
    }

    func keep(_ delivered: Frame) {
        condition.withLock {
            if toSkip > 0 {
                toSkip -= 1
                return
            }
            if frame == nil { frame = delivered.copied() }
            condition.signal()
        }
    }

    func wait(seconds: Double) -> Frame? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while frame == nil && condition.wait(until: deadline) {}
        return frame
    }
}

/// Writes frames as binary PPM (RGB24) or PGM (GRAY8): formats every image tool reads.
enum PortableAnymap {
    static func write(_ frame: Frame, to url: URL) throws {
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

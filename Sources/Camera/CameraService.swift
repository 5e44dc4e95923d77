import Foundation
import Logging

/// Something the user should hear about the camera.
package enum CameraNotice: Equatable, Sendable {
    /// No camera: the sample picture (or pattern) stands in; `reason` says why.
    case usingSample(reason: String)
    /// The device went away; Assist keeps trying to reopen it.
    case lost(String)
    /// The device is back.
    case back(String)
    /// A file source reached its end.
    case ended(String)
    /// A picture in a sequence was skipped, or a file failed mid-way.
    case problem(String)
}

/// The host's camera: one capture thread per source, opened when the first subscriber arrives and closed
/// when the last leaves (no camera use while nobody watches). Frames go to each subscriber's mailbox; see
/// `Subscriber`. A lost device is announced and reopened every second until it returns.
// because: every mutable member is guarded by `condition`; the source is used by the capture thread
package final class CameraService: @unchecked Sendable {
    private let condition = NSCondition()
    private let spec: CameraSpec
    private let customSource: (@Sendable () throws -> FrameSource)?
    private let framesPerSecond: Double?
    private let sample: URL
    private let logger: Logger
    private let onNotice: @Sendable (CameraNotice) -> Void
    private var subscribers: [Subscriber] = []
    private var source: FrameSource?
    private var capturing = false
    private var nextID: UInt64 = 1
    private var captured = 0
    private var sourceName = "none"
    private var released = DispatchSemaphore(value: 0)

    /// A service for `spec`; `framesPerSecond` overrides the source's rate; `sample` is the picture used when
    /// there is no camera. Notices are delivered on the capture thread or the subscribing thread.
    package init(
        spec: CameraSpec, framesPerSecond: Double? = nil, sample: URL, logger: Logger,
        onNotice: @escaping @Sendable (CameraNotice) -> Void
    ) {
        self.spec = spec
        self.customSource = nil
        self.framesPerSecond = framesPerSecond
        self.sample = sample
        self.logger = logger
        self.onNotice = onNotice
    }

    /// A service over a source of the caller's (benchmarks, tests); `open` runs when the first subscriber comes.
    package init(
        source open: @escaping @Sendable () throws -> FrameSource, logger: Logger,
        onNotice: @escaping @Sendable (CameraNotice) -> Void = { _ in }
    ) {
        self.spec = .pattern
        self.customSource = open
        self.framesPerSecond = nil
        self.sample = URL(fileURLWithPath: "/dev/null")
        self.logger = logger
        self.onNotice = onNotice
    }

    /// Subscribes `owner`; frames arrive on its own delivery thread. Opens the source when it is the first.
    /// Throws a `CameraError` when the source cannot be opened.
    package func subscribe(
        owner: String, request: SubscriptionRequest, handler: @escaping @Sendable (Frame) -> Void
    ) throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        if source == nil && !capturing {
            _ = try MediaLibrary.api()  // converts every frame; loaded with the first camera
            let opened = try open(preferring: request.format)
            source = opened
            sourceName = opened.name
            startCapture()
        }
        let id = nextID
        nextID += 1
        subscribers.append(Subscriber(id: id, owner: owner, request: request, handler: handler))
        return id
    }

    /// Changes a subscription (zoom, format, limits). Any thread.
    package func update(_ id: UInt64, _ request: SubscriptionRequest) {
        condition.withLock { subscribers.first { $0.id == id } }?.update(request)
    }

    /// Ends a subscription after its frame in progress; closes the source when it was the last. Any thread
    /// but that subscriber's delivery thread.
    package func unsubscribe(_ id: UInt64) {
        condition.lock()
        guard let index = subscribers.firstIndex(where: { $0.id == id }) else {
            condition.unlock()
            return
        }
        let subscriber = subscribers.remove(at: index)
        let last = subscribers.isEmpty
        condition.signal()
        condition.unlock()
        subscriber.stop()
        if last { waitForCaptureToEnd() }
    }

    /// Per-subscriber counters, the frames captured and the source's name.
    package func statistics() -> (source: String, captured: Int, subscribers: [(String, SubscriberStats)]) {
        condition.withLock { (sourceName, captured, subscribers.map { ($0.owner, $0.stats) }) }
    }

    /// Reads a device control while the camera is open; nil when it is closed or has no such control.
    package func control(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)? {
        condition.withLock { source }?.control(name)
    }

    /// Stops every subscription and the capture thread.
    package func shutdown() {
        for subscriber in condition.withLock({ subscribers }) { unsubscribe(subscriber.id) }
    }

    private func waitForCaptureToEnd() {
        guard condition.withLock({ capturing }) else { return }
        _ = released.wait(timeout: .now() + 3)
    }

    /// Opens the source for `spec`, falling back to the sample picture when the automatic camera is absent.
    private func open(preferring format: PixelFormat) throws -> FrameSource {
        if let customSource { return try customSource() }
        switch spec {
        case .v4l2(let path):
            return try V4L2Source(path: path, framesPerSecond: framesPerSecond ?? 0, preferring: format)
        case .image(let url):
            return try ImageSource(url: url, framesPerSecond: framesPerSecond ?? 10)
        case .directory(let url):
            let directory = try DirectorySource(url: url, framesPerSecond: framesPerSecond ?? 10)
            let notify = onNotice
            directory.onSkip = { notify(.problem($0)) }
            return directory
        case .video(let url):
            return try VideoSource(url: url, framesPerSecond: framesPerSecond)
        case .pattern:
            return PatternSource(framesPerSecond: framesPerSecond ?? 30)
        case .automatic:
            var reason = "no camera is connected"
            if let path = CameraSpec.videoDevices().first {
                do {
                    return try V4L2Source(path: path, framesPerSecond: framesPerSecond ?? 0, preferring: format)
                } catch let error as CameraError {
                    reason = error.message
                }
            }
            let fallback: FrameSource
            do {
                fallback = try ImageSource(url: sample, framesPerSecond: framesPerSecond ?? 10)
            } catch {
                logger.warning("the sample picture \(sample.path) cannot be read; using the test pattern")
                fallback = PatternSource(framesPerSecond: framesPerSecond ?? 30)
            }
            onNotice(.usingSample(reason: reason))
            return fallback
        }
    }

    private func startCapture() {
        capturing = true
        released = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in capture() }
        thread.name = "assist-camera-capture"
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    private func capture() {
        while true {
            switch captureOne() {
            case .next: continue
            case .stop: break
            case .lost(let name):
                // The lost source is released by now, so the device can be opened again.
                guard let back = reopen() else { break }
                condition.withLock { source = back }
                onNotice(.back(back.name))
                logger.info("\(name) is back")
                continue
            }
            break
        }
        condition.withLock {
            source = nil
            capturing = false
        }
        released.signal()
    }

    private enum Step {
        case next, stop
        case lost(String)
    }

    /// Captures and hands out one frame.
    private func captureOne() -> Step {
        guard let current = condition.withLock({ subscribers.isEmpty ? nil : source }) else { return .stop }
        do {
            guard let frame = try current.next() else {
                onNotice(.ended(current.label))
                return .stop
            }
            let targets = condition.withLock {
                captured += 1
                return subscribers
            }
            for subscriber in targets { subscriber.offer(frame) }
            return .next
        } catch let error as CameraError where error.code == .damaged {
            // Said once; the camera is still there and capture goes on (its next good frame is handed out).
            if error.cause != CameraError.quietly {
                logger.info("\(error.message)")
                onNotice(.problem(error.message))
            }
            return .next
        } catch let error as CameraError where error.code == .lost && current.isLive {
            logger.info("\(error.message) (\(error.cause ?? "no detail"))")
            onNotice(.lost(current.name))
            condition.withLock { source = nil }
            return .lost(current.name)
        } catch {
            onNotice(.problem((error as? CameraError)?.message ?? "The camera failed: \(error)."))
            return .stop
        }
    }

    /// Tries to open the lost device every second while anyone is subscribed.
    private func reopen() -> FrameSource? {
        while condition.withLock({ !subscribers.isEmpty }) {
            let wanted = condition.withLock { subscribers.first }?.wantedFormat ?? .bgr24
            if let back = try? open(preferring: wanted) { return back }
            condition.lock()
            _ = condition.wait(until: Date(timeIntervalSinceNow: 1))
            condition.unlock()
        }
        return nil
    }
}

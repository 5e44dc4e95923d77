import Foundation

/// What a subscriber wants: a pixel format, a size limit, a rate limit, digital zoom and a square crop.
package struct SubscriptionRequest: Equatable, Sendable {
    package var format: PixelFormat
    /// Frames larger than this are scaled down, keeping their shape; 0 means no limit.
    package var maxWidth: Int
    package var maxHeight: Int
    /// At most this many frames a second; 0 means every frame.
    package var maxFramesPerSecond: Double
    /// Digital zoom: a centred crop of 1/zoom of each side (1 = the whole frame).
    package var zoom: Double
    /// Crop the centred square first (collect-videos records 1080x1080).
    package var square: Bool

    package init(
        format: PixelFormat = .bgr24, maxWidth: Int = 0, maxHeight: Int = 0, maxFramesPerSecond: Double = 0,
        zoom: Double = 1, square: Bool = false
    ) {
        self.format = format
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxFramesPerSecond = maxFramesPerSecond
        self.zoom = zoom
        self.square = square
    }

    /// The size `width` x `height` fits in under the limits, keeping its shape (even, for YUYV and codecs).
    package func fittedSize(width: Int, height: Int) -> (Int, Int) {
        var scale = 1.0
        if maxWidth > 0 { scale = min(scale, Double(maxWidth) / Double(width)) }
        if maxHeight > 0 { scale = min(scale, Double(maxHeight) / Double(height)) }
        guard scale < 1 else { return (width, height) }
        let fitted = (Int(Double(width) * scale) / 2 * 2, Int(Double(height) * scale) / 2 * 2)
        return (max(2, fitted.0), max(2, fitted.1))
    }
}

/// Counters for one subscriber, for `assist camera test` and the doctor.
package struct SubscriberStats: Equatable, Sendable {
    /// Frames the capture thread offered.
    package var offered = 0
    /// Frames handed to the subscriber.
    package var delivered = 0
    /// Frames replaced in the mailbox before the subscriber took them (it was busy).
    package var dropped = 0
    /// Frames left out to keep under the rate limit.
    package var skipped = 0
    /// Deliveries that needed a conversion or scaling (the rest were zero-copy views).
    package var converted = 0

    package init() {}
}

/// One subscription: a one-frame mailbox filled by the capture thread (the newest frame wins) and a delivery
/// thread that converts the frame as asked and calls the handler, so a slow subscriber only drops its own
/// frames and never holds up capture or the others.
// because: `mailbox`, `request`, `stats`, `running` and `lastAcceptedNs` are guarded by `condition`
final class Subscriber: @unchecked Sendable {
    let id: UInt64
    let owner: String
    private let handler: @Sendable (Frame) -> Void
    private let condition = NSCondition()
    private var mailbox: Frame?
    private var request: SubscriptionRequest
    private var running = true
    private var lastAcceptedNs: UInt64?
    private(set) var statsSnapshot = SubscriberStats()
    private let finished = DispatchSemaphore(value: 0)
    /// Weak: the thread's closure holds the subscriber, so a strong reference back would keep both (and the
    /// handler, and the frame it last kept) alive after the thread ends. The thread keeps itself alive while
    /// it runs.
    private weak var deliveryThread: Thread?

    init(id: UInt64, owner: String, request: SubscriptionRequest, handler: @escaping @Sendable (Frame) -> Void) {
        self.id = id
        self.owner = owner
        self.request = request
        self.handler = handler
        let thread = Thread { [self] in deliver() }
        thread.name = "assist-camera-\(owner)"
        thread.qualityOfService = .userInitiated
        deliveryThread = thread
        thread.start()
    }

    /// Changes what the subscriber gets from the next frame on (a zoom change). Any thread.
    /// The format this subscriber wants now. Any thread.
    var wantedFormat: PixelFormat { condition.withLock { request.format } }

    func update(_ request: SubscriptionRequest) {
        condition.withLock { self.request = request }
    }

    var stats: SubscriberStats { condition.withLock { statsSnapshot } }

    /// Puts `frame` in the mailbox unless the rate limit says to skip it. Capture thread.
    func offer(_ frame: Frame) {
        condition.lock()
        defer { condition.unlock() }
        statsSnapshot.offered += 1
        if request.maxFramesPerSecond > 0, let last = lastAcceptedNs {
            // 10 % slack so a 15 fps limit on a 30 fps camera keeps every other frame.
            let interval = UInt64(0.9e9 / request.maxFramesPerSecond)
            if frame.timestampNs < last + interval {
                statsSnapshot.skipped += 1
                return
            }
        }
        lastAcceptedNs = frame.timestampNs
        if mailbox != nil { statsSnapshot.dropped += 1 }
        mailbox = frame
        condition.signal()
    }

    /// Ends the delivery thread after the frame in progress. Any thread but the delivery thread itself.
    func stop() {
        condition.withLock {
            running = false
            mailbox = nil
            condition.signal()
        }
        if Thread.current !== deliveryThread { _ = finished.wait(timeout: .now() + 5) }
    }

    private func deliver() {
        var adapter = FrameAdapter()
        while true {
            condition.lock()
            while running && mailbox == nil { condition.wait() }
            guard running, let frame = mailbox else {
                condition.unlock()
                break
            }
            mailbox = nil
            let wanted = request
            condition.unlock()
            let (adapted, converted) = adapter.adapt(frame, to: wanted)
            // Counted before the call: a subscriber that asks for its stats never has seen more frames than
            // they count (the count used to trail by the frame being handled).
            condition.withLock {
                statsSnapshot.delivered += 1
                if converted { statsSnapshot.converted += 1 }
            }
            handler(adapted)
        }
        finished.signal()
    }
}

/// Turns a captured frame into what a subscriber asked for: a crop view when the format and size already
/// match (no copy), else one swscale pass into storage reused from the previous delivery when nobody kept it.
struct FrameAdapter {
    private var scaler: Scaler?
    private var spare: FrameStorage?

    /// The adapted frame, and whether it had to be converted.
    mutating func adapt(_ frame: Frame, to request: SubscriptionRequest) -> (Frame, Bool) {
        let view = frame.zoomed(request.zoom, square: request.square)
        let (width, height) = request.fittedSize(width: view.width, height: view.height)
        if view.format == request.format && width == view.width && height == view.height {
            return (view, false)
        }
        let key = Scaler.Key(
            sourceWidth: view.width, sourceHeight: view.height, sourceFormat: view.format, targetWidth: width,
            targetHeight: height, targetFormat: request.format)
        if scaler?.key != key { scaler = Scaler(key) }
        guard let scaler else { return (view, false) }
        var reusable: FrameStorage?
        if var candidate = spare {
            spare = nil
            if isKnownUniquelyReferenced(&candidate) { reusable = candidate }
        }
        let converted = scaler.convert(view, into: reusable)
        spare = converted.storage
        return (converted, true)
    }
}

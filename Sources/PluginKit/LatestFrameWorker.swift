import Foundation
import PluginAPI

/// The latest camera frame to a worker thread of the plugin's own: the frame callback only retains the newest
/// frame here (a newer one replaces and releases the older), and the worker runs `process` on it, so the
/// host's frame thread is never held and the work always starts on the newest picture. At most three frames
/// are retained at once, within the host's budget of 4: one being processed, one waiting, and for a moment
/// the newest that replaces it. `process` returns a back-off delay; the frames that arrive during it are
/// dropped. find-object searches its frames this way.
///
///     let worker = LatestFrameWorker(host: host, name: "my-plugin-ocr") { frame in recognise(frame); return 0 }
///     // in on_frame:
///     worker.offer(frame)
///     // in stop:
///     worker.stop()
// because: `slot`, `running`, `finished` and `replacedCount` are guarded by `condition`; `retain` and
// `release` are the camera service's, callable from any thread
public final class LatestFrameWorker: @unchecked Sendable {
    public typealias Retain = (UnsafePointer<assist_frame>) -> UnsafePointer<assist_frame>?
    public typealias Release = (UnsafePointer<assist_frame>) -> Void
    private let retain: Retain
    private let release: Release
    private let condition = NSCondition()
    private var slot: UnsafePointer<assist_frame>?
    private var running = true
    private var finished = false
    /// Frames replaced by a newer one before they were searched.
    public var replaced: Int { condition.withLock { replacedCount } }
    private var replacedCount = 0

    /// A worker whose frames are kept with the camera service's `retain` and `release`.
    public convenience init(
        host: PluginHostHandle, name: String, process: @escaping @Sendable (CameraFrame) -> Double
    ) {
        self.init(
            name: name, retain: { host.retainFrame($0) }, release: { host.releaseFrame($0) }, process: process)
    }

    /// `retain` and `release` keep frames past the callback (the camera service's, or a test's); `process`
    /// works on one and returns the back-off delay in milliseconds.
    public init(
        name: String, retain: @escaping Retain, release: @escaping Release,
        process: @escaping @Sendable (CameraFrame) -> Double
    ) {
        self.retain = retain
        self.release = release
        let thread = Thread { [self] in loop(process) }
        thread.name = name
        thread.start()
    }

    /// Keeps `frame` for the worker. [frame thread]
    public func offer(_ frame: CameraFrame) {
        guard let kept = retain(frame.raw) else { return }
        let older: UnsafePointer<assist_frame>? = condition.withLock {
            guard running else { return kept }
            let older = slot
            slot = kept
            if older != nil { replacedCount += 1 }
            condition.signal()
            return older
        }
        if let older { release(older) }
    }

    /// Ends the thread after the frame being processed and waits (at most `timeout` seconds) until it has
    /// released that frame, so no frame outlives the plugin's stop; a waiting frame is released at once.
    /// Any thread but the search thread; `process` must not wait for the caller.
    public func stop(timeout: Double = 5) {
        let waiting: UnsafePointer<assist_frame>? = condition.withLock {
            running = false
            defer { slot = nil }
            condition.broadcast()
            return slot
        }
        if let waiting { release(waiting) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.withLock {
            while !finished, condition.wait(until: deadline) {}
        }
    }

    /// Processes each newest frame; `process` returns a back-off delay, and frames that arrive during it are
    /// dropped, so the next search starts on a frame captured after it.
    private func loop(_ process: (CameraFrame) -> Double) {
        while true {
            condition.lock()
            while running && slot == nil { condition.wait() }
            guard running, let frame = slot else {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            slot = nil
            condition.unlock()
            let delay = CameraFrame(frame).map(process) ?? 0
            release(frame)
            guard delay > 0 else { continue }
            // The back-off: frames arriving meanwhile are dropped; a stop ends it at once.
            let stale: UnsafePointer<assist_frame>? = condition.withLock {
                let until = Date(timeIntervalSinceNow: delay / 1_000)
                while running, condition.wait(until: until) {}
                defer { slot = nil }
                return slot
            }
            if let stale { release(stale) }
        }
    }
}

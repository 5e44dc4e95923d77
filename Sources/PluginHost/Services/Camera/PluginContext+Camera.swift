import Camera
import Foundation
import PluginAPI
import Runtime

/// The frames a plugin retained, and the one it is being handed.
final class CameraState: @unchecked Sendable {  // because: everything is guarded by `lock`
    let lock = NSLock()
    /// Retained frame headers, with the frame that keeps their memory alive and when they were retained.
    var retained: [UnsafeMutablePointer<assist_frame>: (Frame, UInt64)] = [:]
    var slowCalls = 0
    /// The frame `on_frame` is being called with, so `retain` can keep its memory.
    var current: Frame?
    /// How many frames a plugin may hold at once (plugin-abi.md §5).
    static let retainBudget = 4
}

extension PluginContext {
    /// Subscribes or changes the subscription; frames go to the instance's `on_frame` on the delivery thread.
    func subscribeCamera(_ request: SubscriptionRequest) throws {
        let wasSubscribed = services.camera.isSubscribed
        try services.camera.subscribe(request) { [self] frame in deliver(frame) }
        if wasSubscribed { return }
        // Kept after the plugin unsubscribes: frames it retained stay valid until it releases them or stops.
        holdings.hold("camera") { [weak self] in
            self?.endCameraSubscription()
            self?.freeRetainedFrames()
        }
    }

    /// Ends the subscription, waiting for an `on_frame` in progress. Retained frames stay valid until the
    /// plugin releases them, or until it is torn down. Main loop.
    func endCameraSubscription() {
        services.camera.unsubscribe()
    }

    /// Frees the frames a plugin never released; only once it is destroyed. Main loop.
    func freeRetainedFrames() {
        let leftovers = cameraState.lock.withLock {
            defer { cameraState.retained.removeAll() }
            return Array(cameraState.retained.keys)
        }
        if !leftovers.isEmpty { misbehaving("camera: \(leftovers.count) retained frame(s) were never released") }
        for header in leftovers { header.deallocate() }
    }

    /// Calls `on_frame` with a borrowed header over `frame`. Delivery thread.
    private func deliver(_ frame: Frame) {
        guard let instance, let onFrame = table.on_frame else { return }
        var header = Self.header(for: frame)
        cameraState.lock.withLock { cameraState.current = frame }
        let start = DispatchTime.now().uptimeNanoseconds
        let waitedBefore = ThreadSchedule.runQueueWaitNs()
        withUnsafePointer(to: &header) { onFrame(instance, $0) }
        cameraState.lock.withLock { cameraState.current = nil }
        var elapsedMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        // Time the delivery thread waited for a processor (a busy machine) is not the plugin's: only its own
        // work, or its own blocking, counts.
        if elapsedMs > 20, let before = waitedBefore, let after = ThreadSchedule.runQueueWaitNs(), after >= before {
            elapsedMs -= Double(after - before) / 1e6
        }
        if elapsedMs > 20 {
            let count = cameraState.lock.withLock {
                cameraState.slowCalls += 1
                return cameraState.slowCalls
            }
            // A habit, not one spike: a plugin that works in on_frame is slow at every frame and is named at its
            // third, while a single call a page fault or a preempted lock made slow is not.
            if count == 3 || count % 100 == 0 {
                misbehaving("on_frame took \(Int(elapsedMs)) ms (over 20 ms, \(count) times); move work to a worker")
            }
        }
    }

    /// Keeps `frame`'s memory beyond `on_frame`; nil over the budget.
    func retainFrame(_ borrowed: UnsafePointer<assist_frame>) -> UnsafePointer<assist_frame>? {
        cameraState.lock.withLock {
            guard cameraState.retained.count < CameraState.retainBudget, let frame = cameraState.current,
                UnsafeRawPointer(borrowed.pointee.plane.0) == frame.pixels
            else { return nil }
            let copy = UnsafeMutablePointer<assist_frame>.allocate(capacity: 1)
            copy.initialize(to: borrowed.pointee)
            cameraState.retained[copy] = (frame, DispatchTime.now().uptimeNanoseconds)
            return UnsafePointer(copy)
        }
    }

    /// Frees a header from `retainFrame`; false when it is not one.
    func releaseFrame(_ retained: UnsafePointer<assist_frame>) -> Bool {
        let pointer = UnsafeMutablePointer(mutating: retained)
        guard let (_, since) = cameraState.lock.withLock({ cameraState.retained.removeValue(forKey: pointer) }) else {
            return false
        }
        let heldSeconds = Double(DispatchTime.now().uptimeNanoseconds - since) / 1e9
        if heldSeconds > 2 { misbehaving("camera: a retained frame was held \(String(format: "%.1f", heldSeconds)) s") }
        pointer.deallocate()
        return true
    }

    static func header(for frame: Frame) -> assist_frame {
        var header = assist_frame()
        header.struct_size = UInt32(MemoryLayout<assist_frame>.size)
        header.fourcc = frame.format.rawValue
        header.width = UInt32(frame.width)
        header.height = UInt32(frame.height)
        header.plane_count = 1
        header.stride.0 = UInt32(frame.stride)
        header.plane.0 = frame.pixels.assumingMemoryBound(to: UInt8.self)
        header.fd = -1
        header.timestamp_ns = frame.timestampNs
        header.seq = frame.sequence
        return header
    }
}

internal import CDetectorAPI
import Foundation

/// Follows one target from picture to picture between detections (libAssistDetector.so's follower: corners
/// inside its box, Lucas-Kanade optical flow, checked forwards and backwards). A step costs a few milliseconds,
/// so it runs on every camera frame while the detector, ten times slower, corrects it. One thread uses it at a
/// time.
public final class ObjectFollower {
    private let handle: OpaquePointer
    private let library: assist_det_functions
    /// True while a target is followed.
    public private(set) var isFollowing = false

    /// Nil when the detector library cannot be opened or has no follower.
    public init?() {
        guard let library = try? DetectorLibrary.functions(), let open = library.trk_open, let handle = open() else {
            return nil
        }
        self.library = library
        self.handle = handle
    }

    deinit { library.trk_close?(handle) }

    /// Starts following `box` from this BGR24 picture; false when the box holds nothing to follow.
    @discardableResult
    public func start(bgr: UnsafeRawPointer, width: Int, height: Int, stride: Int, box: Detection) -> Bool {
        var start = assist_det_box(
            x: Float(box.x), y: Float(box.y), w: Float(box.width), h: Float(box.height), score: Float(box.score),
            class_id: Int32(box.classID))
        let corners =
            library.trk_start?(
                handle, bgr.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), stride, &start) ?? 0
        isFollowing = corners > 0
        return isFollowing
    }

    /// Where the target is in this picture (the next after the last one given), or nil when it is lost.
    public func step(bgr: UnsafeRawPointer, width: Int, height: Int, stride: Int) -> Detection? {
        guard isFollowing else { return nil }
        var box = assist_det_box()
        let corners =
            library.trk_step?(
                handle, bgr.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), stride, &box)
            ?? 0
        isFollowing = corners > 0
        guard isFollowing else { return nil }
        return Detection(
            x: Double(box.x), y: Double(box.y), width: Double(box.w), height: Double(box.h), score: 1, classID: -1)
    }

    /// Stops following.
    public func stop() { isFollowing = false }
}

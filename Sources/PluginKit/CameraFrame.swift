import Foundation
import PluginABI
import PluginAPI

/// The pixel formats the camera delivers, by their `ASSIST_FOURCC_*` codes.
public enum PixelFormat: Sendable, CaseIterable {
    case bgr24, rgb24, gray8, yuyv

    /// The format of a four-character code; nil for one the ABI does not name.
    public init?(fourcc: UInt32) {
        guard let format = Self.allCases.first(where: { $0.fourcc == fourcc }) else { return nil }
        self = format
    }

    public var fourcc: UInt32 {
        switch self {
        case .bgr24: ASSIST_FOURCC_BGR24
        case .rgb24: ASSIST_FOURCC_RGB24
        case .gray8: ASSIST_FOURCC_GRAY8
        case .yuyv: ASSIST_FOURCC_YUYV
        }
    }

    /// Bytes of one pixel in the first plane (YUYV: two pixels in four bytes).
    public var bytesPerPixel: Int {
        switch self {
        case .bgr24, .rgb24: 3
        case .gray8: 1
        case .yuyv: 2
        }
    }
}

/// A camera frame as a plugin reads it: its format, size, rows and capture time. Borrowed like the frame it
/// views: valid only while `handle(frame:)` runs, or while a `RetainedFrame` holding it lives.
public struct CameraFrame {
    /// The host's frame, for the camera service's own calls.
    public let raw: UnsafePointer<assist_frame>
    public let format: PixelFormat
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (at least `width * format.bytesPerPixel`).
    public let stride: Int
    /// The first plane: `height` rows of `stride` bytes, the last only as long as its pixels.
    public let pixels: UnsafePointer<UInt8>
    /// CLOCK_MONOTONIC nanoseconds at capture.
    public let timestamp: UInt64
    /// +1 per captured frame; a gap means frames were dropped.
    public let sequence: UInt64

    /// A view of `raw`; nil for a frame below ABI 1.0's size, in a format the ABI does not name, with no pixels,
    /// or with rows shorter than its width.
    public init?(_ raw: UnsafePointer<assist_frame>) {
        guard let header = assist_frame.read(raw), let format = PixelFormat(fourcc: header.fourcc),
            let plane = header.plane.0, header.width > 0, header.height > 0,
            Int(header.stride.0) >= Int(header.width) * format.bytesPerPixel
        else { return nil }
        self.raw = raw
        self.format = format
        width = Int(header.width)
        height = Int(header.height)
        stride = Int(header.stride.0)
        pixels = plane
        timestamp = header.timestamp_ns
        sequence = header.seq
    }

    /// The pixels copied out, rows packed with no padding: what a plugin keeps past the callback when it
    /// holds a picture longer than a frame should be held.
    public func copyPixels() -> [UInt8] {
        let row = width * format.bytesPerPixel
        var copy = [UInt8](repeating: 0, count: row * height)
        copy.withUnsafeMutableBytes { target in
            guard let base = target.baseAddress else { return }
            for line in 0..<height { (base + line * row).copyMemory(from: pixels + line * stride, byteCount: row) }
        }
        return copy
    }
}

/// A frame kept past `handle(frame:)` with the camera service's `retain`, given back when the last reference
/// to it goes (or at `release()`), so a plugin cannot forget one. At most 4 are kept at once per plugin.
// because: the frame is read-only and `release` is callable from any thread; `released` is guarded by `lock`
public final class RetainedFrame: @unchecked Sendable {
    public let frame: CameraFrame
    private let giveBack: (UnsafePointer<assist_frame>) -> Void
    private let lock = NSLock()
    private var released = false

    /// `frame`, given back with `giveBack` once (`PluginHostHandle.retain` makes these with the camera's release).
    public init(_ frame: CameraFrame, giveBack: @escaping (UnsafePointer<assist_frame>) -> Void) {
        self.frame = frame
        self.giveBack = giveBack
    }

    /// Gives the frame back now; `frame` must not be read after. Later calls do nothing.
    public func release() {
        let first = lock.withLock {
            defer { released = true }
            return !released
        }
        if first { giveBack(frame.raw) }
    }

    deinit { release() }
}

extension PluginHostHandle {
    /// Asks for frames in `format`. Wraps `subscribe`; see `subscribeCamera(fourcc:…)`.
    public func subscribeCamera(
        format: PixelFormat, maxWidth: Int = 0, maxHeight: Int = 0, maxFramesPerSecond: Double = 0, zoom: Double = 1,
        square: Bool = false
    ) throws(PluginStatus) {
        try subscribeCamera(
            fourcc: format.fourcc, maxWidth: maxWidth, maxHeight: maxHeight, maxFramesPerSecond: maxFramesPerSecond,
            zoom: zoom, square: square)
    }

    /// Keeps `frame` beyond `handle(frame:)`; nil over the budget of 4. [frame]
    public func retain(_ frame: CameraFrame) -> RetainedFrame? {
        guard let kept = retainFrame(frame.raw) else { return nil }
        guard let view = CameraFrame(kept) else {
            releaseFrame(kept)
            return nil
        }
        return RetainedFrame(view) { [self] in releaseFrame($0) }
    }
}

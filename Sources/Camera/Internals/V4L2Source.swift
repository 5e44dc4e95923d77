internal import CV4L2Shims
import Foundation
import Runtime

/// A V4L2 camera through libv4l2, in the format its first subscriber wants: the device's own when that is it
/// (or grey from YUYV, which the subscriber takes from the Y bytes), else BGR24 or RGB24 that libv4l2 converts
/// once for every subscriber (from YUYV, MJPEG, Bayer). Owns the device handle and closes it in `deinit`. Each dequeued buffer is copied once into frame
/// storage and given straight back to the driver, so slow subscribers never starve the ring.
final class V4L2Source: FrameSource {
    private let device: OpaquePointer
    private let path: String
    let width: Int
    let height: Int
    let framesPerSecond: Double
    private let stride: Int
    /// The format frames are published in.
    let format: PixelFormat
    /// The device's own description, for `assist camera info`.
    let details: String
    /// When frames began to come that could not be read, and whether that has been said.
    private var damagedSince: Double?
    private var damageSaid = false
    static let damageSaidAfter = 3.0

    /// Opens `path` and starts streaming at about `width` x `height` and `framesPerSecond` (0 for the device's
    /// choice) with 4 buffers. Wraps `assist_v4l2_open`.
    /// `preferring`: the first subscriber's format, which decides the capture format (see `assist_v4l2_open`).
    init(
        path: String, width: Int = 0, height: Int = 0, framesPerSecond: Double = 0, preferring: PixelFormat = .bgr24
    ) throws {
        var handle: OpaquePointer?
        var reason = [CChar](repeating: 0, count: 256)
        let status = assist_v4l2_open(
            path, preferring.rawValue, UInt32(width), UInt32(height), framesPerSecond, 4, &handle, &reason,
            reason.count)
        let text = String(nulTerminated: reason)
        guard status == 0, let handle else {
            switch -status {
            case ENOENT, ENXIO: throw CameraError.missing(path, cause: text)
            case EBUSY: throw CameraError.busy(path, cause: text)
            case EACCES, EPERM:
                throw CameraError.unsupported(path, cause: "permission denied; add yourself to the video group")
            default: throw CameraError.unsupported(path, cause: text.isEmpty ? nil : text)
            }
        }
        device = handle
        self.path = path
        var info = assist_v4l2_info()
        assist_v4l2_get_info(handle, &info)
        self.width = Int(info.width)
        self.height = Int(info.height)
        self.stride = Int(info.stride)
        self.format = PixelFormat(rawValue: info.fourcc) ?? .bgr24
        self.framesPerSecond = info.fps > 0 ? info.fps : 30
        let card = String(nulTerminatedTuple: info.card)
        let driver = String(nulTerminatedTuple: info.driver)
        details =
            "\(card) (\(driver)), \(info.width)x\(info.height) \(format) at \(self.framesPerSecond) fps, \(info.buffers) buffers"
    }

    deinit {
        assist_v4l2_close(device)
    }

    var name: String { "the camera \(path)" }
    var label: String { path }
    var isLive: Bool { true }

    /// Waits up to 2 s for a frame. Wraps `assist_v4l2_dequeue` and `assist_v4l2_requeue`.
    func next() throws -> Frame? {
        let called = ProcessInfo.processInfo.systemUptime
        while true {
            var data: UnsafePointer<UInt8>?
            var bytes = 0
            var timestamp: UInt64 = 0
            var sequence: UInt32 = 0
            var index: UInt32 = 0
            let status = assist_v4l2_dequeue(device, 2_000, &data, &bytes, &timestamp, &sequence, &index)
            if status == -ETIMEDOUT { throw CameraError.lost(path, cause: "no frame for 2 seconds") }
            if status == -EIO {
                // Frames that could not be read, the camera still there: skipped, and said once when nothing
                // else has come for 3 seconds (not a disconnection, so the device is not reopened).
                let now = ProcessInfo.processInfo.systemUptime
                let since = damagedSince ?? now
                damagedSince = since
                if !damageSaid && now - since >= Self.damageSaidAfter {
                    damageSaid = true
                    throw CameraError.damaged(path)
                }
                // Back to the capture loop every 2 s, as a timeout is, so that it sees who still watches.
                if now - called >= 2 { throw CameraError.damaged(path, quiet: true) }
                usleep(20_000)  // a driver that fails at once is not asked again in a tight loop
                continue
            }
            damagedSince = nil
            damageSaid = false
            guard status == 0, let data else {
                throw CameraError.lost(path, cause: String(cString: strerror(-status)))
            }
            // A frame cut short (a USB glitch) is dropped: its sequence gap tells subscribers, and no
            // subscriber is ever handed bytes the camera did not write.
            guard bytes >= stride * (height - 1) + width * format.bytesPerPixel else {
                _ = assist_v4l2_requeue(device, index)
                continue
            }
            let storage = FrameStorage(capacity: stride * height)
            storage.bytes.copyMemory(from: data, byteCount: min(bytes, stride * height))
            _ = assist_v4l2_requeue(device, index)
            return Frame(
                storage: storage, format: format, width: width, height: height, stride: stride,
                timestampNs: timestamp, sequence: UInt64(sequence))
        }
    }

    /// Wraps `assist_v4l2_control`.
    func control(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)? {
        var value: Int64 = 0
        var minimum: Int64 = 0
        var maximum: Int64 = 0
        guard assist_v4l2_control(device, name, &value, &minimum, &maximum) == 0 else { return nil }
        return (value, minimum, maximum)
    }
}

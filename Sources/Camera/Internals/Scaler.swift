internal import CMediaAPI
import Foundation

/// Converts and scales pictures between pixel formats with swscale. Owns its context. One thread.
final class Scaler {
    private let api: assist_media_api
    private let scaler: OpaquePointer
    let key: Key

    /// The conversion a scaler was made for.
    struct Key: Hashable {
        var sourceWidth: Int
        var sourceHeight: Int
        var sourceFormat: PixelFormat
        var targetWidth: Int
        var targetHeight: Int
        var targetFormat: PixelFormat
    }

    /// Wraps `scaler_create`; nil for an impossible conversion or without the media library (the camera
    /// service checks for it before any frame).
    init?(_ key: Key) {
        guard let api = try? MediaLibrary.api(),
            let made = api.scaler_create(
                Int32(key.sourceWidth), Int32(key.sourceHeight), key.sourceFormat.rawValue, Int32(key.targetWidth),
                Int32(key.targetHeight), key.targetFormat.rawValue)
        else { return nil }
        self.api = api
        scaler = made
        self.key = key
    }

    deinit {
        api.scaler_free(scaler)
    }

    /// Converts `frame` (which must match the key's source) into new storage.
    func convert(_ frame: Frame, into storage: FrameStorage? = nil) -> Frame {
        let stride = (key.targetWidth * key.targetFormat.bytesPerPixel + 31) / 32 * 32
        let target =
            storage.flatMap { $0.capacity >= stride * key.targetHeight ? $0 : nil }
            ?? FrameStorage(capacity: stride * key.targetHeight)
        // Cannot fail: the target holds stride * height bytes, more than `run` asks for.
        _ = run(frame, into: target.bytes, stride: stride, capacity: target.capacity)
        return Frame(
            storage: target, format: key.targetFormat, width: key.targetWidth, height: key.targetHeight,
            stride: stride, timestampNs: frame.timestampNs, sequence: frame.sequence)
    }

    /// Converts `frame` into `bytes` (`stride` bytes a row, `capacity` in all; nothing past the last pixel is
    /// written). False when the target is too small. Wraps `scaler_run`.
    func run(_ frame: Frame, into bytes: UnsafeMutableRawPointer, stride: Int, capacity: Int) -> Bool {
        api.scaler_run(
            scaler, frame.pixels.assumingMemoryBound(to: UInt8.self), Int32(frame.stride),
            bytes.assumingMemoryBound(to: UInt8.self), Int32(stride), capacity) == 0
    }
}

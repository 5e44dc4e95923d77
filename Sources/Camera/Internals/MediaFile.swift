internal import CMediaAPI
import Foundation

/// One picture or video file open in FFmpeg. Owns the decoder and closes it in `deinit`. One thread.
final class MediaFile {
    private let api: assist_media_api
    private let media: OpaquePointer
    let url: URL
    let width: Int
    let height: Int
    /// The stream's frame rate; 0 for a still picture.
    let framesPerSecond: Double

    /// Opens `url`. Wraps `media_open`.
    init(url: URL) throws {
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw CameraError.badFile(url.path, reason: "it does not exist or cannot be read")
        }
        api = try MediaLibrary.api()
        var handle: OpaquePointer?
        var reason = [CChar](repeating: 0, count: 256)
        guard api.media_open(url.path, &handle, &reason, reason.count) == 0, let handle else {
            throw CameraError.badFile(url.path, reason: Self.text(reason))
        }
        media = handle
        self.url = url
        var width: Int32 = 0
        var height: Int32 = 0
        var fps = 0.0
        api.media_info(handle, &width, &height, &fps)
        self.width = Int(width)
        self.height = Int(height)
        self.framesPerSecond = fps
    }

    deinit {
        api.media_close(media)
    }

    /// The next picture as BGR24, tightly packed, and its time in seconds; nil at the end.
    func nextPicture() throws -> (FrameStorage, Double)? {
        let storage = FrameStorage(capacity: width * 3 * height)
        guard let seconds = try nextPicture(into: storage.bytes, stride: width * 3, capacity: storage.capacity) else {
            return nil
        }
        return (storage, seconds)
    }

    /// Decodes the next picture into `bytes` (`stride` bytes a row, `capacity` in all; nothing past the last
    /// pixel is written) and returns its time in seconds; nil at the end. Wraps `media_next`.
    func nextPicture(into bytes: UnsafeMutableRawPointer, stride: Int, capacity: Int) throws -> Double? {
        var seconds = 0.0
        var reason = [CChar](repeating: 0, count: 256)
        let status = api.media_next(
            media, bytes.assumingMemoryBound(to: UInt8.self), Int32(stride), capacity, &seconds, &reason, reason.count)
        if status == 0 { return nil }
        guard status > 0 else { throw CameraError.badFile(url.path, reason: Self.text(reason)) }
        return seconds
    }

    private static func text(_ reason: [CChar]) -> String {
        let text = String(cReason: reason)
        return text.isEmpty ? "it cannot be decoded" : text
    }
}

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

extension String {
    /// The text in a NUL-terminated C buffer a shim filled (a reason, a device name).
    init(cReason buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

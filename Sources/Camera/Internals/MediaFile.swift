internal import CMediaAPI
import Foundation
import Runtime

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
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw CameraError.badFile(url.path, reason: "it is a folder; dir:\(url.path) takes a folder of pictures")
        }
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
        let text = String(nulTerminated: reason)
        return text.isEmpty ? "it cannot be decoded" : text
    }
}

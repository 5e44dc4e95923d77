import CMediaInfo
import Foundation
import PluginKit

/// What photo-sensor shows the low-vision view (docs/view.md) while its menu is open: the last photos it
/// recorded, upright, each with its file's name and the labels recognition gave it, as the live-only event
/// `assist.photo-sensor.view.photos` (the event journal never keeps it, and no other plugin hears it).
extension PhotoSensor {
    /// How many photos the view shows, and the longer side of each, in pixels.
    static let viewPhotos = 6
    static let viewPhotoSide = 480

    /// The last photos recorded, newest first, with their labels: read and made small on the index worker (a
    /// camera's photo takes some tens of milliseconds to decode), then given to the view.
    func showPhotosOnView() {
        worker.run { [weak self] in
            guard let self, let store else { return }
            let photos = (try? store.recentPhotos(limit: Self.viewPhotos)) ?? []
            let shown: [[String: Any]] = photos.compactMap { photo in
                guard let thumbnail = Self.thumbnail(photo.path) else { return nil }
                return [
                    "name": (photo.path as NSString).lastPathComponent, "labels": photo.labels,
                    "width": thumbnail.width, "height": thumbnail.height,
                    "jpeg": thumbnail.jpeg.base64EncodedString(),
                ]
            }
            publishPhotos(shown)
        }
    }

    /// The view shows no photo any more (the menu was answered or left).
    func hidePhotosOnView() { publishPhotos([]) }

    private func publishPhotos(_ photos: [[String: Any]]) {
        guard let data = try? JSONSerialization.data(withJSONObject: ["photos": photos]) else { return }
        host.publish("assist.photo-sensor.view.photos", json: String(decoding: data, as: UTF8.self))
    }

    /// The photo at `path` as a small upright JPEG; nil when it is gone or cannot be decoded.
    static func thumbnail(_ path: String) -> (jpeg: Data, width: Int, height: Int)? {
        guard let format = format(of: path) else { return nil }
        var info = assist_media_info()
        if format == .jpeg { _ = assist_media_exif(path, &info) }
        var bytes: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var width: Int32 = 0
        var height: Int32 = 0
        let heif: Int32 = format == .heif || format == .avif ? 1 : 0
        guard
            assist_media_thumbnail(
                path, heif, Int32(viewPhotoSide), info.exif_orientation, 80, &bytes, &size, &width, &height)
                == ASSIST_MEDIA_INFO_OK, let bytes
        else { return nil }
        defer { free(bytes) }
        return (Data(bytes: bytes, count: Int(size)), Int(width), Int(height))
    }
}

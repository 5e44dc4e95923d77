import Foundation

/// Where frames come from, from `--camera` or the `camera.source` setting.
package enum CameraSpec: Equatable, Sendable, CustomStringConvertible {
    /// A V4L2 device, through libv4l2.
    case v4l2(String)
    /// A still picture repeated at the frame rate.
    case image(URL)
    /// The pictures of a folder in name order, once.
    case directory(URL)
    /// A video file decoded with FFmpeg, once, at its own pace.
    case video(URL)
    /// A synthetic moving test pattern.
    case pattern
    /// The first /dev/video device, or the bundled sample picture when there is none.
    case automatic

    /// Parses `v4l2:/dev/videoN`, `image:PATH`, `dir:PATH`, `video:PATH`, `pattern` or `auto`.
    package init(_ text: String) throws {
        func path(_ prefix: String) -> URL? {
            guard text.hasPrefix(prefix), text.count > prefix.count else { return nil }
            return URL(fileURLWithPath: String(text.dropFirst(prefix.count)))
        }
        if text == "pattern" {
            self = .pattern
        } else if text == "auto" {
            self = .automatic
        } else if text.hasPrefix("v4l2:"), text.count > 5 {
            self = .v4l2(String(text.dropFirst(5)))
        } else if text.hasPrefix("/dev/video") {
            self = .v4l2(text)
        } else if let url = path("image:") {
            self = .image(url)
        } else if let url = path("dir:") {
            self = .directory(url)
        } else if let url = path("video:") {
            self = .video(url)
        } else {
            throw CameraError.badSpec(text)
        }
    }

    package var description: String {
        switch self {
        case .v4l2(let path): return "the camera \(path)"
        case .image(let url): return "the picture \(url.path)"
        case .directory(let url): return "the pictures in \(url.path)"
        case .video(let url): return "the video \(url.path)"
        case .pattern: return "the test pattern"
        case .automatic: return "the first camera"
        }
    }

    /// The video devices present, in order (`/dev/video0`, ...).
    package static func videoDevices(in directory: String = "/dev") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
            .map { "\(directory)/\($0)" }
    }
}

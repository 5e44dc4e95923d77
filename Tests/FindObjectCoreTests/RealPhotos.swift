import Foundation
import HostTesting

/// Real labelled photos, decoded to BGR24 by ImageMagick: Debian's darknet package, and scikit-image's
/// coffee.png and chelsea.png (`make test-photos`).
enum RealPhotos {
    static let folder = "/usr/share/darknet/data"
    static let scikitFolder = BuildProducts.packageRoot.appendingPathComponent(".build/test-photos").path

    static func bgr(_ name: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let path = name.hasPrefix("/") ? name : "\(folder)/\(name)"
        let size = try ProcessRunner.run("/usr/bin/identify", ["-format", "%w %h", path]).standardOutput
            .split(separator: " ").compactMap { Int($0) }
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("assist-\(UUID().uuidString).bgr")
        defer { try? FileManager.default.removeItem(at: raw) }
        _ = try ProcessRunner.run("/usr/bin/convert", [path, "-depth", "8", "bgr:\(raw.path)"])
        let pixels = [UInt8](try Data(contentsOf: raw))
        guard size.count == 2, pixels.count == size[0] * size[1] * 3 else { throw CocoaError(.fileReadCorruptFile) }
        return (size[0], size[1], pixels)
    }

    /// The model folder in the source tree (`make models`).
    static var modelFolder: String {
        BuildProducts.packageRoot.appendingPathComponent("share/assist/models/yolov4-tiny").path
    }

    /// A folder with the model's three files and not its calibration pictures: a detector opened there runs in
    /// float, as OpenCV reads the files.
    static func floatModelFolder(_ work: TemporaryDirectory) throws -> String {
        for name in ["yolov4-tiny.cfg", "yolov4-tiny.weights", "coco.names"] {
            try FileManager.default.createSymbolicLink(
                atPath: work.path(name).path, withDestinationPath: modelFolder + "/" + name)
        }
        return work.url.path
    }
}

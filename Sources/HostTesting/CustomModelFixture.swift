import Foundation

/// A custom detector folder for tests (find-object.md §6): COCO's YOLOv4-tiny from `share/assist/models` with
/// "dog" renamed "hound", and a model.json giving every file's SHA-256.
package enum CustomModelFixture {
    package static var cocoFolder: URL {
        BuildProducts.packageRoot.appendingPathComponent("share/assist/models/yolov4-tiny")
    }

    /// Makes `<root>/<id>`; `change` edits model.json's fields before it is written.
    @discardableResult
    package static func make(
        _ id: String, in root: URL, change: (inout [String: Any]) -> Void = { _ in }
    ) throws -> URL {
        let folder = root.appendingPathComponent(id)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (from, to) in [("yolov4-tiny.cfg", "model.cfg"), ("yolov4-tiny.weights", "model.weights")] {
            try FileManager.default.copyItem(
                at: cocoFolder.appendingPathComponent(from), to: folder.appendingPathComponent(to))
        }
        let names = try String(contentsOf: cocoFolder.appendingPathComponent("coco.names"), encoding: .utf8)
            .replacingOccurrences(of: "\ndog\n", with: "\nhound\n")
        try names.write(to: folder.appendingPathComponent("names.txt"), atomically: false, encoding: .utf8)
        var sums: [String: String] = [:]
        for file in ["model.cfg", "model.weights", "names.txt"] {
            let made = try ProcessRunner.run("/usr/bin/sha256sum", [folder.appendingPathComponent(file).path])
            sums[file] = String(made.standardOutput.prefix(64))
        }
        var description: [String: Any] = [
            "format": "darknet", "input_size": 416, "confidence": 0.3, "nms": 0.45, "licence": "as COCO's, for tests",
            "cfg": "model.cfg", "weights": "model.weights", "sha256": sums,
        ]
        change(&description)
        try JSONSerialization.data(withJSONObject: description).write(to: folder.appendingPathComponent("model.json"))
        return folder
    }
}

import Foundation
import HostTesting
import ObjectDetection
import Testing

/// The custom-model slot (find-object.md §6), with COCO's own files standing in for a custom network: a folder
/// with model.json, cfg, weights and names.txt, every file checked by SHA-256.
@Suite("Custom models")
struct CustomModelTests {
    @Test func aCheckedModelFindsItsOwnClasses() throws {
        let root = try TemporaryDirectory("assist-custom")
        let model = try CustomModel(folder: try CustomModelFixture.make("hounds", in: root.url).path)
        #expect(model.id == "hounds" && model.spec.classNames[16] == "hound" && model.spec.confidence == 0.3)
        let detector = try ObjectDetector(spec: model.spec)
        let photo = try RealPhotos.bgr("dog.jpg")
        let found = detector.detect(bgr: photo.pixels, width: photo.width, height: photo.height, onlyClass: 16)
        #expect(!found.detections.isEmpty && found.detections.allSatisfy { $0.score >= 0.3 })
    }

    @Test(arguments: [
        ("format", "onnx", "the format onnx is not supported; only darknet is"),
        ("input_size", "400", "input_size must be a multiple of 32 from 32 to 1024"),
        ("licence", "", "model.json must name the model's licence"),
        ("sha256", "cfg", "model.cfg does not have the SHA-256 model.json gives"),
        ("sha256", "missing", "model.json gives no sha256 for names.txt"),
    ])
    func aModelThatFailsItsCheckSaysWhy(field: String, value: String, reason: String) throws {
        let root = try TemporaryDirectory("assist-custom")
        let folder = try CustomModelFixture.make("broken", in: root.url) { description in
            switch (field, value) {
            case ("input_size", let size): description[field] = Int(size)
            case ("sha256", "cfg"):
                var sums = description["sha256"] as? [String: String] ?? [:]
                sums["model.cfg"] = String(repeating: "0", count: 64)
                description["sha256"] = sums
            case ("sha256", _):
                var sums = description["sha256"] as? [String: String] ?? [:]
                sums["names.txt"] = nil
                description["sha256"] = sums
            default: description[field] = value
            }
        }
        do {
            _ = try CustomModel(folder: folder.path)
            Issue.record("accepted a broken model")
        } catch {
            #expect(error.message == "The custom model broken cannot be used: \(reason). Fix its folder or remove it.")
        }
        let found = CustomModel.discover(roots: [root.url.path, "/nonexistent"])
        #expect(found.count == 1 && found[0].id == "broken" && (try? found[0].result.get()) == nil)
    }
}

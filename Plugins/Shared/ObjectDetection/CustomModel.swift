import Foundation

/// A detector an admin adds beside COCO (find-object.md §6): a folder `models/custom/<id>/` (or
/// `/etc/assist/models/<id>/`) holding `model.json`, the Darknet cfg and weights, `names.txt` (the model's class
/// names, one per line) and optionally `names.json` (spoken names per language, as find-object's own table).
///
/// `model.json`:
/// ```json
/// {"format": "darknet", "input_size": 416, "confidence": 0.25, "nms": 0.45, "licence": "CC-BY-4.0",
///  "cfg": "model.cfg", "weights": "model.weights",
///  "sha256": {"model.cfg": "…", "model.weights": "…", "names.txt": "…"}}
/// ```
public struct CustomModel: Sendable, Equatable {
    public let id: String
    public let folder: String
    public let spec: ModelSpec

    private struct Description: Decodable {
        var format: String
        var inputSize: Int
        var confidence: Double?
        var nms: Double?
        var licence: String
        var cfg: String
        var weights: String
        var sha256: [String: String]

        enum CodingKeys: String, CodingKey {
            case format, licence, cfg, weights, sha256, confidence, nms
            case inputSize = "input_size"
        }
    }

    /// Where custom models are looked for: `models/custom` beside the share folder, then `/etc/assist/models`.
    public static func roots(share: String?) -> [String] {
        ModelFiles.modelsFolders(share: share).map { $0 + "/custom" } + ["/etc/assist/models"]
    }

    /// Every folder with a `model.json` under `roots`, checked: a model, or why it cannot be used.
    public static func discover(roots: [String]) -> [(id: String, result: Result<CustomModel, DetectionError>)] {
        var found: [(String, Result<CustomModel, DetectionError>)] = []
        for root in roots {
            let ids = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
            for id in ids where FileManager.default.fileExists(atPath: "\(root)/\(id)/model.json") {
                found.append((id, Result { () throws(DetectionError) in try CustomModel(folder: "\(root)/\(id)") }))
            }
        }
        return found
    }

    /// Reads and checks the model in `folder`: its description, every listed file's SHA-256, and names.
    public init(folder: String) throws(DetectionError) {
        let id = URL(fileURLWithPath: folder).lastPathComponent
        func refuse(_ why: String) -> DetectionError { .customModel(id, why) }
        guard let data = FileManager.default.contents(atPath: folder + "/model.json"),
            let description = try? JSONDecoder().decode(Description.self, from: data)
        else { throw refuse("model.json is missing or not the expected JSON") }
        guard description.format == "darknet" else {
            throw refuse("the format \(description.format) is not supported; only darknet is")
        }
        guard (32...1_024).contains(description.inputSize), description.inputSize % 32 == 0 else {
            throw refuse("input_size must be a multiple of 32 from 32 to 1024")
        }
        let confidence = description.confidence ?? 0.25
        let overlap = description.nms ?? 0.45
        guard (0.01...0.99).contains(confidence), (0.01...0.99).contains(overlap) else {
            throw refuse("confidence and nms must lie between 0.01 and 0.99")
        }
        guard !description.licence.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw refuse("model.json must name the model's licence")
        }
        for needed in [description.cfg, description.weights, "names.txt"] where description.sha256[needed] == nil {
            throw refuse("model.json gives no sha256 for \(needed)")
        }
        for (name, sum) in description.sha256.sorted(by: { $0.key < $1.key }) {
            guard !name.contains("/"), let actual = ModelFiles.sha256(of: folder + "/" + name) else {
                throw refuse("\(name) is missing")
            }
            guard actual == sum.lowercased() else { throw refuse("\(name) does not have the SHA-256 model.json gives") }
        }
        let names = try ModelFiles.classNames(in: folder, file: "names.txt")
        guard !names.isEmpty else { throw refuse("names.txt names no class") }
        self.id = id
        self.folder = folder
        spec = ModelSpec(
            cfg: folder + "/" + description.cfg, weights: folder + "/" + description.weights,
            inputSize: description.inputSize, confidence: Float(confidence), overlap: Float(overlap),
            classNames: names)
    }
}

/// What a detector runs: its files, input size, thresholds and class names.
public struct ModelSpec: Sendable, Equatable {
    public var cfg: String
    public var weights: String
    public var inputSize: Int
    public var confidence: Float
    public var overlap: Float
    public var classNames: [String]

    public init(
        cfg: String, weights: String, inputSize: Int, confidence: Float, overlap: Float, classNames: [String]
    ) {
        self.cfg = cfg
        self.weights = weights
        self.inputSize = inputSize
        self.confidence = confidence
        self.overlap = overlap
        self.classNames = classNames
    }

    /// YOLOv4-tiny COCO in `folder` (find-object.md §1): 416, confidence 0.25, NMS IoU 0.45.
    public static func coco(folder: String) throws(DetectionError) -> ModelSpec {
        ModelSpec(
            cfg: folder + "/yolov4-tiny.cfg", weights: folder + "/yolov4-tiny.weights", inputSize: 416,
            confidence: 0.25, overlap: 0.45, classNames: try ModelFiles.classNames(in: folder))
    }
}

internal import CDetectorAPI
import Foundation

/// The embedder that teaches find-object a person's own things (docs/find-object.md, "Your own things"):
/// MobileNetV2 without its classifier through OpenCV DNN, each region of a picture stretched to a square and
/// turned into a unit vector of 1,280 numbers. Two views of the same thing give vectors whose dot product (their
/// cosine similarity) is higher than a view of something else. One thread uses an embedder at a time.
public final class ObjectEmbedder {
    public static let dimension = Int(ASSIST_EMB_DIMENSION)
    /// The file `make models` makes, its size and SHA-256 (share/assist/setup/fetch-models.sh).
    public static let file = (
        folder: "mobilenetv2-embedder", name: "mobilenetv2-embedder.onnx", size: 8_838_030,
        sha256: "b02a9d7c19fdd8e0cfd7c2301564dfee9fb45979ac2932c2f514a89b4f77f1ea"
    )
    private let handle: OpaquePointer
    private let library: assist_det_functions
    public let inputSize: Int

    /// Opens the checked model at `path`; `inputSize` is the square side regions are stretched to.
    public init(path: String, inputSize: Int = 128, threads: Int = 2) throws(DetectionError) {
        let library = try DetectorLibrary.functions()
        guard let open = library.emb_open else {
            throw DetectionError(
                "Assist's object detector library \(ASSIST_DETECTOR_LIBRARY) cannot learn things (it is older than this find-object). Reinstall Assist.",
                phrase: "detector-too-old", values: ["name": ASSIST_DETECTOR_LIBRARY])
        }
        var reason: UnsafeMutablePointer<CChar>?
        guard let handle = open(path, Int32(inputSize), Int32(threads), &reason) else {
            let cause = reason.map { String(cString: $0) } ?? "unknown"
            free(reason)
            throw .thingsModelUnusable(cause)
        }
        self.handle = handle
        self.library = library
        self.inputSize = inputSize
    }

    deinit { library.emb_close?(handle) }

    /// One unit vector per region of a BGR24 picture, in the regions' order; empty when the network fails.
    public func embed(bgr: UnsafeRawPointer, width: Int, height: Int, stride: Int, regions: [Region]) -> [[Float]] {
        guard let run = library.emb_run else { return [] }
        return vectors(regions) { boxes, out in
            run(
                handle, bgr.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), stride, boxes,
                Int32(regions.count), out)
        }
    }

    /// The same, coarser and far cheaper: the network once over the picture `mapWidth` pixels wide, each region
    /// the average of its cells (`assist_emb_coarse`), for choosing the regions to embed closely.
    public func coarse(
        bgr: UnsafeRawPointer, width: Int, height: Int, stride: Int, mapWidth: Int = 448, regions: [Region]
    ) -> [[Float]] {
        guard let run = library.emb_coarse else { return [] }
        return vectors(regions) { boxes, out in
            run(
                handle, bgr.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), stride, Int32(mapWidth),
                boxes, Int32(regions.count), out)
        }
    }

    /// `regions` as the C API's boxes, given to `body` with room for their vectors; the vectors, or none when
    /// `body` did not give one for each region.
    private func vectors(
        _ regions: [Region], _ body: (UnsafePointer<assist_det_box>, UnsafeMutablePointer<Float>) -> Int32
    ) -> [[Float]] {
        guard !regions.isEmpty else { return [] }
        let boxes = regions.map {
            assist_det_box(
                x: Float($0.x), y: Float($0.y), w: Float($0.width), h: Float($0.height), score: 1, class_id: -1)
        }
        var out = [Float](repeating: 0, count: regions.count * Self.dimension)
        let count = boxes.withUnsafeBufferPointer { boxes in
            out.withUnsafeMutableBufferPointer { vectors in
                guard let boxes = boxes.baseAddress, let vectors = vectors.baseAddress else { return Int32(-1) }
                return body(boxes, vectors)
            }
        }
        guard count == Int32(regions.count) else { return [] }
        return (0..<regions.count).map { Array(out[$0 * Self.dimension..<($0 + 1) * Self.dimension]) }
    }

    /// The folder holding the checked model: the detector's folders (`ModelFiles.modelsFolders`), each with
    /// `mobilenetv2-embedder` under it, then the data folder's and the system's. `cache` remembers a check.
    public static func locate(
        share: String?, data: String? = nil, cache: URL?, hostShare: [String]? = nil
    ) throws(DetectionError) -> String {
        let folders = ModelFiles.candidates(share: share, data: data, hostShare: hostShare).map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(file.folder).path
        }
        for folder in folders
        where ModelFiles.verify(folder, files: [(file.name, file.size, file.sha256)], cache: cache) {
            return folder + "/" + file.name
        }
        throw .thingsModelMissing
    }
}

/// A normalised part of a picture (0…1, origin top left).
public struct Region: Equatable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var centreX: Double { x + width / 2 }
    public var centreY: Double { y + height / 2 }
    public var area: Double { width * height }

    /// The share of the union the two regions have in common.
    public func overlap(_ other: Region) -> Double {
        let left = max(x, other.x)
        let right = min(x + width, other.x + other.width)
        let top = max(y, other.y)
        let bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return 0 }
        let common = (right - left) * (bottom - top)
        return common / (area + other.area - common)
    }

    /// True when the point is inside.
    public func contains(_ px: Double, _ py: Double) -> Bool {
        px >= x && px <= x + width && py >= y && py <= y + height
    }

    /// This region kept inside the picture.
    public var clamped: Region {
        let left = min(max(0, x), 1)
        let top = min(max(0, y), 1)
        return Region(
            x: left, y: top, width: max(0.001, min(1, x + width) - left), height: max(0.001, min(1, y + height) - top))
    }
}

/// What teaching measures in a view (`PictureMeasure.measure`).
public struct PictureMeasures: Sendable, Equatable {
    /// The variance of the Laplacian of a grey copy at most 320 pixels wide: higher is sharper.
    public var sharpness: Double
    /// Mean and deviation of grey, 0…1.
    public var brightness: Double
    public var contrast: Double
    /// Around what changed since the previous view; nil when nothing, or nearly everything, did.
    public var moving: Region?
}

public enum PictureMeasure {
    /// Measures a BGR24 picture; `previous` is the view before it (the same size and stride), or nil.
    public static func measure(
        bgr: UnsafeRawPointer, previous: UnsafeRawPointer?, width: Int, height: Int, stride: Int
    ) -> PictureMeasures? {
        guard let library = try? DetectorLibrary.functions(), let measure = library.pic_measure else { return nil }
        var out = assist_pic_measures()
        guard
            measure(
                bgr.assumingMemoryBound(to: UInt8.self), previous?.assumingMemoryBound(to: UInt8.self), Int32(width),
                Int32(height), stride, &out) == 0
        else { return nil }
        let moving =
            out.moving.w > 0
            ? Region(
                x: Double(out.moving.x), y: Double(out.moving.y), width: Double(out.moving.w),
                height: Double(out.moving.h))
            : nil
        return PictureMeasures(
            sharpness: Double(out.sharpness), brightness: Double(out.brightness), contrast: Double(out.contrast),
            moving: moving)
    }
}

/// A video file read picture by picture (BGR24), for teaching from a file.
public final class VideoReader {
    private let handle: OpaquePointer
    private let library: assist_det_functions
    public let framesPerSecond: Double

    public init(path: String) throws(DetectionError) {
        let library = try VideoReaderLibrary.functions()
        guard let open = library.vid_open else {
            throw DetectionError(
                "Assist's video reader library cannot read videos. Reinstall Assist.", phrase: "video-reader-broken")
        }
        var reason: UnsafeMutablePointer<CChar>?
        var fps = 0.0
        guard let handle = open(path, &fps, &reason) else {
            free(reason)
            throw DetectionError(
                "\(path) is not a video Assist can read.", phrase: "not-a-video", values: ["path": path])
        }
        self.handle = handle
        self.library = library
        framesPerSecond = fps.isFinite && fps > 0 ? fps : 0
    }

    deinit { library.vid_close?(handle) }

    /// The next picture, valid until the next call (`body` sees it), or nil at the end.
    public func next<T>(_ body: (UnsafeRawPointer, Int, Int, Int, Double) -> T) -> T? {
        var width: Int32 = 0
        var height: Int32 = 0
        var stride = 0
        var seconds = 0.0
        guard let pixels = library.vid_next?(handle, &width, &height, &stride, &seconds) else { return nil }
        return body(pixels, Int(width), Int(height), stride, seconds)
    }
}

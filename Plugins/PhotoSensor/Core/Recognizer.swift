import CMediaInfo
import Foundation
import ObjectDetection

/// What a photo shows (spec §3.16–3.17): the picture decoded, turned upright by its EXIF orientation, scaled to
/// fit `imageSize` with its aspect kept, and given to the shared object detector (YOLOv4-tiny, COCO). One label
/// per class found with at least `minConfidence`, at its best score. The detector opens on first use (OpenCV
/// loads then, not before). One thread uses a recognizer at a time.
public final class Recognizer {
    public struct Label: Equatable, Sendable {
        public var name: String
        public var confidence: Double
    }

    /// Why recognition cannot be done: a phrase of photo-sensor's with its values, and the English sentence (for
    /// the log, and for a phrase a later version added). Kept as JSON, so `status` in another process says it in
    /// its person's language.
    public struct Problem: Codable, Equatable, Sendable {
        public var phrase: String
        public var values: [String: String]
        public var message: String

        init(_ error: DetectionError) { (phrase, values, message) = (error.phrase, error.values, error.message) }
        init(phrase: String, message: String) { (self.phrase, values, self.message) = (phrase, [:], message) }
    }

    public enum Failure: Error, Equatable {
        /// No model or no detector library: photos wait for recognition until the next start.
        case unavailable(Problem)
        /// This picture cannot be decoded: it gets no labels.
        case unreadable
    }

    private let locate: () throws(DetectionError) -> String
    private let minConfidence: Double
    private let imageSize: Int
    private var detector: ObjectDetector?

    /// `locate` finds the model folder (`ModelFiles.locate` with the plugin's folders).
    public init(
        minConfidence: Double = 0.5, imageSize: Int = 640, locate: @escaping () throws(DetectionError) -> String
    ) {
        self.minConfidence = minConfidence
        self.imageSize = imageSize
        self.locate = locate
    }

    /// The labels of the picture at `path`, sniffed as `format`, best first.
    public func labels(_ path: String, format: MediaFormat) throws(Failure) -> [Label] {
        let detector = try opened()
        var info = assist_media_info()
        if format == .jpeg { _ = assist_media_exif(path, &info) }
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        let heif: Int32 = format == .heif || format == .avif ? 1 : 0
        let status = assist_media_decode_bgr(
            path, heif, Int32(imageSize), info.exif_orientation, &pixels, &width, &height)
        guard status == ASSIST_MEDIA_INFO_OK, let pixels else {
            if status == ASSIST_MEDIA_INFO_UNAVAILABLE {
                throw .unavailable(
                    Problem(
                        phrase: "decoders-unavailable",
                        message: "the picture decoders (FFmpeg, libheif) cannot be opened"))
            }
            throw .unreadable
        }
        defer { free(pixels) }
        let found = detector.detect(
            bgr: UnsafeRawPointer(pixels), width: Int(width), height: Int(height), stride: Int(width) * 3
        ).detections
        var best: [Int: Double] = [:]
        for detection in found where detection.score >= minConfidence {
            best[detection.classID] = max(best[detection.classID] ?? 0, detection.score)
        }
        let names = detector.spec.classNames
        return best.compactMap { id, score in
            id < names.count ? Label(name: names[id], confidence: score) : nil
        }.sorted { ($0.confidence, $1.name) > ($1.confidence, $0.name) }
    }

    private func opened() throws(Failure) -> ObjectDetector {
        if let detector { return detector }
        do throws(DetectionError) {
            let made = try ObjectDetector(directory: try locate(), threads: 1)
            detector = made
            return made
        } catch {
            throw .unavailable(Problem(error))
        }
    }

    /// Lets the network go (about 60 MB) when nothing is left to recognise.
    public func close() { detector = nil }
}

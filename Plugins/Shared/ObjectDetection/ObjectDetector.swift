internal import CDetectorAPI
import Foundation

/// One object found in a picture, normalised (0…1, origin top left).
public struct Detection: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var score: Double
    public var classID: Int
    public var centreX: Double { x + width / 2 }
    public var centreY: Double { y + height / 2 }
    public init(x: Double, y: Double, width: Double, height: Double, score: Double, classID: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.score = score
        self.classID = classID
    }
}

/// YOLOv4-tiny through OpenCV DNN (find-object.md §1): 416×416 input, confidence 0.25 and NMS IoU 0.45 passed
/// on every call, 2 threads, warmed up when opened. One thread uses a detector at a time.
///
/// A library each detecting plugin links (find-object, photo-sensor), not a host service: the host never
/// loads OpenCV, and a plugin's frames reach its own detector without crossing the ABI. OpenCV itself sits in
/// libAssistDetector.so, opened the first time a detector is made (`DetectorLibrary`), so a plugin that could
/// detect but does not yet (photo-sensor with recognition off) loads none of it. Two plugins detecting at
/// the same time hold two copies of the network (about 60 MB each). See docs/detector.md.
public final class ObjectDetector {
    private let handle: OpaquePointer
    private let library: assist_det_functions
    public let spec: ModelSpec

    /// Opens COCO's YOLOv4-tiny in `directory` (yolov4-tiny.cfg, .weights and coco.names).
    public convenience init(directory: String, threads: Int = 2) throws(DetectionError) {
        try self.init(spec: try ModelSpec.coco(folder: directory), threads: threads)
    }

    /// Opens the model `spec` describes (COCO's, or a custom one).
    public init(spec: ModelSpec, threads: Int = 2) throws(DetectionError) {
        let library = try DetectorLibrary.functions()
        var reason: UnsafeMutablePointer<CChar>?
        guard
            let handle = library.open(spec.cfg, spec.weights, Int32(spec.inputSize), Int32(threads), &reason)
        else {
            let cause = reason.map { String(cString: $0) } ?? "unknown"
            free(reason)
            throw .modelUnusable(cause)
        }
        self.handle = handle
        self.spec = spec
        self.library = library
    }

    deinit { library.close(handle) }

    /// Finds objects in a BGR24 picture, best first; only `onlyClass` when given. Also returns the inference
    /// time in milliseconds.
    public func detect(
        bgr: UnsafeRawPointer, width: Int, height: Int, stride: Int, onlyClass: Int? = nil, maximum: Int = 32
    ) -> (detections: [Detection], milliseconds: Double) {
        var boxes = [assist_det_box](repeating: assist_det_box(), count: maximum)
        var milliseconds = 0.0
        let count = library.run(
            handle, bgr.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), stride, spec.confidence,
            spec.overlap, Int32(onlyClass ?? -1), &boxes, Int32(maximum), &milliseconds)
        guard count > 0 else { return ([], milliseconds) }
        let detections = boxes.prefix(Int(min(count, Int32(maximum)))).map { box in
            Detection(
                x: Double(box.x), y: Double(box.y), width: Double(box.w), height: Double(box.h),
                score: Double(box.score), classID: Int(box.class_id))
        }
        return (detections, milliseconds)
    }

    /// The same for a tightly packed BGR24 array.
    public func detect(bgr pixels: [UInt8], width: Int, height: Int, onlyClass: Int? = nil) -> (
        detections: [Detection], milliseconds: Double
    ) {
        pixels.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count >= width * height * 3 else { return ([], 0) }
            return detect(bgr: base, width: width, height: height, stride: width * 3, onlyClass: onlyClass)
        }
    }
}

/// libAssistDetector.so, opened once, the first time a detector is made, and never closed.
enum DetectorLibrary {
    static let loaded: Result<assist_det_functions, DetectionError> = HelperLibrary.open(
        ASSIST_DETECTOR_LIBRARY, variable: "ASSIST_DETECTOR_LIBRARY", purpose: "object detector"
    ) { handle, functions in assist_det_functions_from(handle, &functions) != 0 }

    static func functions() throws(DetectionError) -> assist_det_functions { try loaded.get() }

    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        HelperLibrary.candidates(ASSIST_DETECTOR_LIBRARY, variable: "ASSIST_DETECTOR_LIBRARY", environment: environment)
    }
}

/// libAssistVideoReader.so (OpenCV's videoio and the two hundred libraries it brings), opened the first time a
/// video is read, and never closed: a search never loads it.
enum VideoReaderLibrary {
    static let loaded: Result<assist_det_functions, DetectionError> = HelperLibrary.open(
        ASSIST_VIDEO_READER_LIBRARY, variable: "ASSIST_VIDEO_READER_LIBRARY", purpose: "video reader"
    ) { handle, functions in assist_vid_functions_from(handle, &functions) != 0 }

    static func functions() throws(DetectionError) -> assist_det_functions { try loaded.get() }
}

/// Where Assist's own C++ libraries are found and how they are opened.
enum HelperLibrary {
    /// `$VARIABLE` alone when set (an admin's or a test's choice), else beside the executable (a build folder),
    /// then `../lib/assist` from it (an installed prefix).
    static func candidates(
        _ name: String, variable: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        if let chosen = environment[variable] { return [chosen] }
        var paths: [String] = []
        if let executable = ModelFiles.executable {
            let folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
            paths.append(folder.appendingPathComponent(name).path)
            paths.append(folder.deletingLastPathComponent().appendingPathComponent("lib/assist/\(name)").path)
        }
        return paths
    }

    /// Opens the first candidate that has the functions `fill` looks up.
    static func open(
        _ name: String, variable: String, purpose: String,
        fill: (UnsafeMutableRawPointer, inout assist_det_functions) -> Bool
    ) -> Result<assist_det_functions, DetectionError> {
        var reasons: [String] = []
        let paths = candidates(name, variable: variable)
        for path in paths where FileManager.default.fileExists(atPath: path) {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? "\(path) cannot be opened")
                continue
            }
            var functions = assist_det_functions()
            if fill(handle, &functions) { return .success(functions) }
            reasons.append("\(path) lacks the \(purpose)'s functions")
        }
        let why = reasons.isEmpty ? "not found in \(paths.joined(separator: ", "))" : reasons.joined(separator: "; ")
        return .failure(
            DetectionError(
                "Assist's \(purpose) library \(name) is missing or broken (\(why)). Reinstall Assist.",
                phrase: "library-broken", values: ["name": name, "why": why]))
    }
}

import ObjectDetection

/// Why find-object cannot work: a sentence for the user and what to do; the detector's reason kept as it came
/// (`detection`), so that it is said in the person's language.
public struct FindObjectError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var detection: DetectionError?
    public var description: String { message }

    public init(message: String) { self.message = message }

    public init(detection: DetectionError) {
        message = detection.message
        self.detection = detection
    }
}

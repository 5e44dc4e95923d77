/// A rectangle in normalised frame coordinates with a bottom-left origin (read-text.md): x grows to the
/// right, y grows upwards, both 0…1.
public struct NormalizedBox: Equatable, Sendable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// A pixel rectangle (top-left origin) of a `width` x `height` frame, normalised.
    public init(left: Int, top: Int, right: Int, bottom: Int, width: Int, height: Int) {
        let w = Double(max(1, width))
        let h = Double(max(1, height))
        self.init(
            minX: Double(left) / w, minY: 1 - Double(bottom) / h, maxX: Double(right) / w, maxY: 1 - Double(top) / h)
    }

    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }
    public var midX: Double { (minX + maxX) / 2 }
    public var midY: Double { (minY + maxY) / 2 }
}

/// One recognised word of a line: its text and box.
public struct TextWord: Equatable, Sendable {
    public var text: String
    public var box: NormalizedBox

    public init(text: String, box: NormalizedBox) {
        self.text = text
        self.box = box
    }
}

/// One recognised line of text: UTF-8 text, its box, the mean of its word confidences (0…100) and, where
/// the engine reported them, its words in reading order.
public struct TextObservation: Equatable, Sendable {
    public var text: String
    public var box: NormalizedBox
    public var confidence: Double
    public var words: [TextWord]

    public init(text: String, box: NormalizedBox, confidence: Double, words: [TextWord] = []) {
        self.text = text
        self.box = box
        self.confidence = confidence
        self.words = words
    }
}

/// Why OCR failed: a code, a sentence to speak, and the cause.
public struct OCRError: Error, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable {
        private enum Kind { case missingLanguage, badImage }
        private let kind: Kind
        public static let missingLanguage = Code(kind: .missingLanguage)
        public static let badImage = Code(kind: .badImage)
    }

    public let code: Code
    public let message: String
    public let cause: String?
    public var description: String { message }

    /// Tesseract could not load `languages`; the message names the Debian packages to install.
    public static func missingLanguage(_ languages: String) -> OCRError {
        let packages = languages.split(separator: "+").map {
            "tesseract-ocr-\($0.replacingOccurrences(of: "_", with: "-"))"
        }
        return OCRError(
            code: .missingLanguage,
            message:
                "Text recognition for \(languages) is not installed. Install the Debian package \(packages.joined(separator: " and ")).",
            cause: nil)
    }

    /// A picture that cannot be read.
    public static func badImage(_ path: String) -> OCRError {
        OCRError(
            code: .badImage, message: "The picture \(path) cannot be read. Check that it is a PNG, JPEG or TIFF file.",
            cause: nil)
    }

    /// A file that is no picture and no PDF, and what it is (`FileKind.named`): "/tmp/bill.pdf is a web page
    /// (HTML), not a picture or a PDF: …".
    public static func notAPicture(_ path: String, _ kind: String) -> OCRError {
        OCRError(code: .badImage, message: "\(path) \(kind).", cause: kind)
    }

    /// A picture that cannot be read, and why ("it is damaged or cut short").
    public static func badImage(_ path: String, reason: String) -> OCRError {
        OCRError(code: .badImage, message: "The picture \(path) cannot be read: \(reason).", cause: reason)
    }
}

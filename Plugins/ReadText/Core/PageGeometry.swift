import CPageGeometry

/// A grey picture that owns its pixels (tight rows).
public struct GrayBuffer: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// Geometry before reading (read-text.md §4, issue 14): a photographed page is found and flattened, then
/// turned until its lines lie level, so recognition and reading order see straight, whole lines. The image
/// maths is OpenCV's and Leptonica's (`assist_page_geometry.h`); this decides what to apply.
public enum PageGeometry {
    /// What straightening did to a picture.
    public struct Outcome: Sendable {
        /// The straightened picture, or nil when the original is already as good (no page edge, level text).
        public var picture: GrayBuffer?
        /// True when a page's four corners were found and its perspective undone.
        public var flattened = false
        /// The clockwise turn applied to level the text, in degrees (0 when none).
        public var turnedDegrees = 0.0
        /// True when the page runs off one or two edges of the picture: part of it is not in the photo.
        public var pagePartlyOutside = false
    }

    /// Skew below this is left alone (a rotation blurs a little and costs time).
    static let smallestTurn = 0.3
    /// Leptonica's confidence below which a measured skew is not trusted (its own pixDeskew uses 3).
    static let leastConfidence = 3.0
    /// How far the skew search looks either way, in degrees.
    static let skewRange = 12.0

    /// tesseract's orientation confidence from which a turned page is believed.
    public static let leastOrientationConfidence = 2.0

    /// The picture turned `quarters` quarter turns clockwise; nil when OpenCV failed.
    public static func turned(gray: UnsafeRawPointer, width: Int, height: Int, stride: Int, quarters: Int)
        -> GrayBuffer?
    {
        var pixels = [UInt8](repeating: 0, count: width * height)
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            assist_rotate_quarters(
                gray.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(stride), Int32(quarters),
                buffer.baseAddress)
        }
        guard status == 0 else { return nil }
        return quarters == 2
            ? GrayBuffer(width: width, height: height, pixels: pixels)
            : GrayBuffer(width: height, height: width, pixels: pixels)
    }

    /// The picture scaled by `factor`; nil when OpenCV failed.
    public static func scaled(gray: UnsafeRawPointer, width: Int, height: Int, stride: Int, factor: Double)
        -> GrayBuffer?
    {
        let newWidth = Int((Double(width) * factor).rounded())
        let newHeight = Int((Double(height) * factor).rounded())
        guard newWidth > 0, newHeight > 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: newWidth * newHeight)
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            assist_scale(
                gray.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(stride),
                Int32(newWidth), Int32(newHeight), buffer.baseAddress)
        }
        return status == 0 ? GrayBuffer(width: newWidth, height: newHeight, pixels: pixels) : nil
    }

    /// Finds the page and levels the text of an 8-bit grey picture.
    public static func straighten(gray: UnsafeRawPointer, width: Int, height: Int, stride: Int) -> Outcome {
        var outcome = Outcome()
        let source = gray.assumingMemoryBound(to: UInt8.self)
        var found = assist_page_found()
        var current: GrayBuffer?
        if assist_page_find(source, Int32(width), Int32(height), Int32(stride), &found) == 0 {
            outcome.pagePartlyOutside = (1...2).contains(found.cut_sides) && found.area >= 0.15 && found.area <= 0.97
            if found.found != 0 { current = warp(source, width, height, stride, found.quad) }
        }
        outcome.flattened = current != nil
        var levelled: GrayBuffer?
        if let page = current {
            levelled = page.pixels.withUnsafeBufferPointer { pixels in
                pixels.baseAddress.flatMap { level($0, page.width, page.height, page.width, outcome: &outcome) }
            }
        } else {
            levelled = level(source, width, height, stride, outcome: &outcome)
        }
        outcome.picture = levelled ?? current
        return outcome
    }

    private static func warp(
        _ source: UnsafePointer<UInt8>, _ width: Int, _ height: Int, _ stride: Int,
        _ quad: assist_quad
    ) -> GrayBuffer? {
        var quad = quad
        var outWidth: Int32 = 0
        var outHeight: Int32 = 0
        guard
            assist_page_warp(source, Int32(width), Int32(height), Int32(stride), &quad, nil, 0, &outWidth, &outHeight)
                == -2
        else { return nil }
        var pixels = [UInt8](repeating: 0, count: Int(outWidth) * Int(outHeight))
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            assist_page_warp(
                source, Int32(width), Int32(height), Int32(stride), &quad, buffer.baseAddress, buffer.count,
                &outWidth, &outHeight)
        }
        return status == 0 ? GrayBuffer(width: Int(outWidth), height: Int(outHeight), pixels: pixels) : nil
    }

    /// The picture turned so its text is level, or nil when it already is (or the skew is uncertain).
    private static func level(
        _ source: UnsafePointer<UInt8>, _ width: Int, _ height: Int, _ stride: Int, outcome: inout Outcome
    ) -> GrayBuffer? {
        var degrees = 0.0
        var confidence = 0.0
        guard
            assist_text_skew(source, Int32(width), Int32(height), Int32(stride), skewRange, &degrees, &confidence)
                == 0, abs(degrees) >= smallestTurn, confidence >= leastConfidence
        else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            assist_rotate(source, Int32(width), Int32(height), Int32(stride), degrees, buffer.baseAddress)
        }
        guard status == 0 else { return nil }
        outcome.turnedDegrees = degrees
        return GrayBuffer(width: width, height: height, pixels: pixels)
    }
}

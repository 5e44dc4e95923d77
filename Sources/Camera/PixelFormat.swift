/// The pixel layouts frames come in; the raw values are the ABI's fourcc codes.
package enum PixelFormat: UInt32, CaseIterable, Sendable, CustomStringConvertible {
    case bgr24 = 0x3352_4742  // 'BGR3'
    case rgb24 = 0x3342_4752  // 'RGB3'
    case gray8 = 0x5945_5247  // 'GREY'
    case yuyv = 0x5659_5559  // 'YUYV'

    /// Bytes per pixel (YUYV: two pixels in four bytes).
    package var bytesPerPixel: Int {
        switch self {
        case .bgr24, .rgb24: return 3
        case .gray8: return 1
        case .yuyv: return 2
        }
    }

    /// The smallest horizontal step a crop may take without splitting a pixel group.
    package var horizontalAlignment: Int { self == .yuyv ? 2 : 1 }

    package var description: String {
        switch self {
        case .bgr24: return "BGR24"
        case .rgb24: return "RGB24"
        case .gray8: return "GRAY8"
        case .yuyv: return "YUYV"
        }
    }
}

import CZBar

/// A code found in a picture: what kind, what it holds, and where across the picture it is (0 left … 1 right).
public struct FoundCode: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case ean13 = "EAN-13", ean8 = "EAN-8", upcA = "UPC-A", upcE = "UPC-E", code128 = "Code 128", qr = "QR"
    }

    public var kind: Kind
    public var text: String
    public var across: Double

    public init(kind: Kind, text: String, across: Double = 0.5) {
        self.kind = kind
        self.text = text
        self.across = across
    }
}

/// zbar's image scanner for the codes barcode reads (EAN-13 and -8, UPC-A and -E, Code 128, QR), everything
/// else off. One scanner is used by one thread at a time (zbar keeps state in it).
// because: zbar's scanner is used by one thread at a time (barcode's worker), as zbar requires
public final class CodeScanner: @unchecked Sendable {
    private let scanner: OpaquePointer
    /// zbar scans every `density`th column and row.
    static let density: Int32 = 2

    public init() {
        scanner = zbar_image_scanner_create()
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for kind in [ZBAR_EAN13, ZBAR_EAN8, ZBAR_UPCA, ZBAR_UPCE, ZBAR_CODE128, ZBAR_QRCODE] {
            zbar_image_scanner_set_config(scanner, kind, ZBAR_CFG_ENABLE, 1)
        }
        // Every second column and row scanned: half the time a frame took, and as many codes read on the bench's
        // set (194 of 200 both ways, 192 by the plain pass against 191; every third read 191: docs/barcode.md).
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, Self.density)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Self.density)
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    /// Every code in `height` rows of `width` grey pixels, `stride` bytes apart, in zbar's order. `smoothed`:
    /// each pixel first averaged with its eight neighbours, which takes the grain of a dim picture off the
    /// bars (zbar then reads codes it missed in the noise; the camera alternates the two passes).
    public func scan(
        grey: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, smoothed: Bool = false
    ) -> [FoundCode] {
        guard width > 0, height > 0, stride >= width else { return [] }
        // zbar reads packed rows: a padded or smoothed frame is copied once.
        var packed: [UInt8] = []
        if smoothed {
            packed = Self.smooth(grey, width: width, height: height, stride: stride)
        } else if stride != width {
            packed = [UInt8](repeating: 0, count: width * height)
            for row in 0..<height {
                for column in 0..<width { packed[row * width + column] = grey[row * stride + column] }
            }
        }
        guard let image = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(image) }
        // "Y800": 8-bit grey, as zbar_fourcc('Y', '8', '0', '0') makes it.
        zbar_image_set_format(image, 0x3030_3859)
        zbar_image_set_size(image, UInt32(width), UInt32(height))
        let found: [FoundCode] = withPixels(packed.isEmpty ? nil : packed, grey) { pixels in
            zbar_image_set_data(image, pixels, UInt(width * height), nil)
            guard zbar_scan_image(scanner, image) > 0 else { return [] }
            var codes: [FoundCode] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol {
                if let kind = Self.kind(zbar_symbol_get_type(current)), let data = zbar_symbol_get_data(current) {
                    let length = Int(zbar_symbol_get_data_length(current))
                    let bytes = UnsafeRawBufferPointer(start: data, count: length)
                    let text = String(decoding: bytes, as: UTF8.self)
                    codes.append(FoundCode(kind: kind, text: text, across: Self.across(current, width: width)))
                }
                symbol = zbar_symbol_next(current)
            }
            return codes
        }
        // zbar keeps no pointer to the pixels once the image is gone.
        zbar_image_set_data(image, nil, 0, nil)
        return found
    }

    /// Both passes, the plain one first: for a photo, where there is time for them.
    public func scanThoroughly(grey: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> [FoundCode] {
        let plain = scan(grey: grey, width: width, height: height, stride: stride)
        return plain.isEmpty ? scan(grey: grey, width: width, height: height, stride: stride, smoothed: true) : plain
    }

    /// A 3 × 3 box average, packed; edges average what they have.
    static func smooth(_ grey: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let rows = max(0, y - 1)...min(height - 1, y + 1)
            for x in 0..<width {
                let columns = max(0, x - 1)...min(width - 1, x + 1)
                var sum = 0
                for row in rows {
                    let line = grey + row * stride
                    for column in columns { sum += Int(line[column]) }
                }
                out[y * width + x] = UInt8(sum / (rows.count * columns.count))
            }
        }
        return out
    }

    private func withPixels<T>(
        _ packed: [UInt8]?, _ grey: UnsafePointer<UInt8>, _ body: (UnsafeRawPointer) -> T
    ) -> T {
        guard let packed else { return body(UnsafeRawPointer(grey)) }
        return packed.withUnsafeBytes { buffer in
            buffer.baseAddress.map(body) ?? body(UnsafeRawPointer(grey))
        }
    }

    static func kind(_ type: zbar_symbol_type_t) -> FoundCode.Kind? {
        switch type {
        case ZBAR_EAN13: return .ean13
        case ZBAR_EAN8: return .ean8
        case ZBAR_UPCA: return .upcA
        case ZBAR_UPCE: return .upcE
        case ZBAR_CODE128: return .code128
        case ZBAR_QRCODE: return .qr
        default: return nil
        }
    }

    /// The middle of the code's outline across the picture, 0…1.
    static func across(_ symbol: OpaquePointer, width: Int) -> Double {
        let points = Int(zbar_symbol_get_loc_size(symbol))
        guard points > 0, width > 0 else { return 0.5 }
        let sum = (0..<points).reduce(0) { $0 + Int(zbar_symbol_get_loc_x(symbol, UInt32($1))) }
        return min(1, max(0, Double(sum) / Double(points) / Double(width)))
    }
}

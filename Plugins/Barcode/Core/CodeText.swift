/// What a code says, and whether it can be trusted (barcode.md): product numbers checked by their check digit
/// and kept under one key (a UPC-A and its EAN-13 are one product), text cleaned of what a terminal or a
/// synthesiser should never be given, and cut short when it runs long.
public enum CodeText {
    /// The longest text said whole; longer text is cut at a word and the rest counted.
    public static let longest = 280

    /// True when a product number's last digit is the GS1 check digit of the others (EAN-13, EAN-8,
    /// UPC-A; a UPC-E through its UPC-A). Other kinds have their checks inside the symbol.
    public static func checkDigitHolds(_ code: FoundCode) -> Bool {
        switch code.kind {
        case .ean13, .ean8, .upcA:
            return gs1Holds(code.text)
        case .upcE:
            guard let expanded = upcA(fromUPCE: code.text) else { return false }
            return gs1Holds(expanded)
        case .code128, .qr:
            return true
        }
    }

    /// The GS1 mod-10 rule: from the right, the digits before the check digit weigh 3, 1, 3…
    static func gs1Holds(_ digits: String) -> Bool {
        let values = digits.compactMap(\.wholeNumberValue)
        guard values.count == digits.count, [8, 12, 13].contains(values.count), let check = values.last else {
            return false
        }
        var sum = 0
        for (index, value) in values.dropLast().reversed().enumerated() { sum += value * (index % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == check
    }

    /// A UPC-E number (8 digits: number system, six, check) as its UPC-A (12 digits).
    static func upcA(fromUPCE text: String) -> String? {
        let d = text.compactMap(\.wholeNumberValue)
        guard d.count == 8, d.count == text.count, d[0] == 0 || d[0] == 1 else { return nil }
        let (system, m, check) = (d[0], Array(d[1...6]), d[7])
        let body: [Int]
        switch m[5] {
        case 0, 1, 2: body = [m[0], m[1], m[5], 0, 0, 0, 0, m[2], m[3], m[4]]
        case 3: body = [m[0], m[1], m[2], 0, 0, 0, 0, 0, m[3], m[4]]
        case 4: body = [m[0], m[1], m[2], m[3], 0, 0, 0, 0, 0, m[4]]
        default: body = [m[0], m[1], m[2], m[3], m[4], 0, 0, 0, 0, m[5]]
        }
        return ([system] + body + [check]).map(String.init).joined()
    }

    /// The key a label is kept under: a product's 13-digit number (a UPC-A with a 0 before it, a UPC-E
    /// through its UPC-A), or the kind and the text for the rest.
    public static func key(_ code: FoundCode) -> String {
        switch code.kind {
        case .ean13: return "gtin:" + code.text
        case .ean8: return "gtin:" + code.text
        case .upcA: return "gtin:0" + code.text
        case .upcE: return "gtin:0" + (upcA(fromUPCE: code.text) ?? code.text)
        case .code128: return "code128:" + clean(code.text)
        case .qr: return "qr:" + clean(code.text)
        }
    }

    /// The code as a person hears it, without a label: "EAN 4006381333931", "QR code: …", "A web address in a
    /// QR code: …". Never opened, never followed.
    public static func spoken(_ code: FoundCode, phrases: (String, [String: String]) -> String) -> String {
        switch code.kind {
        case .ean13, .ean8: return phrases("code-ean", ["number": code.text])
        case .upcA, .upcE: return phrases("code-upc", ["number": code.text])
        case .code128: return phrases("code-128", ["text": shortened(clean(code.text), phrases: phrases)])
        case .qr:
            let text = clean(code.text)
            let lower = text.lowercased()
            let web = ["http://", "https://", "www."].contains { lower.hasPrefix($0) } && !text.contains(" ")
            return phrases(web ? "code-qr-web" : "code-qr", ["text": shortened(text, phrases: phrases)])
        }
    }

    /// `text` without control characters (C0, C1, the direction overrides and isolates, zero-width ones),
    /// every run of spaces and line ends one space.
    public static func clean(_ text: String) -> String {
        var result = ""
        var space = false
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let control =
                value < 0x20 || (0x7F...0x9F).contains(value) || (0x200B...0x200F).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0xFEFF
            if scalar.properties.isWhitespace {
                space = !result.isEmpty
                continue
            }
            if control { continue }
            if space { result.append(" ") }
            space = false
            result.unicodeScalars.append(scalar)
        }
        return result
    }

    /// `text` up to `longest` characters, cut at a space where one is near, with how much was left out.
    static func shortened(_ text: String, phrases: (String, [String: String]) -> String) -> String {
        guard text.count > longest else { return text }
        var head = String(text.prefix(longest))
        if let space = head.lastIndex(of: " "), head.distance(from: head.startIndex, to: space) > longest - 40 {
            head = String(head[..<space])
        }
        return phrases("code-cut", ["text": head, "count": String(text.count - head.count)])
    }
}

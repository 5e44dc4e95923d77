import Foundation

/// The optional product lookup (barcode.md, "A product's name from a server"): an admin's address with
/// `{code}` where the product number goes (`barcode.lookup-url`), and the name read out of what the server
/// answers. Only product numbers whose check digit holds are ever sent; QR and Code 128 text never is.
public enum ProductLookup {
    /// Where the number goes in the address.
    public static let marker = "{code}"
    /// The longest name said; a longer one is cut at a word.
    public static let longestName = 100

    /// Why an address cannot be used, as a phrase key of barcode's table.
    public enum Problem: String, Error, Equatable {
        case scheme = "lookup-url-scheme"
        case marker = "lookup-url-marker"
        case characters = "lookup-url-characters"
    }

    /// What a server's answer says about a product.
    public enum Answer: Equatable, Sendable {
        /// Its name, cleaned and at most `longestName` characters.
        case named(String)
        /// The server does not know the number (HTTP 404, or Open Food Facts' `"status": 0`).
        case unknown
        /// An answer that holds no name: HTML (a login page, a captive portal), empty, or JSON without one.
        case noName
    }

    /// Checks an admin's address: http or https, `{code}` in it, no spaces or control characters.
    public static func check(_ template: String) -> Problem? {
        let lower = template.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else { return .scheme }
        guard template.contains(marker) else { return .marker }
        let bad = template.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }
        guard !bad, template.count <= 2_000, URL(string: template.replacingOccurrences(of: marker, with: "0")) != nil
        else { return .characters }
        return nil
    }

    /// The number sent for a code's key, as the key has it ("gtin:4006381333931" → "4006381333931": 13 digits
    /// for EAN-13, UPC-A and UPC-E, 8 for EAN-8); nil for codes that are never sent (Code 128, QR).
    public static func number(forKey key: String) -> String? {
        guard key.hasPrefix("gtin:") else { return nil }
        let digits = String(key.dropFirst(5))
        return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber) ? digits : nil
    }

    /// The address for `number`: the admin's, checked, with the number in place of `{code}`.
    public static func address(_ template: String, number: String) throws(Problem) -> String {
        if let problem = check(template) { throw problem }
        return template.replacingOccurrences(of: marker, with: number)
    }

    /// Reads an answer: `status` the HTTP status, `contentType` its header, `body` its bytes. `language` picks
    /// Open Food Facts' name in the user's language ("product_name_es") where there is one.
    public static func answer(status: Int, contentType: String?, body: Data, language: String) -> Answer {
        if status == 404 { return .unknown }
        guard (200..<300).contains(status), !body.isEmpty else { return .noName }
        let type = (contentType ?? "").lowercased()
        let text = String(decoding: body.prefix(65_536), as: UTF8.self)
        if type.contains("html") || text.drop(while: \.isWhitespace).hasPrefix("<") { return .noName }
        if let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
            return fromJSON(json, language: language)
        }
        guard type.isEmpty || type.hasPrefix("text/plain") else { return .noName }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return named(line) ?? .noName
    }

    /// Open Food Facts' product (`{"status": 1, "product": {"product_name": …, "brands": …}}`), or any answer
    /// with a `product_name`, `name` or `title`, at the top, under `product`, or in the first of `items` or
    /// `products` (UPCitemdb's shape).
    static func fromJSON(_ json: Any, language: String) -> Answer {
        if let name = json as? String { return named(name) ?? .noName }
        guard let object = json as? [String: Any] else { return .noName }
        if let status = object["status"] as? Int, status == 0, object["product"] == nil { return .unknown }
        let candidates: [[String: Any]] = [
            object["product"] as? [String: Any], object,
            (object["items"] as? [Any])?.first as? [String: Any],
            (object["products"] as? [Any])?.first as? [String: Any],
        ].compactMap { $0 }
        // UPCitemdb answers an unknown number with an empty list.
        let lists = [object["items"], object["products"]].compactMap { $0 as? [Any] }
        if object["product"] == nil, !lists.isEmpty, lists.allSatisfy(\.isEmpty) { return .unknown }
        for candidate in candidates {
            let keys = [
                "product_name_\(language)", "product_name", "generic_name_\(language)", "generic_name", "name", "title",
            ]
            guard let name = keys.lazy.compactMap({ candidate[$0] as? String }).first(where: { !clean($0).isEmpty })
            else { continue }
            // A brand the name leaves out is said after it: "Cream of tomato soup, Heinz".
            let brand = (candidate["brands"] as? String)?.split(separator: ",").first.map { clean(String($0)) } ?? ""
            let whole =
                brand.isEmpty || clean(name).lowercased().contains(brand.lowercased()) ? name : "\(name), \(brand)"
            return named(whole) ?? .noName
        }
        return .noName
    }

    /// A name as it is said: control characters out, spaces as one, cut at a word to `longestName`.
    static func named(_ raw: String) -> Answer? {
        var name = clean(raw)
        guard !name.isEmpty else { return nil }
        if name.count > longestName {
            name = String(name.prefix(longestName))
            if let space = name.lastIndex(of: " "), name.distance(from: name.startIndex, to: space) > longestName / 2 {
                name = String(name[..<space])
            }
            name += "…"
        }
        return .named(name)
    }

    static func clean(_ text: String) -> String { CodeText.clean(text) }
}

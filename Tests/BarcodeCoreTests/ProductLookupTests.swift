import Foundation
import Testing

@testable import BarcodeCore

/// The product lookup's address checked and filled, and a name read out of what servers really answer: Open
/// Food Facts' product (and its "not found"), UPCitemdb's list, plain text; HTML, empty and cut answers give no
/// name; a name is cleaned and cut like any text said.
@Suite("Product lookup")
struct ProductLookupTests {
    let off = "https://world.openfoodfacts.org/api/v2/product/{code}.json"

    func answer(_ body: String, status: Int = 200, type: String? = "application/json", language: String = "en")
        -> ProductLookup.Answer
    {
        ProductLookup.answer(status: status, contentType: type, body: Data(body.utf8), language: language)
    }

    @Test func anAddressNeedsAWebSchemeTheMarkerAndNoSpaces() throws {
        #expect(ProductLookup.check(off) == nil)
        #expect(ProductLookup.check("ftp://example.org/{code}") == .scheme)
        #expect(ProductLookup.check("file:///etc/{code}") == .scheme)
        #expect(ProductLookup.check("https://example.org/product/") == .marker)
        #expect(ProductLookup.check("https://example.org/{code} x") == .characters)
        #expect(ProductLookup.check("https://example.org/{code}\r\nHost: evil") == .characters)
        #expect(
            try ProductLookup.address(off, number: "4006381333931")
                == "https://world.openfoodfacts.org/api/v2/product/4006381333931.json")
        #expect(throws: ProductLookup.Problem.marker) { try ProductLookup.address("https://x.org/", number: "1") }
    }

    @Test func onlyProductNumbersAreEverSent() {
        #expect(
            ProductLookup.number(forKey: CodeText.key(FoundCode(kind: .ean13, text: "4006381333931")))
                == "4006381333931")
        #expect(
            ProductLookup.number(forKey: CodeText.key(FoundCode(kind: .upcA, text: "036000291452"))) == "0036000291452")
        #expect(ProductLookup.number(forKey: CodeText.key(FoundCode(kind: .ean8, text: "96385074"))) == "96385074")
        #expect(ProductLookup.number(forKey: CodeText.key(FoundCode(kind: .qr, text: "1234567890123"))) == nil)
        #expect(ProductLookup.number(forKey: CodeText.key(FoundCode(kind: .code128, text: "4006381333931"))) == nil)
        #expect(ProductLookup.number(forKey: "gtin:12a4") == nil)
    }

    @Test func openFoodFactsNamesTheProductWithItsBrandInTheUsersLanguage() {
        let found = """
            {"code":"4006381333931","product":{"brands":"Heinz,Kraft","product_name":"Cream of tomato soup",\
            "product_name_es":"Crema de tomate"},"status":1,"status_verbose":"product found"}
            """
        #expect(answer(found) == .named("Cream of tomato soup, Heinz"))
        #expect(answer(found, language: "es") == .named("Crema de tomate, Heinz"))
        let branded = #"{"product":{"brands":"Heinz","product_name":"Heinz tomato ketchup"},"status":1}"#
        #expect(answer(branded) == .named("Heinz tomato ketchup"), "the brand is not said twice")
        let generic = #"{"product":{"generic_name":"Sparkling water","product_name":""},"status":1}"#
        #expect(answer(generic) == .named("Sparkling water"))
        let missing = #"{"code":"5901234123457","status":0,"status_verbose":"product not found"}"#
        #expect(answer(missing, status: 404) == .unknown)
        #expect(answer(missing) == .unknown, "an older API answers not found with 200")
    }

    @Test func otherShapesAndPlainText() {
        #expect(
            answer(#"{"code":"OK","total":1,"items":[{"ean":"0036000291452","title":"Kleenex tissues"}]}"#)
                == .named("Kleenex tissues"))
        #expect(answer(#"{"code":"OK","total":0,"items":[]}"#) == .unknown)
        #expect(answer(#"{"name":"Oat milk"}"#) == .named("Oat milk"))
        #expect(answer("Rice crackers\nsecond line", type: "text/plain; charset=utf-8") == .named("Rice crackers"))
    }

    @Test func answersWithoutANameSayNone() {
        #expect(answer("<!DOCTYPE html><html><body>Sign in to the Wi-Fi</body></html>", type: "text/html") == .noName)
        #expect(answer("<html>no type given</html>", type: nil) == .noName)
        #expect(answer("", type: "application/json") == .noName)
        #expect(answer(#"{"product":{"product_name":"Cream of tom"#) == .noName, "a cut answer")
        #expect(answer(#"{"product":{"image_url":"x.jpg"},"status":1}"#) == .noName)
        #expect(answer(#"{"error":"rate limited"}"#, status: 429) == .noName)
        #expect(answer(#"\u0000\u0000"#, type: "application/octet-stream") == .noName)
    }

    @Test func aNameIsCleanedAndCut() {
        let escape = answer(#"{"product_name":"Soup\u001b[2J\u0007 of the\u202e day"}"#)
        #expect(escape == .named("Soup[2J of the day"))
        guard
            case .named(let long) = answer(
                #"{"name":"\#(Array(repeating: "tomato", count: 300).joined(separator: " "))"}"#)
        else {
            Issue.record("no name")
            return
        }
        #expect(long.count <= ProductLookup.longestName + 1 && long.hasSuffix("tomato…"), "\(long)")
    }
}

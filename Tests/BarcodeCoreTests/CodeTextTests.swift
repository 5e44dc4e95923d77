import Testing

@testable import BarcodeCore

/// Check digits, one key for one product, and text cleaned and cut before it is said.
@Suite("Code text")
struct CodeTextTests {
    static func phrase(_ key: String, _ values: [String: String]) -> String {
        let patterns = [
            "code-ean": "EAN {number}", "code-upc": "UPC {number}", "code-128": "Code 128: {text}",
            "code-qr": "QR code: {text}", "code-qr-web": "A web address in a QR code: {text}. It is not opened.",
            "code-cut": "{text}… and {count} more characters",
        ]
        var text = patterns[key] ?? key
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    @Test func checkDigitsHoldOrNot() {
        #expect(CodeText.checkDigitHolds(FoundCode(kind: .ean13, text: "4006381333931")))
        #expect(!CodeText.checkDigitHolds(FoundCode(kind: .ean13, text: "4006381333932")))
        #expect(CodeText.checkDigitHolds(FoundCode(kind: .ean8, text: "96385074")))
        #expect(!CodeText.checkDigitHolds(FoundCode(kind: .ean8, text: "96385075")))
        #expect(CodeText.checkDigitHolds(FoundCode(kind: .upcA, text: "036000291452")))
        #expect(!CodeText.checkDigitHolds(FoundCode(kind: .upcA, text: "036000291453")))
        #expect(!CodeText.checkDigitHolds(FoundCode(kind: .ean13, text: "40063813339")), "too short")
        #expect(!CodeText.checkDigitHolds(FoundCode(kind: .ean13, text: "400638133393x")))
        // UPC-E 01234565 is UPC-A 012345000065.
        #expect(CodeText.upcA(fromUPCE: "01234565") == "012345000065")
        #expect(CodeText.checkDigitHolds(FoundCode(kind: .upcE, text: "01234565")))
        #expect(!CodeText.checkDigitHolds(FoundCode(kind: .upcE, text: "01234566")))
    }

    @Test func aProductIsOneKeyWhateverItsSymbol() {
        let upc = CodeText.key(FoundCode(kind: .upcA, text: "036000291452"))
        #expect(upc == CodeText.key(FoundCode(kind: .ean13, text: "0036000291452")))
        #expect(
            CodeText.key(FoundCode(kind: .upcE, text: "01234565"))
                == CodeText.key(FoundCode(kind: .upcA, text: "012345000065")))
        #expect(CodeText.key(FoundCode(kind: .qr, text: "a\u{202E}b")) == "qr:ab")
    }

    @Test func controlCharactersAndDirectionOverridesAreTakenOut() {
        #expect(CodeText.clean("Tomato\u{0}\u{7}\u{1B}[31m soup\r\n\tnow") == "Tomato[31m soup now")
        #expect(CodeText.clean("\u{202E}evil\u{2066} text\u{200B}\u{FEFF}") == "evil text")
        #expect(CodeText.clean("   ") == "")
    }

    @Test func longTextIsCutAtAWordAndCounted() {
        let long = Array(repeating: "word", count: 800).joined(separator: " ")  // 3,999 characters
        let said = CodeText.spoken(FoundCode(kind: .qr, text: long), phrases: Self.phrase)
        #expect(said.count < 400, "\(said.count)")
        #expect(said.hasSuffix("more characters"))
        #expect(said.contains("… and 3720 more characters"), "\(said.suffix(60))")
    }

    @Test func aWebAddressIsSaidAsOneAndNeverOpened() {
        #expect(
            CodeText.spoken(FoundCode(kind: .qr, text: "https://example.org/x"), phrases: Self.phrase)
                == "A web address in a QR code: https://example.org/x. It is not opened.")
        #expect(
            CodeText.spoken(FoundCode(kind: .qr, text: "https is a protocol"), phrases: Self.phrase)
                == "QR code: https is a protocol")
        #expect(
            CodeText.spoken(FoundCode(kind: .upcA, text: "036000291452"), phrases: Self.phrase) == "UPC 036000291452")
    }
}

/// The labels file a family shares: written and read back, whatever the names hold.
@Suite("Labels as CSV")
struct LabelsCSVTests {
    @Test func namesWithCommasQuotesLineEndsAndFormulasComeBackAsTheyWere() throws {
        let rows = [
            ["EAN-13", "4006381333931", "Tomato soup, large"], ["QR", "x", "Say \"hi\"\nthen go"],
            ["EAN-8", "96385074", "=HYPERLINK(\"x\")"], ["UPC-A", "036000291452", "-5 degrees"],
        ]
        let written = LabelsCSV.write(rows)
        #expect(written.hasPrefix("type,code,name\r\n"))
        #expect(written.contains("\"'=HYPERLINK(\"\"x\"\")\""), "a formula is not a formula: \(written)")
        guard case .success(let read) = LabelsCSV.read(written) else { Issue.record("not read back"); return }
        #expect(read.map(\.fields) == [LabelsCSV.header] + rows)
        #expect(read.map(\.line) == [1, 2, 3, 5, 6], "a quoted line end counts as a line")
    }

    @Test func aByteOrderMarkBareLineEndsAndBlankLinesAreFineButABrokenQuoteIsItsLine() {
        guard case .success(let read) = LabelsCSV.read("\u{FEFF}type,code,name\n\nQR,a,b\n") else {
            Issue.record("not read")
            return
        }
        #expect(read.map(\.fields) == [["type", "code", "name"], ["QR", "a", "b"]])
        guard case .failure(let problem) = LabelsCSV.read("type,code,name\nQR,a,\"b\nQR,c,d\n") else {
            Issue.record("a quote never closed was read")
            return
        }
        #expect(problem.line == 2)
    }

    @Test func labelNamesAreRefusedWithTheirReason() {
        let other = LabelStore.Label(key: "gtin:1", kind: "EAN-13", code: "1", name: "Soup")
        #expect(LabelName.problem("Tomato soup", existing: nil, forKey: "k") == nil)
        #expect(LabelName.problem(String(repeating: "a", count: 101), existing: nil, forKey: "k") == "label-long")
        #expect(LabelName.problem("Soup\u{7}", existing: nil, forKey: "k") == "label-control")
        #expect(LabelName.problem("  ", existing: nil, forKey: "k") == "label-empty")
        #expect(LabelName.problem("the", existing: nil, forKey: "k") == "label-filler")
        #expect(LabelName.problem("SOUP", existing: other, forKey: "k") == "label-taken")
        #expect(LabelName.problem("Soup", existing: other, forKey: "gtin:1") == nil, "its own name again")
    }
}

import Testing

@testable import ReadTextCore

/// A page's number after "page", typed or heard: digits, or the English words voice listens for.
@Suite("Page numbers")
struct PageNumberTests {
    @Test func digitsAndWordsNameTheSamePage() {
        let cases: [(String, Int?)] = [
            ("4", 4), ("four", 4), ("Four", 4), ("number four", 4), ("nineteen", 19), ("twenty", 20),
            ("twenty one", 21), ("twenty-one", 21), ("ninety nine", 99), ("120", 120), ("", nil), ("four two", nil),
            ("twenty twelve", nil), ("fourth", nil), ("page", nil), ("one hundred", nil),
        ]
        for (text, page) in cases { #expect(PageNumber.parse(text) == page, "\(text)") }
    }

    @Test func theWordsListenedForAreOneToNinetyNineAndReadBack() {
        #expect(PageNumber.spoken.count == 99)
        #expect(PageNumber.spoken.prefix(3) == ["one", "two", "three"])
        #expect(PageNumber.spoken[20] == "twenty one" && PageNumber.spoken.last == "ninety nine")
        for (index, words) in PageNumber.spoken.enumerated() { #expect(PageNumber.parse(words) == index + 1) }
    }
}

import PluginKit

/// A page number as typed or said after "page" (docs/read-text.md, "Documents"): digits ("/page 4"), or English
/// words from one to ninety-nine ("page four", "page twenty one"), the words voice listens for after the phrase.
public enum PageNumber {
    /// "one" … "nineteen" → 1 … 19.
    private static let small: [String: Int] = Dictionary(
        uniqueKeysWithValues:
            "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
            .split(separator: " ").enumerated().map { (String($0.element), $0.offset + 1) })
    /// "twenty" … "ninety" → 20 … 90.
    private static let decades: [String: Int] = Dictionary(
        uniqueKeysWithValues: "twenty thirty forty fifty sixty seventy eighty ninety".split(separator: " ")
            .enumerated().map { (String($0.element), 20 + 10 * $0.offset) })

    /// The page `text` names, or nil: digits, or the words ("four", "twenty-one", "number 4").
    public static func parse(_ text: String) -> Int? {
        let words = text.lowercased().split { $0 == " " || $0 == "-" }.map(String.init).filter { $0 != "number" }
        if words.count == 1, let digits = Int(words[0]) { return digits }
        if words.count == 1 { return small[words[0]] ?? decades[words[0]] }
        if words.count == 2, let tens = decades[words[0]], let unit = small[words[1]], unit < 10 { return tens + unit }
        return nil
    }

    /// How 1 … 99 are said, the list voice listens for after "page".
    public static let spoken: [String] = (1...99).compactMap { number in
        let name = { (table: [String: Int], value: Int) in table.first { $0.value == value }?.key }
        if number < 20 { return name(small, number) }
        guard let tens = name(decades, number / 10 * 10) else { return nil }
        return number % 10 == 0 ? tens : name(small, number % 10).map { "\(tens) \($0)" }
    }
}

extension ReadText {
    /// Voice listens for a page's number after "page" ("page four"): in English, the language Debian ships a
    /// voice model for. Run in the library's `prepare`, before the phrase is first heard.
    public static func offerPageNumbers(host: PluginHostHandle) {
        guard host.language == "en" else { return }
        let phrases = PhraseTable(directory: host.shareDirectory, language: host.language)
        host.setChoices(
            after: phrases.text("phrase.page"), prompt: phrases.text("page-ask"), choices: PageNumber.spoken)
    }
}

/// Numbers said in English words, as a choice is picked by voice ("fourteen", "number three", "the second
/// one", "twenty one"): the number, or nil when the words are not one. Digits pass through ("14").
package enum NumberWords {
    private static let units = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    private static let tens = [
        "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90,
    ]
    private static let ordinals = [
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
        "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
        "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
        "last": -1,
    ]
    /// Words around a number that say nothing more: "number", "option", "the", "one" after an ordinal.
    private static let around: Set<String> = ["number", "option", "choice", "the", "please", "item"]

    /// The number `text` says, from 0 to 99; `last` for "the last one" (nil otherwise).
    package static func value(_ text: String, last: Int? = nil) -> Int? {
        var words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" }).map(String.init)
        words.removeAll { around.contains($0) }
        if words.count == 2, ordinals[words[0]] != nil, words[1] == "one" { words.removeLast() }
        guard !words.isEmpty, words.count <= 2 else { return nil }
        if words.count == 1, let digits = Int(words[0]) { return digits }
        if words.count == 1, let ordinal = ordinals[words[0]] { return ordinal == -1 ? last : ordinal }
        if words.count == 1, let unit = units.firstIndex(of: words[0]) { return unit }
        guard let ten = tens[words[0]] else { return nil }
        if words.count == 1 { return ten }
        if let unit = units.firstIndex(of: words[1]), (1...9).contains(unit) { return ten + unit }
        if let ordinal = ordinals[words[1]], (1...9).contains(ordinal) { return ten + ordinal }
        return nil
    }

    /// How `number` (1 to 99) is said: "fourteen", "twenty one".
    package static func spoken(_ number: Int) -> String? {
        guard (0...99).contains(number) else { return nil }
        if number < 20 { return units[number] }
        guard let ten = tens.first(where: { $0.value == number / 10 * 10 })?.key else { return nil }
        return number % 10 == 0 ? ten : "\(ten) \(units[number % 10])"
    }
}

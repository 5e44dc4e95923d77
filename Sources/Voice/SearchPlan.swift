/// How phrases are laid out over pocketsphinx's keyphrase searches, and how detections of them relate: pure
/// rules on words and times. A keyphrase search starts afresh after each phrase it spots, so phrases that could
/// be heard over each other ("read text", "read this") go to separate searches over the same sound.
package enum SearchPlan {
    /// Phrases split so that no two in a group could cut each other off, longest first (two groups for the
    /// shipped commands: each search costs as much as the whole acoustic model, so fewer is cheaper).
    package static func groups(_ phrases: [KeyPhrase]) -> [[KeyPhrase]] {
        var groups: [[KeyPhrase]] = []
        for phrase in phrases.sorted(by: { $0.words.count > $1.words.count }) {
            if let index = groups.firstIndex(where: { group in
                group.allSatisfy { !conflict(phrase.words, $0.words) }
            }) {
                groups[index].append(phrase)
            } else {
                groups.append([phrase])
            }
        }
        return groups
    }

    /// True when one search could hear `a` over `b`, or the other way round: one lies inside the other ("time",
    /// "what time is it"), or they have the same words in the same places for at least half of the shorter,
    /// counted from the start or from the end ("read text" and "read this", "start photo sensor" and "stop
    /// photo sensor"), so the sound of one may fit the other. Phrases that only share words elsewhere ("photo
    /// sensor status", "start photo sensor") cannot be heard over each other.
    package static func conflict(_ a: [String], _ b: [String]) -> Bool {
        let (long, short) = a.count >= b.count ? (a, b) : (b, a)
        if contains(long.joined(separator: " "), short.joined(separator: " ")) { return true }
        let fromStart = zip(a, b).filter { $0 == $1 }.count
        let fromEnd = zip(a.reversed(), b.reversed()).filter { $0 == $1 }.count
        return max(fromStart, fromEnd) * 2 >= short.count
    }

    /// True when `long`'s words hold `short`'s as a run ("what time is it" holds "time").
    package static func contains(_ long: String, _ short: String) -> Bool {
        " \(long) ".contains(" \(short) ")
    }

    /// The share of the shorter of two detections that the other covers.
    package static func overlap(_ a: Detection, _ b: Detection) -> Double {
        let shared = min(a.endMs, b.endMs) - max(a.startMs, b.startMs)
        let shorter = max(1, min(a.endMs - a.startMs, b.endMs - b.startMs))
        return Double(max(0, shared)) / Double(shorter)
    }
}

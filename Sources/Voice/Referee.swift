/// The referee between rival phrases: a phrase with a rival in the list ("start photo sensor" and "stop photo
/// sensor", "read text" and "find text") is checked as soon as it is heard: its sound is decoded once more as a
/// choice between it and its rivals, and the phrase the referee hears is the one said.
package struct Referee: Sendable {
    private var phrases: [KeyPhrase] = []
    private var alonePhrases: Set<String> = []
    /// Phrases with a rival in the list, which the referee checks.
    package private(set) var contestable: Set<String> = []

    package init(phrases: [KeyPhrase] = [], alonePhrases: Set<String> = []) {
        self.phrases = phrases
        self.alonePhrases = alonePhrases
        contestable = Set(phrases.filter { phrase in phrases.contains { areRivals($0, phrase) } }.map(\.text))
    }

    /// Whether the referee tells `a` from `b`: phrases that share words in the same places (`SearchPlan.conflict`)
    /// and, at any time, single words (`alonePhrases`), each spotted by its own threshold: a rendering of "next"
    /// said alone after a quiet room was heard as "back" 10 times in 16 (the judge, 0.99 sure of "next").
    package func areRivals(_ a: KeyPhrase, _ b: KeyPhrase) -> Bool {
        a.text != b.text
            && (SearchPlan.conflict(a.words, b.words)
                || (alonePhrases.contains(a.text) && alonePhrases.contains(b.text)))
    }

    /// The longer phrases that begin as `word`, a single word said alone, sounds: their first word starts with
    /// the same two letters ("repeat" and "read text", "stop" and "start survey").
    package func alike(for word: String) -> [String] {
        guard alonePhrases.contains(word), !word.contains(" ") else { return [] }
        return phrases.filter { $0.words.count > 1 && $0.words[0].prefix(2) == word.prefix(2) }.map(\.text)
    }

    /// The phrases the referee chooses between when `phrase` is heard (it among them, in the list's order);
    /// empty when it has no rival.
    package func contest(for phrase: String) -> [String] {
        guard contestable.contains(phrase) else { return [] }
        let heard = KeyPhrase(phrase)
        return phrases.filter { $0.text == heard.text || areRivals($0, heard) }.map(\.text)
    }

    /// The phrase said where `phrase` was heard: `hear` decodes its sound once as one of the phrases given and
    /// returns the one it hears. Nil when `phrase` has no rival, or what is heard is none of them.
    package func decide(_ phrase: String, hear: ([String]) -> String?) -> String? {
        let texts = contest(for: phrase)
        guard texts.count > 1, let said = hear(texts) else { return nil }
        return texts.contains(said) ? said : nil
    }
}

import CPocketSphinx
import Foundation

/// The second and later pronunciations of the words listened for. pocketsphinx's keyphrase search hears a word
/// by its first pronunciation alone, so each later one is added to the decoders as a word of its own ("read" →
/// "read__2"), and a phrase is listened for in every spoken form they give.
final class Pronunciations {
    private let dictionary: URL
    /// Words added to the searches with their later pronunciations: "read" → ["read__2"].
    private var alternates: [String: [String]] = [:]
    /// The same, for words added to a side decoder alone (`side`).
    private var sideAlternates: [String: [String]] = [:]
    /// Each alternate added to the searches, and each word added (`addMissing`) → its phones, for a search or
    /// decoder opened later.
    private var phones: [String: String] = [:]

    init(dictionary: URL) { self.dictionary = dictionary }

    /// Every way of saying `words` the dictionary knows (at most 8); `side`: as a side decoder has them.
    func spokenForms(_ words: [String], side: Bool = false) -> [String] {
        var forms = [[String]()]
        for word in words {
            let choices = [word] + ((side ? sideAlternates[word] : nil) ?? alternates[word] ?? [])
            forms = forms.flatMap { form in choices.map { form + [$0] } }
            if forms.count > 8 { forms = Array(forms.prefix(8)) }
        }
        return forms.map { $0.joined(separator: " ") }
    }

    /// Adds each of `words`' later pronunciations to `decoders` (the first decides whether one is taken), once a
    /// word. `side`: to a side decoder alone; adding a word to a keyphrase search rebuilds it, and it hears nothing
    /// for a while, so words for a side decoder never go to the searches.
    func add(for words: Set<String>, to decoders: [OpaquePointer], side: Bool = false) {
        guard let first = decoders.first else { return }
        var table = side ? sideAlternates : alternates
        let wanted = words.filter { table[$0] == nil }
        guard !wanted.isEmpty, let text = try? String(contentsOf: dictionary, encoding: .utf8) else { return }
        for word in wanted { table[word] = [] }
        for line in text.split(separator: "\n") {
            guard let open = line.firstIndex(of: "("), let space = line.firstIndex(of: " "), open < space else {
                continue
            }
            let word = String(line[..<open])
            guard wanted.contains(word) else { continue }
            let number = line[line.index(after: open)..<space].filter(\.isNumber)
            let said = line[space...].trimmingCharacters(in: .whitespaces)
            let name = "\(word)__\(number)"
            guard assist_spotter_add_word(first, name, said) == 0 else { continue }
            table[word, default: []].append(name)
            if !side {
                phones[name] = said
                for other in decoders.dropFirst() { _ = assist_spotter_add_word(other, name, said) }
            }
        }
        if side { sideAlternates = table } else { alternates = table }
    }

    /// Adds the words of `file` (`VoiceModel.addedWords`: "barcode B AA R K OW D", a line each, `#` a comment)
    /// that the dictionary lacks to `decoders`, and to every decoder opened after them. A line whose phones
    /// the acoustic model does not have is passed over.
    func addMissing(from file: URL?, to decoders: [OpaquePointer]) {
        guard let file, let first = decoders.first, let text = try? String(contentsOf: file, encoding: .utf8) else {
            return
        }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let word = parts[0].lowercased()
            let said = parts[1].trimmingCharacters(in: .whitespaces)
            guard assist_spotter_knows(first, word) == 0, assist_spotter_add_word(first, word, said) == 0 else {
                continue
            }
            phones[word] = said
            for other in decoders.dropFirst() { _ = assist_spotter_add_word(other, word, said) }
        }
    }

    /// Gives `decoder`, opened after them, the pronunciations the searches have.
    func copy(to decoder: OpaquePointer) {
        for (name, said) in phones { _ = assist_spotter_add_word(decoder, name, said) }
    }
}

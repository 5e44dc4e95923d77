import Foundation

/// One word, phone or silence of a decoded utterance: its 10 ms frames (from the start of the sound decoded)
/// and its acoustic score (a log likelihood in pocketsphinx's units; larger fits better). A segment pocketsphinx
/// reports without frames (before the sound, or ending before it starts) is never made.
package struct DecodedSegment: Equatable, Sendable {
    package var word: String
    package var frames: ClosedRange<Int>
    package var acoustic: Int

    package init(word: String, frames: ClosedRange<Int>, acoustic: Int) {
        self.word = word
        self.frames = frames
        self.acoustic = acoustic
    }

    /// True for silence and noise segments (`<sil>`, `[NOISE]`, `++BREATH++`, the grammar's empty nodes).
    package var isSilence: Bool {
        word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("++") || word == "(NULL)" || word == "SIL"
    }

    /// The word without its pronunciation number ("read(2)" and "read__2" are "read").
    package var plainWord: String {
        var text = word
        if let open = text.firstIndex(of: "(") { text = String(text[..<open]) }
        if let mark = text.range(of: "__") { text = String(text[..<mark.lowerBound]) }
        return text
    }
}

/// Whether an utterance said in a push-to-talk or wake-word window is a command, and how sure that is
/// (docs/voice.md, "No guessing"). The window's sound is decoded twice: by a grammar of every command with
/// request words allowed around it (`fillers`: "could you read text now please"), and by a free loop of every
/// phone, the best any sound can fit the acoustic model. A command said fits the grammar almost as well as the
/// free loop; everyday speech forced through the grammar fits it much worse, and needs many request words to
/// cover it. Pure: tests give it literal segments.
package enum CommandConfidence {
    /// What may come before and after a command in a request, in English ("could you read text now",
    /// "stop please"). Only these: a free loop of short words would fit much everyday speech as well.
    package static let before = [
        "could you", "would you", "can you", "will you", "please", "could you please", "would you please",
        "can you please", "could you tell me", "can you tell me", "please tell me", "okay", "hey", "now",
    ]
    package static let after = ["please", "now", "now please", "please now"]

    /// The JSGF grammar of a window: one of `forms` (every spoken form of every command), with a request's
    /// words around it; request words that are a command's own are left out, and those `knows` lacks.
    package static func grammar(forms: [String], knows: (String) -> Bool) -> String {
        let commandWords = Set(forms.flatMap { $0.split(separator: " ").map(String.init) })
        func usable(_ list: [String]) -> [String] {
            list.filter { phrase in
                phrase.split(separator: " ").allSatisfy { !commandWords.contains(String($0)) && knows(String($0)) }
            }
        }
        var text = "#JSGF V1.0;\ngrammar window;\n<command> = " + forms.sorted().joined(separator: " | ") + ";\n"
        var rule = "<command>"
        if !usable(before).isEmpty {
            text += "<before> = " + usable(before).joined(separator: " | ") + ";\n"
            rule = "[<before>] " + rule
        }
        if !usable(after).isEmpty {
            text += "<after> = " + usable(after).joined(separator: " | ") + ";\n"
            rule += " [<after>]"
        }
        return text + "public <window> = " + rule + ";\n"
    }

    /// Set on natural voices through `assist listen --window` (scripts/voice-set.py with seed 21: 22 commands
    /// and 6 requests around them, 8 renderings each, clean and with pink noise 25, 15 and 10 dB under the
    /// speech; 196 everyday sentences twice): at −9.5, the middle of the confidence scale, every command and
    /// request was kept (224 of 224) and 98.5 % of the sentences were rejected (386 of 392). A free loop of
    /// short words around the command, tried first, kept 97 % and rejected 95 %: it fits everyday speech too
    /// well; so did "for me" and "thank you" after it.
    package static let middle = -9.5
    /// How much the score moves the confidence.
    package static let spread = 2.0
    /// The weight of the share of speech spent in request words.
    package static let fillerWeight = 10.0
    /// The confidence at or above which a window's command is acted on.
    package static let acceptAt = 0.5
    /// The confidence at or above which one of a text question's likely answers is taken over dictation: it is
    /// said back and given only after yes. "cup" said clean to find-object's "What should I find?" scored 0.32
    /// against its 115 names; "cup" and "yes" run together with noise, 0.00.
    package static let likelyAt = 0.1
    /// At any time (KeywordSpotter: an utterance said alone that held a phrase the pause rules dropped), the
    /// confidence at or above which its command is heard, when the judge heard no request words around it.
    /// Set on natural voices (docs/voice.md, "Said alone"): everyday sentences said alone and judged as a
    /// window scored at most 0.92; the commands the spotter missed, 0.91 to 1.00.
    package static let aloneAt = 0.95

    /// The command the grammar heard (found by `command`, given the words heard in order and returning the
    /// phrase and where its words lie) and its confidence in 0...1, or nil when the grammar heard nothing.
    package static func judge(
        grammar: [DecodedSegment], phones: [DecodedSegment],
        command: ([String]) -> (phrase: String, range: Range<Int>)?
    ) -> (phrase: String, confidence: Double, score: Double, fit: Double, share: Double)? {
        let words = grammar.filter { !$0.isSilence }
        guard !words.isEmpty, let found = command(words.map(\.plainWord)) else { return nil }
        let fit = fit(grammar: words, phones: phones)
        let share = fillerShare(words, command: found.range)
        let score = fit - fillerWeight * share
        return (found.phrase, confidence(score), score, fit, share)
    }

    /// The confidence (0...1) of a score.
    package static func confidence(_ score: Double) -> Double { 1 / (1 + exp(-(score - middle) / spread)) }

    /// How much worse the grammar's words fit than the free phone loop, per frame, over the words' frames
    /// (0 when as well; the phone loop's score of each phone is spread evenly over its frames). Silence is
    /// left out: both fit it alike, and how much of it a window holds says nothing of what was said.
    package static func fit(grammar: [DecodedSegment], phones: [DecodedSegment]) -> Double {
        var perFrame: [Int: Double] = [:]
        for phone in phones {
            let share = Double(phone.acoustic) / Double(phone.frames.count)
            for frame in phone.frames { perFrame[frame] = share }
        }
        var grammarScore = 0.0
        var loopScore = 0.0
        var frames = 0
        for segment in grammar {
            grammarScore += Double(segment.acoustic)
            for frame in segment.frames { loopScore += perFrame[frame] ?? 0 }
            frames += segment.frames.count
        }
        return frames == 0 ? 0 : (grammarScore - loopScore) / Double(frames)
    }

    /// The share of the speech's frames in words outside the command (`command` indexes `words`).
    package static func fillerShare(_ words: [DecodedSegment], command: Range<Int>) -> Double {
        let lengths = words.map { Double($0.frames.count) }
        let total = lengths.reduce(0, +)
        let outside = lengths.indices.filter { !command.contains($0) }.map { lengths[$0] }.reduce(0, +)
        return total == 0 ? 0 : outside / total
    }

    /// The longest of `phrases` whose words lie in a run in `words`, and where.
    package static func find(_ phrases: [String], in words: [String]) -> (phrase: String, range: Range<Int>)? {
        for phrase in phrases.sorted(by: { $0.split(separator: " ").count > $1.split(separator: " ").count }) {
            let wanted = phrase.split(separator: " ").map(String.init)
            guard wanted.count <= words.count else { continue }
            for start in 0...(words.count - wanted.count) where Array(words[start..<start + wanted.count]) == wanted {
                return (phrase, start..<start + wanted.count)
            }
        }
        return nil
    }
}

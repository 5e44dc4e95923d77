import Foundation

/// A phrase to listen for and how sure the recogniser must be: pocketsphinx's keyphrase threshold, a
/// probability such as 1e-20 (a smaller value lets more through; `assist voice tune` chooses it).
package struct KeyPhrase: Equatable, Sendable {
    package var text: String
    package var threshold: Double

    package init(_ text: String, threshold: Double = KeyPhrase.defaultThreshold) {
        self.text = KeyPhrase.normalise(text)
        self.threshold = threshold
    }

    package static let defaultThreshold = 1e-20

    /// Lower case, letters and apostrophes only, single spaces: the form the dictionary knows.
    package static func normalise(_ text: String) -> String {
        let kept = text.lowercased().map { $0.isLetter || $0 == "'" ? $0 : " " }
        return String(kept).split(separator: " ").joined(separator: " ")
    }

    package var words: [String] { text.split(separator: " ").map(String.init) }
}

/// A phrase heard: what, when (ms from the first sample listened to) and how sure (a log score, larger is
/// surer).
package struct Detection: Equatable, Sendable {
    package var phrase: String
    package var startMs: Int
    package var endMs: Int
    package var score: Int
    /// The words said after the phrase, for a phrase that takes them ("cup" after "find object").
    package var argument: String?
    /// How sure it is that the phrase was said, 0...1 (CommandConfidence); nil when not judged.
    package var confidence: Double?
    /// Said over Assist's own sound, and kept by the echo canceller as a person's (`KeywordSpotter.overSound`).
    package var overSound = false

    package init(phrase: String, startMs: Int, endMs: Int, score: Int, argument: String? = nil) {
        self.phrase = phrase
        self.startMs = startMs
        self.endMs = endMs
        self.score = score
        self.argument = argument
    }

    /// One JSON object, as `assist listen --json` prints it.
    package var json: String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let argument = self.argument.map { #","argument":\#(quoted($0))"# } ?? ""
        // Not judged (`assist listen --no-score`): no score.
        let score = confidence.map { #","score":\#(String(format: "%.2f", $0))"# } ?? ""
        return #"{"phrase":\#(quoted(phrase))\#(argument),"start_ms":\#(startMs),"end_ms":\#(endMs)\#(score)}"#
    }

    /// The JSON line for an utterance that was no command: what it came nearest to, and how sure that was.
    package static func rejectedJSON(nearest: String?, startMs: Int, endMs: Int, confidence: Double) -> String {
        let nearest = nearest.map { #","nearest":"\#($0)""# } ?? ""
        let score = String(format: "%.2f", confidence)
        return #"{"rejected":true\#(nearest),"start_ms":\#(startMs),"end_ms":\#(endMs),"score":\#(score)}"#
    }
}

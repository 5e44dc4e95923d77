import Testing
import Voice

/// The judge of a window's utterance, given literal segments as pocketsphinx gives them: the grammar's words
/// (with request words around the command) against the free phone loop over the same frames.
@Suite("Command confidence")
struct CommandConfidenceTests {
    func segment(_ word: String, _ from: Int, _ to: Int, perFrame: Int) -> DecodedSegment {
        DecodedSegment(word: word, frames: from...to, acoustic: perFrame * (to - from + 1))
    }

    /// The phone loop: one phone per 10 frames over `frames`, each frame scoring `perFrame`.
    func loop(_ frames: Range<Int>, perFrame: Int) -> [DecodedSegment] {
        stride(from: frames.lowerBound, to: frames.upperBound, by: 10).map {
            segment("AH", $0, min($0 + 9, frames.upperBound - 1), perFrame: perFrame)
        }
    }

    let phrases = ["read text", "stop", "stop photo sensor"]

    func judge(_ grammar: [DecodedSegment], _ phones: [DecodedSegment]) -> (phrase: String, confidence: Double)? {
        CommandConfidence.judge(grammar: grammar, phones: phones) { CommandConfidence.find(phrases, in: $0) }
            .map { ($0.phrase, $0.confidence) }
    }

    @Test func aCommandThatFitsAsWellAsAnySoundIsSure() throws {
        // Silence, "read text" fitting as well as the free loop, silence: sure, whatever the silence scores.
        let grammar = [
            segment("<sil>", 0, 29, perFrame: -1), segment("read(2)", 30, 59, perFrame: -12),
            segment("text", 60, 99, perFrame: -12), segment("<sil>", 100, 129, perFrame: -50),
        ]
        let heard = try #require(judge(grammar, loop(0..<130, perFrame: -12)))
        #expect(heard.phrase == "read text" && heard.confidence > 0.95)
    }

    @Test func speechForcedThroughTheGrammarIsRejected() throws {
        // A sentence: request words cover most of it, and the words fit 9 points a frame worse than the loop.
        let grammar = [
            segment("the", 0, 19, perFrame: -21), segment("stop", 20, 49, perFrame: -21),
            segment("for", 50, 79, perFrame: -21), segment("a", 80, 119, perFrame: -21),
        ]
        let heard = try #require(judge(grammar, loop(0..<120, perFrame: -12)))
        #expect(heard.phrase == "stop" && heard.confidence < CommandConfidence.acceptAt)
    }

    @Test func requestWordsAroundACommandCostLittle() throws {
        let command = [
            segment("stop", 30, 59, perFrame: -13), segment("photo", 60, 89, perFrame: -13),
            segment("sensor", 90, 129, perFrame: -13),
        ]
        let alone = try #require(judge(command, loop(0..<200, perFrame: -12)))
        let asked = try #require(
            judge(
                [segment("could", 0, 14, perFrame: -13), segment("you", 15, 29, perFrame: -13)] + command
                    + [segment("please", 130, 159, perFrame: -13)], loop(0..<200, perFrame: -12)))
        #expect(alone.phrase == "stop photo sensor" && asked.phrase == "stop photo sensor", "the longest phrase")
        #expect(asked.confidence < alone.confidence && asked.confidence >= CommandConfidence.acceptAt)
    }

    @Test func nothingHeardOrNoCommandInTheWordsIsNoVerdict() {
        #expect(judge([segment("<sil>", 0, 99, perFrame: -1)], loop(0..<100, perFrame: -1)) == nil)
        #expect(judge([segment("for", 0, 99, perFrame: -1)], loop(0..<100, perFrame: -1)) == nil)
        #expect(judge([], []) == nil)
    }

    @Test func confidenceRisesWithTheScoreAndIsHalfAtTheMiddle() {
        #expect(abs(CommandConfidence.confidence(CommandConfidence.middle) - 0.5) < 1e-9)
        #expect(CommandConfidence.confidence(0) > CommandConfidence.confidence(-3))
        #expect(CommandConfidence.confidence(-40) >= 0 && CommandConfidence.confidence(40) <= 1)
    }

    @Test func pronunciationNumbersAndSilenceMarksAreRead() {
        #expect(DecodedSegment(word: "read(2)", frames: 0...1, acoustic: 0).plainWord == "read")
        #expect(DecodedSegment(word: "read__2", frames: 0...1, acoustic: 0).plainWord == "read")
        for mark in ["<sil>", "[NOISE]", "++BREATH++", "(NULL)", "<s>"] {
            #expect(DecodedSegment(word: mark, frames: 0...1, acoustic: 0).isSilence)
        }
        #expect(!DecodedSegment(word: "stop", frames: 0...1, acoustic: 0).isSilence)
    }
}

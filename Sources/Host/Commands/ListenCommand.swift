import ArgumentParser
import AssistApp
import Audio
import Foundation
import PluginHost
import Voice

/// `assist listen [--mic wav:PATH] [--reference wav:PATH [--echo-path FILE]] [--json] [--no-score]`: listens always,
/// whatever `voice.mode` says, and prints each voice command heard, until Ctrl+C or the end of a WAV input. For
/// admins checking a microphone and for tests.
struct ListenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Print each voice command heard from the microphone (or --mic wav:PATH) until Ctrl+C or its end.")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "One JSON object a line: phrase, start_ms, end_ms, score.")
    var json = false

    @Flag(
        help:
            "Print each phrase heard at any time as the shell hears it, without judging it once more for its score: a score is printed only where the shell judged the phrase too (an utterance said alone). Benchmarks of listening's CPU use it."
    )
    var noScore = false

    @Flag(
        help:
            "As inside a push-to-talk window: each utterance is decoded as one of the phrases (with the words of a list after it), not spotted."
    )
    var window = false

    @Option(
        name: .customLong("phrase"),
        help: "Listen for this phrase instead of the features' phrases of two or more words (repeatable).")
    var phrases: [String] = []

    @Option(
        help: ArgumentHelp(
            "What the speakers played while --mic was recorded, starting when it starts (wav:PATH): Assist's own sound is taken out of the microphone's, as the shell does while it speaks.",
            valueName: "wav:PATH"))
    var reference: String?

    @Option(
        help: ArgumentHelp(
            "With --reference: the canceller starts from the room kept in FILE (what an earlier run learnt), and what this run learns is kept there, as the shell keeps its room between sessions.",
            valueName: "FILE"))
    var echoPath: String?

    func run() throws {
        try Listening.run(
            options: global.host, json: json, window: window, phrases: phrases, reference: reference,
            echoPath: echoPath, scores: !noScore)
    }
}

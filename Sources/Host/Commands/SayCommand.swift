import ArgumentParser
import AssistApp
import Foundation
import Interaction

/// `assist say TEXT`: speaks a sentence through the host's speech path, for admins testing a set-up.
struct SayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Speak TEXT with the host's speech (to --audio-out, or the data folder's WAV file)."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "An espeak-ng voice, such as en-us, ru or cmn (default: the language's).")
    var voice: String?

    @Option(help: "Words per minute, 80 to 450 (default: speech.rate, else 175).")
    var rate: Int?

    @Argument(help: "What to say.")
    var text: [String]

    func validate() throws {
        if let rate, !(80...450).contains(rate) {
            throw ValidationError("--rate must be between 80 and 450 words per minute")
        }
        guard !text.joined().trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("Give some text to say")
        }
    }

    func run() throws {
        let session = try HostSession(
            options: global.host, interactive: false, speaks: true, speechRate: rate, voice: voice)
        defer { session.shutdown(drainSeconds: 60) }
        if session.speech == nil && !global.noSpeech && global.audioOut != "null" {
            throw CLIFailure(message: "Speech is not available: espeak-ng could not start. Run 'assist doctor'.")
        }
        session.announcer.say(text.joined(separator: " "))
    }
}

import ArgumentParser
import AssistApp

/// `assist voice tune DIR`: chooses each phrase's threshold from labelled recordings.
struct VoiceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice", abstract: "Voice commands: tune the phrases' thresholds from recordings.",
        subcommands: [VoiceTuneCommand.self])
}

/// `assist voice tune DIR [--output FILE]`: each phrase's threshold from labelled recordings (`VoiceTuning`).
struct VoiceTuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune", abstract: "Choose each phrase's threshold from folders of labelled WAV files.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "A folder with one subfolder of WAVs per phrase and a negatives/ subfolder.")
    var folder: String

    @Option(help: "Where to write the thresholds (default: <data folder>/voice/thresholds-<lang>.txt).")
    var output: String?

    func run() throws {
        try VoiceTuning.tune(folder: folder, output: output, options: global.host) { print($0) }
    }
}

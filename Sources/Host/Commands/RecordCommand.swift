import ArgumentParser
import AssistApp
import Audio
import Foundation

/// `assist record SECONDS OUT.wav`: records from the microphone (or `--mic wav:PATH`), for admins testing a
/// set-up.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record SECONDS of sound from the microphone (or --mic) into a WAV file.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Sample rate in Hz: 16000 (speech recognition) or 44100 (recordings).")
    var rate: Int = 16_000

    @Option(help: "1 for mono, 2 for stereo.")
    var channels: Int = 1

    @Argument(help: "How long to record, in seconds (0.1 to 3600).")
    var seconds: Double

    @Argument(help: "The WAV file to write.")
    var output: String

    func validate() throws {
        guard [8_000, 16_000, 22_050, 44_100, 48_000].contains(rate) else {
            throw ValidationError("--rate must be 16000 or 44100 (8000, 22050 and 48000 also work)")
        }
        guard (1...2).contains(channels) else { throw ValidationError("--channels must be 1 or 2") }
        guard (0.1...3_600).contains(seconds) else { throw ValidationError("SECONDS must be between 0.1 and 3600") }
    }

    func run() throws {
        let spec = try global.host.microphone()
        let format = AudioFormat(sampleRateHz: rate, channels: channels)
        let url = URL(fileURLWithPath: output)
        do {
            let input = try spec.open(format: format)
            let writer = try WavWriter(url: url, format: format)
            let wanted = format.frames(seconds: seconds)
            var recorded = 0
            while recorded < wanted {
                let chunk = try input.read(frames: min(format.sampleRateHz / 10, wanted - recorded))
                if chunk.isEmpty { break }
                try writer.write(chunk)
                recorded += chunk.count / channels
            }
            try writer.flush()
            let done = Double(recorded) / Double(rate)
            if recorded < wanted {
                print("The input ended after \(String(format: "%.1f", done)) seconds; wrote \(url.path).")
            } else {
                print("Recorded \(String(format: "%.1f", done)) seconds (\(format)) to \(url.path).")
            }
        } catch let error as AudioError {
            throw CLIFailure(message: error.message)
        }
    }
}

import Audio
import Foundation
import HostTesting
import Testing

@Suite("WAV files and format conversion")
struct WavAndConversionTests {
    static func sine(hz: Double, rate: Int, seconds: Double, amplitude: Double = 0.5) -> [Int16] {
        (0..<Int(Double(rate) * seconds)).map {
            Int16(amplitude * 32_767 * sin(2 * Double.pi * hz * Double($0) / Double(rate)))
        }
    }

    @Test func writtenFilesReadBackAndAreValidForSox() throws {
        let folder = try TemporaryDirectory("assist-wav")
        let url = folder.path("tone.wav")
        let writer = try WavWriter(url: url, format: AudioFormat(sampleRateHz: 16_000, channels: 1))
        try writer.write(Self.sine(hz: 440, rate: 16_000, seconds: 0.5))
        try writer.flush()
        let file = try WavFile.read(url)
        #expect(file.format == AudioFormat(sampleRateHz: 16_000, channels: 1) && file.frameCount == 8_000)
        let soxi = try ProcessRunner.run("/usr/bin/soxi", ["-s", url.path])
        #expect(soxi.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "8000")
    }

    @Test(arguments: ["-b 8 -e unsigned", "-b 16 -e signed", "-b 24 -e signed", "-b 32 -e signed", "-b 32 -e float"])
    func otherSampleFormatsDecode(encoding: String) throws {
        let folder = try TemporaryDirectory("assist-wav")
        let url = folder.path("in.wav")
        let arguments =
            ["-n", "-r", "22050", "-c", "2"] + encoding.split(separator: " ").map(String.init)
            + [url.path, "synth", "0.25", "sine", "1000", "vol", "0.5"]
        _ = try ProcessRunner.run("/usr/bin/sox", arguments)
        let sound = SoundAnalysis(try WavFile.read(url))
        #expect(sound.file.format == AudioFormat(sampleRateHz: 22_050, channels: 2))
        #expect(abs(sound.strength(ofHz: 1_000, channel: 1) - 0.25) < 0.02, "a half-scale sine")
    }

    @Test func damagedFilesGiveOneClearError() throws {
        let folder = try TemporaryDirectory("assist-wav")
        let text = try folder.write("notes.wav", "these are not sounds")
        #expect(throws: AudioError.self) { try WavFile.read(text) }
        #expect(throws: AudioError.self) { try WavFile.read(folder.path("missing.wav")) }
        do {
            _ = try WavFile.read(text)
        } catch let error as AudioError {
            #expect(error.message == "The sound file \(text.path) cannot be used: it is not a WAV file.")
        }
        var header = Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVEdata".utf8)
        header.append(contentsOf: [4, 0, 0, 0, 1, 2, 3, 4])
        #expect(throws: AudioError.self) { try WavFile.parse(header, path: "x.wav") }
    }

    @Test func resamplingKeepsTheToneAndRemovesWhatCannotBeRepresented() {
        let source = AudioFormat(sampleRateHz: 44_100, channels: 2)
        let stereo = Self.sine(hz: 1_000, rate: 44_100, seconds: 0.5).flatMap { [$0, $0] }
        let converted = AudioConverter.convert(stereo, from: source, to: .recognition)
        #expect(abs(converted.count - 8_000) <= 1)
        let sound = SoundAnalysis(WavFile(format: .recognition, samples: converted))
        #expect(abs(sound.strength(ofHz: 1_000, channel: 0, fromSeconds: 0.05, seconds: 0.4) - 0.25) < 0.01)
        // 10 kHz is above the 8 kHz limit of 16 kHz audio: it must not fold back in as 6 kHz.
        let high = AudioConverter.convert(
            Self.sine(hz: 10_000, rate: 44_100, seconds: 0.5), from: AudioFormat(sampleRateHz: 44_100, channels: 1),
            to: .recognition)
        let aliased = SoundAnalysis(WavFile(format: .recognition, samples: high))
        #expect(aliased.rms(0, fromSeconds: 0.05, seconds: 0.4) < 0.005, "attenuated by more than 37 dB")
    }

    @Test func aWavFileStandsInForTheMicrophone() throws {
        let folder = try TemporaryDirectory("assist-wav")
        let url = folder.path("mic.wav")
        _ = try ProcessRunner.run(
            "/usr/bin/sox", ["-n", "-r", "44100", "-c", "2", url.path, "synth", "1", "sine", "300"])
        let input = try #require(AudioInputSpec("wav:\(url.path)")).open(format: .recognition)
        var total = 0
        while true {
            let chunk = try input.read(frames: 1_600)
            if chunk.isEmpty { break }
            total += chunk.count
        }
        #expect(abs(total - 16_000) <= 1, "one second at 16 kHz mono")
        #expect(AudioInputSpec("pulse") == nil && AudioInputSpec("alsa:hw:1") == .alsa("hw:1"))
    }

    /// A file standing in for the microphone is read a block at a time, and what it gives is, sample for sample,
    /// the whole file converted at once: 44.1 kHz stereo speech-like sound to 16 kHz mono (a block's edges reach
    /// into the next), 16 kHz as it is, 22,050 Hz 24-bit with an odd chunk before the data.
    @Test(arguments: [
        "-r 44100 -c 2 -b 16", "-r 16000 -c 1 -b 16", "-r 22050 -c 1 -b 24", "-r 48000 -c 2 -b 32 -e float",
    ])
    func aFileReadInBlocksIsTheWholeFileConverted(format: String) throws {
        let folder = try TemporaryDirectory("assist-wav-blocks")
        let url = folder.path("in.wav")
        let made = try ProcessRunner.run(
            "/usr/bin/sox",
            ["-n"] + format.split(separator: " ").map(String.init) + [
                url.path, "synth", "1.3", "pinknoise", "vol", "0.3", "synth", "1.3", "sine", "amod", "300-3000",
            ])
        try #require(made.status == 0, "\(made.standardError)")
        let whole = try WavFile.read(url)
        let expected = AudioConverter.convert(whole.samples, from: whole.format, to: .recognition)
        for frames in [320, 1, 4_096] {
            let input = try WavFileInput(url: url, format: .recognition)
            #expect(input.frameCount == expected.count)
            var streamed: [Int16] = []
            while true {
                let chunk = try input.read(frames: frames)
                if chunk.isEmpty { break }
                streamed += chunk
                if frames == 1, streamed.count > 2_000 { break }
            }
            #expect(streamed == Array(expected.prefix(streamed.count)), "\(format) in blocks of \(frames)")
            if frames != 1 { #expect(streamed.count == expected.count) }
        }
    }
}

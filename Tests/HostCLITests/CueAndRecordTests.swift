import Audio
import Foundation
import HostTesting
import Testing

/// `assist cue` and `assist record`, run as the built binary, checked on the audio they write.
@Suite("assist cue and record")
struct CueAndRecordTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory("assist-cue")
    }

    private func assist(_ arguments: [String], home: URL? = nil) throws -> ProcessResult {
        var environment = ["ASSIST_DATA_DIR": folder.url.path]
        if let home { environment["HOME"] = home.path }
        return try ProcessRunner.run(BuildProducts.assist, arguments, environment: environment)
    }

    @Test func aCuePlaysWithItsPanForTheTimeAsked() throws {
        let wav = folder.path("dot.wav")
        let result = try assist(["cue", "dot", "--pan", "-0.6", "--seconds", "1", "--audio-out", "wav:\(wav.path)"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.lines == ["Playing dot at intensity 0.58, pan -0.6, for 1.0 seconds."])
        let sound = try SoundAnalysis(url: wav)
        #expect(abs(sound.file.durationSeconds - 1) < 0.1)
        #expect(abs(sound.rms(0) / sound.rms(1) - 3.078) < 0.1)
    }

    @Test func unknownCuesAndBadNumbersAreOneLine() throws {
        let unknown = try assist(["cue", "kazoo"])
        #expect(unknown.status == 64)
        #expect(unknown.standardError.hasPrefix("There is no cue called kazoo; choose one of dot, dash"))
        #expect(unknown.standardError.split(separator: "\n").count == 1)
        let far = try assist(["cue", "dot", "--pan", "3"])
        #expect(far.status == 64 && far.standardError.contains("--pan must be between -1 and 1"))
    }

    @Test func recordingFromAFileConvertsToTheRateAsked() throws {
        let source = folder.path("source.wav")
        _ = try ProcessRunner.run(
            "/usr/bin/sox", ["-n", "-r", "48000", "-c", "2", source.path, "synth", "3", "sine", "500"])
        let out = folder.path("take.wav")
        let result = try assist(["record", "2", out.path, "--rate", "44100", "--mic", "wav:\(source.path)"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.lines == ["Recorded 2.0 seconds (44100 Hz, mono) to \(out.path)."])
        let sound = try SoundAnalysis(url: out)
        #expect(sound.file.format == AudioFormat(sampleRateHz: 44_100, channels: 1) && sound.file.frameCount == 88_200)
        #expect(sound.strength(ofHz: 500, channel: 0, fromSeconds: 0.1, seconds: 1) > 0.4)
        let short = try assist(["record", "5", folder.path("short.wav").path, "--mic", "wav:\(source.path)"])
        #expect(short.lines.first?.hasPrefix("The input ended after 3.0 seconds") == true)
    }

    @Test func recordingUsesTheRealAlsaCapturePath() throws {
        // ALSA's file plugin plays a raw file as a capture device, set up in a private ~/.asoundrc.
        let home = folder.path("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let raw = folder.path("mic.raw")
        _ = try ProcessRunner.run(
            "/usr/bin/sox",
            ["-n", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed", raw.path, "synth", "2", "sine", "440"])
        try folder.write(
            "home/.asoundrc",
            "pcm.testmic {\n type file\n slave.pcm \"null\"\n file \"/dev/null\"\n infile \"\(raw.path)\"\n format \"raw\"\n}\n"
        )
        let out = folder.path("alsa.wav")
        let result = try assist(["record", "1", out.path, "--mic", "alsa:testmic"], home: home)
        #expect(result.status == 0, "\(result.standardError)")
        let sound = try SoundAnalysis(url: out)
        #expect(sound.file.frameCount == 16_000)
        #expect(sound.strength(ofHz: 440, channel: 0, fromSeconds: 0.1, seconds: 0.5) > 0.3)
        let missing = try assist(["record", "1", out.path, "--mic", "alsa:nomic"], home: home)
        #expect(missing.status == 1)
        #expect(missing.standardError.hasPrefix("The microphone nomic cannot be opened."))
    }
}

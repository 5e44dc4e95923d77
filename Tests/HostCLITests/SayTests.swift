import Foundation
import HostTesting
import Testing

/// `assist say` through the real speech path, checked on the WAV it writes.
@Suite("assist say", .serialized)
struct SayTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory("assist-say")
    }

    private func say(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(
            BuildProducts.assist, ["say"] + arguments, environment: ["ASSIST_DATA_DIR": folder.url.path])
    }

    private func pcm(_ url: URL) throws -> [Int16] {
        let data = try Data(contentsOf: url)
        #expect(String(decoding: data.prefix(4), as: UTF8.self) == "RIFF")
        return data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    @Test func speechReachesTheWavSinkAndRateChangesItsLength() throws {
        let sentence = ["Hello", "world,", "this", "is", "Assist."]
        let normal = folder.path("normal.wav")
        let fast = folder.path("fast.wav")
        let first = try say(["--audio-out", "wav:\(normal.path)"] + sentence)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.lines == ["Hello world, this is Assist."])
        #expect(try say(["--rate", "400", "--audio-out", "wav:\(fast.path)"] + sentence).status == 0)
        let normalSamples = try pcm(normal)
        let fastSamples = try pcm(fast)
        #expect(normalSamples.count > 2 * 22_050, "over one second of 22.05 kHz stereo")
        #expect((normalSamples.map { abs(Int($0)) }.max() ?? 0) > 1_000, "not silence")
        #expect(Double(fastSamples.count) < Double(normalSamples.count) * 0.7, "400 wpm is clearly shorter than 175")
    }

    @Test func russianUsesTheRussianVoice() throws {
        let wav = folder.path("ru.wav")
        let result = try say(["--lang", "ru", "--audio-out", "wav:\(wav.path)", "Привет,", "мир."])
        #expect(result.status == 0)
        #expect(try pcm(wav).count > 22_050)
    }

    @Test func spanishUsesTheSpanishVoice() throws {
        let wav = folder.path("es.wav")
        let result = try say(["--lang", "es", "--audio-out", "wav:\(wav.path)", "¿Dónde", "está", "el", "niño?"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try pcm(wav).count > 22_050)
    }

    @Test func mistakesAreOneLine() throws {
        let unknownVoice = try say(["--voice", "zzz", "hi"])
        #expect(unknownVoice.status == 1)
        #expect(
            unknownVoice.standardError
                == "There is no espeak-ng voice called zzz. List them with 'espeak-ng --voices'.\n")
        let badTarget = try say(["--audio-out", "mp3:x", "hi"])
        #expect(badTarget.status == 64)
        #expect(badTarget.standardError == "--audio-out takes alsa, alsa:DEVICE, wav:PATH or null, not mp3:x.\n")
        let badRate = try say(["--rate", "9", "hi"])
        #expect(badRate.status == 64)
        #expect(badRate.standardError.split(separator: "\n").count == 1)
    }

    @Test func nullDiscardsSound() throws {
        let result = try say(["--audio-out", "null", "quiet"])
        #expect(result.status == 0)
        #expect(result.lines == ["quiet"])
        #expect(!FileManager.default.fileExists(atPath: folder.path("speech/last-session.wav").path))
    }

    @Test func withNoSoundCardSpeechGoesToTheDataFolderAndSaysSo() throws {
        let result = try say(["fallback"])
        #expect(result.status == 0)
        let file = folder.path("speech/last-session.wav")
        #expect(result.lines == ["No sound card found; sound is written to \(file.path).", "fallback"])
        #expect(try pcm(file).count > 2_205)
    }

    @Test func speechDispatcherIsUsedWhenConfiguredAndEspeakWhenItIsAway() throws {
        let server = try SpeechDispatcherServer(folder: folder)
        let config = try folder.write("config.toml", "[speech]\nbackend = \"speech-dispatcher\"\n")
        let wav = folder.path("espeak.wav")
        let arguments = [
            "say", "--config", config.path, "--audio-out", "wav:\(wav.path)", "--verbose", "through", "speechd",
        ]
        let through = try ProcessRunner.run(
            BuildProducts.assist, arguments,
            environment: ["ASSIST_DATA_DIR": folder.url.path, "SPEECHD_ADDRESS": server.address])
        #expect(through.status == 0, "\(through.standardError)")
        #expect(through.lines == ["through speechd"])
        #expect(try SoundAnalysis(url: wav).file.frameCount == 0, "the words went to Speech Dispatcher, not espeak-ng")
        let away = try ProcessRunner.run(
            BuildProducts.assist, arguments,
            environment: [
                "ASSIST_DATA_DIR": folder.url.path, "SPEECHD_ADDRESS": "unix_socket:/nonexistent",
                "SPEECHD_CMD": "/bin/false",
            ])
        #expect(away.status == 0)
        #expect(away.standardError.contains("cannot be reached; using espeak-ng"))
        #expect(try SoundAnalysis(url: wav).file.frameCount > 10_000, "espeak-ng spoke instead")
        _ = server
    }

    @Test func alsaDevicesAreUsedThroughTheRealPath() throws {
        let raw = folder.path("played.raw")
        let result = try say(["--audio-out", "alsa:file:FILE=\(raw.path),FORMAT=raw", "through", "ALSA"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Data(contentsOf: raw).count > 22_050 * 4 / 2, "half a second of stereo reached ALSA")
        let missing = try say(["--audio-out", "alsa:hw:97", "nothing"])
        #expect(missing.status == 1)
        #expect(
            missing.standardError
                == "The sound device hw:97 cannot be opened. Check 'aplay -l', or choose one with --audio-out.\n")
    }
}

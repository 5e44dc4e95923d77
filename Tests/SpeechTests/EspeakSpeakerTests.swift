import Foundation
import HostTesting
import Speech
import Testing

@Suite("Speech to a WAV file")
struct EspeakSpeakerTests {
    @Test func speechIsWrittenAsRealAudio() throws {
        let folder = try TemporaryDirectory("assist-speech")
        let wav = folder.path("out.wav")
        let speaker = try #require(EspeakSpeaker(wavURL: wav))
        speaker.speak("Hello from Assist.", language: "en", priority: .message)
        speaker.speak("Привет.", language: "ru", priority: .message)
        // Wait for both utterances: the file grows as each is written.
        var samples: [Int16] = []
        for _ in 0..<200 {
            usleep(20_000)
            samples = try Self.samples(wav)
            if samples.count > 22_050 * 2 / 2 { break }
        }
        let header = try Data(contentsOf: wav).prefix(44)
        #expect(String(decoding: header.prefix(4), as: UTF8.self) == "RIFF")
        #expect(samples.count > 11_025, "at least half a second of speech")
        let peak = samples.map { abs(Int($0)) }.max() ?? 0
        #expect(peak > 1_000, "not silence")
    }

    static func samples(_ url: URL) throws -> [Int16] {
        let data = try Data(contentsOf: url)
        guard data.count > 44 else { return [] }
        return data.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }
}

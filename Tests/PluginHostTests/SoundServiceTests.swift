import Audio
import Foundation
import HostTesting
import Logging
import PluginHost
import Speech
import Testing

/// A C plugin drives speech/1, cues/1 and audio-in/1 of a host whose sound goes to a real WAV file.
@Suite("Sound services through the ABI", .serialized)
struct SoundServiceTests {
    let root: TemporaryDirectory
    let wav: URL
    let mixer: AudioMixer
    let host: TestHost

    init() throws {
        root = try TemporaryDirectory("assist-sound-abi")
        let manifest = CPluginBuilder.manifest(
            id: "org.test.sound",
            extra: ["services": ["required": ["assist.speech/1", "assist.cues/1"]], "devices": ["microphone"]])
        try CPluginBuilder(root: root.url).build(folder: "sound", manifest: manifest, source: "sound_plugin.c")
        wav = root.path("out.wav")
        let microphone = root.path("mic.wav")
        _ = try ProcessRunner.run(
            "/usr/bin/sox", ["-n", "-r", "44100", "-c", "2", microphone.path, "synth", "0.5", "sine", "440"])
        mixer = AudioMixer(sink: try WavFileSink(url: wav)) { _, failed in failed }
        let speech = try #require(SpeechService(mixer: mixer, logger: Logger(label: "test")))
        let cues = CuePlayer(mixer: mixer, settings: CuePlayer.Settings(volume: 1))
        host = try TestHost(
            pluginDirectories: [root.url],
            sound: SoundServices(speech: speech, cues: cues, microphone: .wav(microphone)))
    }

    /// Starts the plugin with `scenario` and runs the loop until it finishes.
    func run(_ scenario: String) throws {
        let features = host.features
        let plugin = try #require(features.record(id: "org.test.sound"))
        let ended = EndRecorder()
        features.onFeatureEnded = { record, status in ended.record(record.id, status) }
        host.run(timeoutSeconds: 20, until: { !ended.events.isEmpty }) {
            _ = features.activate(plugin, arguments: [scenario])
        }
        host.settle(0.1)
        host.services.sound.speech?.drain(timeoutSeconds: 10)
        mixer.waitUntilIdle(timeoutSeconds: 2)
    }

    @Test func aPluginSpeaksAndHearsEachWordAndTheEnd() throws {
        try run("speak")
        #expect(host.output.lines.contains("Sound plugin speaking now."), "spoken text is also printed")
        #expect(host.output.lines.contains("Utterance finished after 4 words, id matches: yes."))
        mixer.shutdown()
        #expect(try SoundAnalysis(url: wav).rms(0) > 0.02)
    }

    @Test func aPluginStopsItsOwnSpeechMidSentence() throws {
        try run("cancel")
        #expect(!host.output.lines.contains { $0.hasPrefix("one two") }, "NO_PRINT is honoured")
        #expect(host.output.lines.contains("Utterance cancelled after 2 words, id matches: yes."))
        mixer.shutdown()
        #expect(try SoundAnalysis(url: wav).file.durationSeconds < 1.5, "twelve words were cut short")
    }

    @Test func aPluginPlaysEarconsAndGuidance() throws {
        try run("cues")
        #expect(host.output.lines.contains("Cues done."))
        mixer.shutdown()
        let sound = try SoundAnalysis(url: wav)
        #expect(sound.strength(ofHz: 523, channel: 0, seconds: 0.08) > 0.1, "found earcon")
        // The second dot, at 0.4875 s, after the centred earcon has ended.
        #expect(sound.rms(0, fromSeconds: 0.45, seconds: 0.1) > 2 * sound.rms(1, fromSeconds: 0.45, seconds: 0.1))
    }

    @Test func aPluginRecordsFromTheMicrophoneOnAWorker() throws {
        try run("record")
        #expect(host.output.lines.contains("Read 8000 frames."), "0.5 s at 16 kHz")
    }

    @Test func mistakesGetStatusCodesNotCrashes() throws {
        try run("bad")
        #expect(
            host.output.lines.contains(
                "Empty ASSIST_E_INVALID, priority ASSIST_E_INVALID, earcon ASSIST_E_NOT_FOUND, "
                    + "pattern ASSIST_E_INVALID, stop ASSIST_E_NOT_FOUND, read ASSIST_E_INVALID."))
    }
}

import AssistCore
import Audio
import Foundation
import Logging
import PluginHost
import Speech

/// The host's sound: one sink chosen from `--audio-out`, the mixer, the cue player and speech. Built once per
/// session and passed to whatever needs it.
package final class SoundSystem: Sendable {
    package let mixer: AudioMixer
    package let cues: CuePlayer
    package let clips: ClipPlayer
    /// Nil when speech is off (`--no-speech`) or no engine can start. Every utterance is also told to
    /// `speechWatch` (the low-vision view shows what is heard).
    package let speech: (any SpeechEngine)?
    /// What is heard, as it is heard, for whoever watches (nobody until the view starts).
    package let speechWatch: SpeechWatch
    /// The WAV file that sound goes to because there is no sound card; said once at start.
    package let fallbackInUse: URL?

    /// Opens the sink for `target` and starts the mixer. `onDeviceLost` receives the WAV file that sound goes to
    /// when the sound card goes away mid-session, for the host to say so once.
    package init(
        target: AudioTarget, dataDirectory: URL, settings: SettingsStore, logger: Logger, speaks: Bool,
        wordsPerMinute: Int?, voice: String?, onDeviceLost: @escaping @Sendable (URL) -> Void
    ) throws {
        let fallback = AudioTarget.fallbackFile(dataDirectory: dataDirectory)
        var fallbackInUse: URL?
        let sink: AudioSink
        switch target {
        case .null:
            sink = NullSink()
        case .wav(let url):
            sink = try Self.wavSink(url)
        case .alsa(let device):
            do { sink = try AlsaSink(deviceName: device) } catch let error as AudioError {
                throw CLIFailure(message: error.message)
            }
        case .automatic:
            if let device = try? AlsaSink() {
                sink = device
            } else {
                sink = try Self.wavSink(fallback)
                fallbackInUse = fallback
            }
        }
        self.fallbackInUse = fallbackInUse
        let speechWatch = SpeechWatch()
        self.speechWatch = speechWatch
        mixer = AudioMixer(sink: sink) { error, failed in
            logger.error("sound output failed: \(error.message) (\(error.cause ?? "no detail"))")
            guard let replacement = try? WavFileSink(url: fallback) else { return NullSink() }
            onDeviceLost(fallback)
            return replacement
        }
        cues = CuePlayer(mixer: mixer, settings: Self.cueSettings(settings))
        clips = ClipPlayer(mixer: mixer)
        if speaks {
            let rate = wordsPerMinute ?? Self.int(settings, "speech.rate", default: 175, in: 80...450)
            var dispatcher: SpeechDispatcherService?
            if case .string(let backend) = settings.value("speech.backend"), backend == "speech-dispatcher",
                voice == nil
            {
                dispatcher = SpeechDispatcherService(logger: logger, wordsPerMinute: rate)
                if dispatcher == nil {
                    logger.warning("speech.backend is speech-dispatcher, but it cannot be reached; using espeak-ng")
                }
            }
            if let dispatcher {
                speech = WatchedSpeech(dispatcher, watch: speechWatch)
            } else {
                let espeak = SpeechService(mixer: mixer, logger: logger, wordsPerMinute: rate, voice: voice)
                espeak?.configure(volume: Self.double(settings, "speech.volume", default: 1))
                if case .string(let chosen) = settings.value("speech.voice") { espeak?.configure(voice: chosen) }
                speech = espeak.map { WatchedSpeech($0, watch: speechWatch) }
            }
        } else {
            speech = nil
        }
    }

    /// Applies the user's sound settings as they are now: the shell's settings changed one.
    package func apply(_ settings: SettingsStore) {
        cues.update(Self.cueSettings(settings))
        speech?.configure(
            wordsPerMinute: Self.int(settings, "speech.rate", default: 175, in: 80...450),
            volume: Self.double(settings, "speech.volume", default: 1))
        if case .string(let chosen) = settings.value("speech.voice") { speech?.configure(voice: chosen) }
    }

    /// Lets queued sound play out, then stops the threads.
    package func shutdown(drainSeconds: Double) {
        cues.stop()
        speech?.drain(timeoutSeconds: drainSeconds)
        speech?.shutdown()
        mixer.waitUntilIdle(timeoutSeconds: 2)
        mixer.shutdown()
    }

    private static func wavSink(_ url: URL) throws -> WavFileSink {
        do { return try WavFileSink(url: url) } catch let error as AudioError {
            throw CLIFailure(message: error.message)
        }
    }

    /// `cues.volume` (0…1), `cues.enabled` and `cues.low-pitch` from the settings.
    package static func cueSettings(_ settings: SettingsStore) -> CuePlayer.Settings {
        CuePlayer.Settings(
            volume: double(settings, "cues.volume", default: 0.8),
            enabled: bool(settings, "cues.enabled", default: true),
            lowPitch: bool(settings, "cues.low-pitch", default: false))
    }

    private static func double(_ settings: SettingsStore, _ key: String, default fallback: Double) -> Double {
        settings.value(key)?.number.map { min(1, max(0, $0)) } ?? fallback
    }

    private static func int(_ settings: SettingsStore, _ key: String, default fallback: Int, in range: ClosedRange<Int>)
        -> Int
    {
        settings.value(key)?.integer.map { min(range.upperBound, max(range.lowerBound, Int($0))) } ?? fallback
    }

    private static func bool(_ settings: SettingsStore, _ key: String, default fallback: Bool) -> Bool {
        settings.value(key)?.flag ?? fallback
    }
}

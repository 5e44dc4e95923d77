import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech
import Storage

/// Where a plugin's spoken text is printed (`assist_speech_options.flags`).
package enum SpokenLine: Sendable {
    /// Not at all: the plugin prints it itself (`ASSIST_SPEECH_NO_PRINT`).
    case none
    /// Among the plugin's own lines: a data command's rows when its data goes apart (the default).
    case row
    /// Where the host's own lines go, standard error in a data command (`ASSIST_SPEECH_STATUS`).
    case status
}

/// assist.speech/1: the plugin's own utterances.
package protocol SpeechProviding: Sendable {
    /// Prints (as `printed` says) and speaks `utterance` as the plugin's; its id, or nil when the engine refused
    /// it. With speech off the line is only printed and `onDone` hears `.finished` at once. Any thread.
    func speak(_ utterance: Utterance, printed: SpokenLine, callbacks: SpeechCallbacks) -> UInt64?
    /// Stops one of the plugin's utterances; false when it is not known or not the plugin's. Any thread.
    func stop(_ id: UInt64) -> Bool
    /// Stops all of them. Any thread.
    func cancelAll()
    /// Pauses the plugin's speech; false when there is none (or speech is off). Any thread.
    func pause() -> Bool
    func resume()
    /// True while anything, the plugin's or not, is being spoken. Any thread.
    var isSpeaking: Bool { get }
    /// Prints a line without speaking it. Any thread.
    func print(_ line: String)
    /// Drops the plugin's callbacks as it stops; speech left paused is dropped, the rest may finish.
    func release()
}

/// assist.cues/1.
package protocol CueProviding: Sendable {
    func play(_ earcon: Earcon, gain: Double, pan: Double)
    func guidance(_ pattern: CuePattern, intensity: Double, pan: Double, pitchHz: Double?)
    func stop()
    /// False when the user turned cues off.
    var enabled: Bool { get }
}

/// assist.audio-in/1.
package protocol MicrophoneProviding: Sendable {
    /// Opens the microphone (or the file standing for it) in `format`; throws `PermissionDenied` when the
    /// plugin was not given the microphone, an `AudioError` when it cannot be opened.
    func open(format: AudioFormat) throws -> AudioInput
    /// Counts the host's open recordings.
    var use: MicrophoneUse { get }
}

struct LocalSpeech: SpeechProviding {
    let engine: (any SpeechEngine)?
    /// Identifies the plugin to the engine.
    let owner: Int
    let announcer: Announcer
    /// Ids for utterances that are only printed (speech off), apart from the engine's.
    let ids: @Sendable () -> Int

    func speak(_ utterance: Utterance, printed: SpokenLine, callbacks: SpeechCallbacks) -> UInt64? {
        announcer.remember(utterance.text)
        guard let engine else {
            // Speech is off: the printed line is all there is, and the utterance is over at once.
            switch printed {
            case .none: break
            case .row: announcer.print(utterance.text)
            case .status: announcer.show(utterance.text)
            }
            let id = UInt64(ids()) | 1 << 63
            callbacks.onDone?(id, .finished)
            return id
        }
        var owned = utterance
        owned.owner = owner
        // Printed as it is heard (the screen at most one line ahead), among the host's own lines.
        guard printed != .none else { return engine.speak(owned, callbacks: callbacks) }
        return announcer.speak(
            owned, printing: utterance.text, status: printed == .status, with: engine, callbacks: callbacks)
    }

    func stop(_ id: UInt64) -> Bool { engine?.stop(id: id, owner: owner) ?? false }
    func cancelAll() { _ = engine?.cancel(owner: owner) }
    func pause() -> Bool { engine?.pause(owner: owner) ?? false }
    func resume() { engine?.resume(owner: owner) }
    var isSpeaking: Bool { engine?.isSpeaking ?? false }
    func print(_ line: String) { announcer.print(line) }

    func release() {
        guard let engine else { return }
        engine.detach(owner: owner)
        // Speech left paused would start again later, out of context: drop it. The rest may finish.
        if engine.isPaused(owner: owner) { _ = engine.cancel(owner: owner) }
        engine.resume(owner: owner)
    }
}

struct LocalCues: CueProviding {
    let player: CuePlayer?

    func play(_ earcon: Earcon, gain: Double, pan: Double) { player?.play(earcon, gain: gain, pan: pan) }
    func guidance(_ pattern: CuePattern, intensity: Double, pan: Double, pitchHz: Double?) {
        player?.guidance(pattern, intensity: intensity, pan: pan, pitchHz: pitchHz)
    }
    func stop() { player?.stop() }
    var enabled: Bool { player?.currentSettings.enabled ?? false }
}

struct LocalMicrophone: MicrophoneProviding {
    let spec: AudioInputSpec
    let use: MicrophoneUse
    let permissions: PermissionGate

    func open(format: AudioFormat) throws -> AudioInput {
        try permissions.require(.microphone)
        return try spec.open(format: format)
    }
}

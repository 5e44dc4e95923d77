import Audio
import Foundation
import Interaction
import PluginABI
import PluginAPI
import Speech

extension ServiceTables {
    // MARK: assist.speech/1

    nonisolated(unsafe) static let speechTable: UnsafeMutablePointer<assist_speech_service> = {
        var table = assist_speech_service()
        table.struct_size = UInt32(MemoryLayout<assist_speech_service>.size)
        table.speak = { host, text, options, onDone, onWord, user, outID in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            guard let text else {
                context.misbehaving("speech.speak with NULL text")
                return ASSIST_E_INVALID
            }
            guard let request = SpeechRequest(text: text, options: options, context: context) else {
                return ASSIST_E_INVALID
            }
            return context.speak(request, onDone: onDone, onWord: onWord, user: user, outID: outID)
        }
        table.stop = { host, utterance in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            context.stoppedSpeech.stop(utterance)
            guard context.services.speech.stop(utterance) else {
                context.stoppedSpeech.ended(utterance)  // not this plugin's, or over already
                return ASSIST_E_NOT_FOUND
            }
            return ASSIST_OK
        }
        table.cancel_mine = { host in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            context.stoppedSpeech.stopAll()
            context.services.speech.cancelAll()
            return ASSIST_OK
        }
        table.pause = { host in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            return context.services.speech.pause() ? ASSIST_OK : ASSIST_E_NOT_FOUND
        }
        table.resume = { host in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            context.services.speech.resume()
            return ASSIST_OK
        }
        table.is_speaking = { host in PluginContext.from(host)?.services.speech.isSpeaking ?? false }
        table.print = { host, text in
            guard let context = PluginContext.from(host), let text else { return ASSIST_E_INVALID }
            let string = String(repairingUTF8CString: text)
            for line in string.split(separator: "\n", omittingEmptySubsequences: false) {
                context.services.speech.print(String(line))
            }
            return ASSIST_OK
        }
        return allocate(table)
    }()

    // MARK: assist.cues/1

    nonisolated(unsafe) static let cuesTable: UnsafeMutablePointer<assist_cues_service> = {
        var table = assist_cues_service()
        table.struct_size = UInt32(MemoryLayout<assist_cues_service>.size)
        table.play = { host, name, gain, pan in
            guard let context = PluginContext.from(host), let name else { return ASSIST_E_INVALID }
            guard let earcon = Earcon(rawValue: String(cString: name)) else {
                context.misbehaving("cues.play: there is no earcon called \(String(cString: name))")
                return ASSIST_E_NOT_FOUND
            }
            guard gain.isFinite, pan.isFinite else { return ASSIST_E_INVALID }
            context.services.cues.play(earcon, gain: gain, pan: pan)
            return ASSIST_OK
        }
        table.guidance = { host, pattern, intensity, pan, pitch in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            let patterns: [CuePattern] = [.dot, .dash, .dotDash, .dashDot, .continuous, .tone]
            guard patterns.indices.contains(Int(pattern)), intensity.isFinite, pan.isFinite, pitch.isFinite,
                pitch >= 0, pitch <= 8_000
            else {
                context.misbehaving("cues.guidance: pattern \(pattern) or a number is out of range")
                return ASSIST_E_INVALID
            }
            context.holdings.hold("guidance") { [weak context] in context?.services.cues.stop() }
            context.services.cues.guidance(
                patterns[Int(pattern)], intensity: intensity, pan: pan, pitchHz: pitch > 0 ? pitch : nil)
            return ASSIST_OK
        }
        table.stop = { host in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            context.services.cues.stop()
            return ASSIST_OK
        }
        table.enabled = { host in PluginContext.from(host)?.services.cues.enabled ?? false }
        return allocate(table)
    }()
}

/// One speak() call's text and options, read from C.
struct SpeechRequest {
    var utterance: Utterance
    var printed: SpokenLine

    /// Nil (after logging why) for blank text or a bad option.
    init?(text: UnsafePointer<CChar>, options: UnsafePointer<assist_speech_options>?, context: PluginContext) {
        let string = String(repairingUTF8CString: text)
        guard string.contains(where: { !$0.isWhitespace }) else {
            context.logger.debug("speech.speak: the text is empty")
            return nil
        }
        // The owner is the speech service's to set: it is bound to the plugin.
        var utterance = Utterance(string, language: context.services.session.language, owner: 0)
        var printed = SpokenLine.row
        if let pointer = options {
            guard let options = assist_speech_options.read(pointer) else {
                context.misbehaving("speech.speak: the options' struct_size is below ABI 1.0's")
                return nil
            }
            func has<Field>(_ field: KeyPath<assist_speech_options, Field>) -> Bool {
                assist_speech_options.has(field, in: options.struct_size)
            }
            if has(\.priority) {
                guard let priority = SpeechPriority(rawValue: options.priority) else {
                    context.misbehaving("speech.speak: priority \(options.priority) is not an ASSIST_PRIORITY_*")
                    return nil
                }
                utterance.priority = priority
            }
            if has(\.language), let language = options.language { utterance.language = String(cString: language) }
            if has(\.voice), let voice = options.voice { utterance.voice = String(cString: voice) }
            if has(\.words_per_minute), options.words_per_minute != 0 {
                utterance.wordsPerMinute = min(450, max(80, Int(options.words_per_minute)))
            }
            if has(\.flags) {
                printed =
                    options.flags & ASSIST_SPEECH_NO_PRINT != 0
                    ? .none : options.flags & ASSIST_SPEECH_STATUS != 0 ? .status : .row
            }
        }
        self.utterance = utterance
        self.printed = printed
    }
}

extension String {
    /// A plugin's C string as UTF-8, with invalid bytes replaced (U+FFFD) rather than refused.
    init(repairingUTF8CString text: UnsafePointer<CChar>) {
        self.init(
            decoding: UnsafeBufferPointer(start: text, count: strlen(text)).lazy.map(UInt8.init(bitPattern:)),
            as: UTF8.self)
    }
}

import Audio
import Foundation
import PluginAPI
import Speech

/// Whether this host's plugins record from the microphone: voice listening steps aside meanwhile (a survey's
/// takes), and stop asks first. One per host, never process-wide: two hosts in one process (tests) do not
/// see each other's recordings.
package final class MicrophoneUse: @unchecked Sendable {  // because: `open` is used under `lock` only
    private let lock = NSLock()
    private var open = 0

    package init() {}

    package var inUse: Bool { lock.withLock { open > 0 } }
    func began() { lock.withLock { open += 1 } }
    func ended() { lock.withLock { open = max(0, open - 1) } }
}

/// A plugin's open recording stream: the `assist_audio_stream *` handed out points at one of these.
final class AudioStream: @unchecked Sendable {  // because: `input` is used under `lock` only
    let input: AudioInput
    let lock = NSLock()

    init(input: AudioInput) {
        self.input = input
    }
}

/// A plugin's utterances, and those of them it stopped: a word event of a stopped utterance already on its way to
/// the main loop is dropped there, so the plugin hears of no word after it stopped the speech ("stops at once"; a
/// plugin that stopped at its second word was told of a third on a busy machine). Its end is still told.
final class StoppedSpeech: @unchecked Sendable {  // because: `live` and `stopped` are used under `lock` only
    private let lock = NSLock()
    private var live: Set<UInt64> = []
    private var stopped: Set<UInt64> = []

    func began(_ id: UInt64) { lock.withLock { _ = live.insert(id) } }
    func stop(_ id: UInt64) { lock.withLock { _ = stopped.insert(id) } }
    func stopAll() { lock.withLock { stopped.formUnion(live) } }
    func ended(_ id: UInt64) {
        lock.withLock {
            live.remove(id)
            stopped.remove(id)
        }
    }
    func wasStopped(_ id: UInt64) -> Bool { lock.withLock { stopped.contains(id) } }
}

extension PluginContext {
    /// Speaks (and prints) `request` for this plugin; callbacks run on the main loop while the plugin lives, word
    /// events only until the plugin stops the utterance (`StoppedSpeech`).
    func speak(
        _ request: SpeechRequest, onDone: assist_speech_done_cb?, onWord: assist_speech_word_cb?,
        user: UnsafeMutableRawPointer?, outID: UnsafeMutablePointer<UInt64>?
    ) -> assist_status {
        let loop = services.loop
        let target = UnsafeTransfer(value: (onDone, onWord, user))
        let stopped = stoppedSpeech
        var callbacks = SpeechCallbacks()
        callbacks.onDone = { [self] id, outcome in
            loop.post {
                stopped.ended(id)
                guard self.instance != nil, let done = target.value.0 else { return }
                done(target.value.2, id, outcome.rawValue)
            }
        }
        if onWord != nil {
            callbacks.onWord = { [self] id, word in
                loop.post {
                    guard self.instance != nil, !stopped.wasStopped(id), let callback = target.value.1 else { return }
                    callback(
                        target.value.2, id, UInt32(clamping: word.characterOffset), UInt32(clamping: word.byteOffset),
                        UInt32(clamping: word.byteLength))
                }
            }
        }
        guard let id = services.speech.speak(request.utterance, printed: request.printed, callbacks: callbacks) else {
            return ASSIST_E_INVALID
        }
        stopped.began(id)
        outID?.pointee = id
        return ASSIST_OK
    }

    /// Closes the plugin's recording stream, if any.
    func closeAudioStream() {
        guard let stream = audioStream else { return }
        stream.lock.withLock { audioStream = nil }
        services.microphone.use.ended()
    }
}

extension ServiceTables {
    // MARK: assist.audio-in/1

    nonisolated(unsafe) static let audioInTable: UnsafeMutablePointer<assist_audio_in_service> = {
        var table = assist_audio_in_service()
        table.struct_size = UInt32(MemoryLayout<assist_audio_in_service>.size)
        table.open = { host, rate, channels, out, err in
            guard let context = PluginContext.from(host), context.onMain("audio-in.open"), let out else {
                return ASSIST_E_INVALID
            }
            guard (8_000...48_000).contains(rate), (1...2).contains(channels) else {
                context.misbehaving("audio-in.open: \(rate) Hz with \(channels) channels is not offered")
                return ASSIST_E_UNSUPPORTED
            }
            guard context.audioStream == nil else { return ASSIST_E_BUSY }
            do {
                let format = AudioFormat(sampleRateHz: Int(rate), channels: Int(channels))
                let stream = AudioStream(input: try context.services.microphone.open(format: format))
                context.audioStream = stream
                context.services.microphone.use.began()
                context.holdings.hold("microphone") { [weak context] in context?.closeAudioStream() }
                out.pointee = OpaquePointer(Unmanaged.passUnretained(stream).toOpaque())
                return ASSIST_OK
            } catch let error as PermissionDenied {
                return denied(error, err)
            } catch {
                let message = (error as? AudioError)?.message ?? "The microphone cannot be opened."
                err?.pointee = strdup(message)
                context.logger.warning("audio-in.open: \(message)")
                return ASSIST_E_IO
            }
        }
        table.read = { host, pointer, buffer, frames, got in
            guard let context = PluginContext.from(host), let pointer, let buffer else { return ASSIST_E_INVALID }
            guard !context.services.loop.isOnMain else {
                context.misbehaving("audio-in.read blocks and must not be called on the main loop")
                return ASSIST_E_INVALID
            }
            guard let stream = context.audioStream,
                OpaquePointer(Unmanaged.passUnretained(stream).toOpaque()) == pointer
            else { return ASSIST_E_NOT_FOUND }
            return stream.lock.withLock {
                do {
                    let samples = try stream.input.read(frames: Int(frames))
                    samples.withUnsafeBufferPointer { source in
                        if let base = source.baseAddress { buffer.update(from: base, count: source.count) }
                    }
                    got?.pointee = UInt32(samples.count / stream.input.format.channels)
                    return ASSIST_OK
                } catch {
                    context.logger.warning("audio-in.read: \((error as? AudioError)?.message ?? "\(error)")")
                    got?.pointee = 0
                    return ASSIST_E_IO
                }
            }
        }
        table.close = { host, pointer in
            guard let context = PluginContext.from(host), context.onMain("audio-in.close"), let pointer,
                let stream = context.audioStream, OpaquePointer(Unmanaged.passUnretained(stream).toOpaque()) == pointer
            else { return }
            context.holdings.drop("microphone")
            context.closeAudioStream()
        }
        return allocate(table)
    }()
}

internal import CEspeakNG
import Foundation

/// The one espeak-ng handle of the process (espeak-ng is process-global). Synthesises synchronously, handing
/// out sound in chunks as it is made, with the words that start in each chunk. Used only on the speech thread.
final class EspeakEngine {
    /// A word that starts at `sample` (from the start of this synthesis), at 0-based `character` in the text.
    struct Mark {
        var sample: Int
        var character: Int
        var length: Int
    }

    /// Receives each chunk and its word marks; returns false to stop synthesis at once.
    typealias ChunkHandler = (UnsafeBufferPointer<Int16>, [Mark]) -> Bool

    /// The engine's sample rate in Hz, from `espeak_Initialize`.
    let sampleRateHz: Int

    /// espeak-ng is process-global: it is initialised once, and one synthesis runs at a time in the process
    /// (tests make several services). The synth callback is set once, here, too.
    private static let processLock = NSLock()
    nonisolated(unsafe) private static var initialisedRate: Int32?

    /// Wraps `assist_espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS)` with 20 ms chunks and word events; nil when
    /// espeak-ng's data is missing.
    init?() {
        Self.processLock.lock()
        defer { Self.processLock.unlock() }
        let rate = Self.initialisedRate ?? assist_espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 20, nil, 0)
        guard rate > 0 else { return nil }
        Self.initialisedRate = rate
        sampleRateHz = Int(rate)
        assist_espeak_SetSynthCallback { wav, count, events in
            guard let handler = EspeakEngine.handler else { return 1 }
            var marks: [Mark] = []
            var event = events
            while let current = event, current.pointee.type != espeakEVENT_LIST_TERMINATED {
                if current.pointee.type == espeakEVENT_WORD {
                    marks.append(
                        Mark(
                            sample: Int(current.pointee.sample), character: Int(current.pointee.text_position) - 1,
                            length: Int(current.pointee.length)))
                }
                event = current + 1
            }
            let chunk = UnsafeBufferPointer(start: wav, count: wav == nil ? 0 : Int(max(0, count)))
            return handler(chunk, marks) ? 0 : 1
        }
    }

    /// The handler of the synthesis in progress; touched only on the speech thread.
    nonisolated(unsafe) private static var handler: ChunkHandler?

    /// The voices asked about, and whether espeak-ng has them; under `processLock`.
    nonisolated(unsafe) private static var knownVoices: [String: Bool] = [:]

    /// True when espeak-ng has `voice` by its name, identifier or language (`espeak_ListVoices`, once per name);
    /// where the list cannot be read, when `espeak_SetVoiceByName` takes it (which also takes unknown names).
    func hasVoice(_ voice: String) -> Bool {
        Self.processLock.withLock {
            if let known = Self.knownVoices[voice] { return known }
            let listed = assist_espeak_has_voice(voice)
            let known = listed == -1 ? assist_espeak_SetVoiceByName(voice) == EE_OK : listed == 1
            Self.knownVoices[voice] = known
            return known
        }
    }

    /// Speaks `text` with `voice` at `wordsPerMinute`, calling `handler` with each chunk as it is made. Returns
    /// when synthesis ends or the handler stops it. Wraps `espeak_SetVoiceByName`,
    /// `assist_espeak_SetParameter(espeakRATE)`, `espeak_Synth` and `espeak_Synchronize`.
    func synthesise(_ text: String, voice: String, wordsPerMinute: Int, handler: @escaping ChunkHandler) {
        Self.processLock.lock()
        defer { Self.processLock.unlock() }
        _ = assist_espeak_SetVoiceByName(voice)
        _ = assist_espeak_SetParameter(espeakRATE, Int32(min(max(wordsPerMinute, 80), 450)), 0)
        EspeakEngine.handler = handler
        defer { EspeakEngine.handler = nil }
        let bytes = Array(text.utf8CString)
        _ = bytes.withUnsafeBufferPointer { buffer in
            assist_espeak_Synth(
                buffer.baseAddress, buffer.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
        }
        _ = assist_espeak_Synchronize()
    }
}

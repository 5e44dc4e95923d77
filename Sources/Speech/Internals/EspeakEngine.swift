internal import CEspeakNG
import Foundation

/// The one espeak-ng handle of the process (espeak-ng is process-global). Synthesises synchronously into
/// 16-bit mono samples. Used only on the speech thread.
final class EspeakEngine {
    /// The engine's sample rate in Hz, from `espeak_Initialize`.
    let sampleRateHz: Int

    /// Wraps `espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS)`; nil when espeak-ng data is missing.
    init?() {
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 200, nil, 0)
        guard rate > 0 else { return nil }
        sampleRateHz = Int(rate)
        espeak_SetSynthCallback { wav, count, _ in
            guard let wav, count > 0 else { return 0 }
            EspeakEngine.collected.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count)))
            return 0
        }
    }

    /// Where the synth callback puts samples; touched only on the speech thread during `synthesise`.
    nonisolated(unsafe) private static var collected: [Int16] = []

    /// True when espeak-ng knows `voice`. Wraps `espeak_SetVoiceByName`.
    func hasVoice(_ voice: String) -> Bool {
        espeak_SetVoiceByName(voice) == EE_OK
    }

    /// Speaks `text` with `voice` ("en-us", "ru", "cmn") at `wordsPerMinute`; returns the samples.
    /// Wraps `espeak_SetVoiceByName`, `espeak_SetParameter(espeakRATE)` and `espeak_Synth`.
    func synthesise(_ text: String, voice: String, wordsPerMinute: Int) -> [Int16] {
        EspeakEngine.collected.removeAll(keepingCapacity: true)
        _ = espeak_SetVoiceByName(voice)
        _ = espeak_SetParameter(espeakRATE, Int32(min(max(wordsPerMinute, 80), 450)), 0)
        let bytes = Array(text.utf8CString)
        _ = bytes.withUnsafeBufferPointer { buffer in
            espeak_Synth(buffer.baseAddress, buffer.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
        }
        _ = espeak_Synchronize()
        return EspeakEngine.collected
    }
}

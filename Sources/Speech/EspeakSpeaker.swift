import Foundation
import Interaction

/// Speech with espeak-ng on a thread of its own, written to a WAV file (the sound-card path and the full
/// priority queue come with the audio service). Important messages drop what is queued; notifications and
/// progress are dropped while anything else waits.
// because: `queue` is guarded by `condition`; the engine lives on the speech thread
package final class EspeakSpeaker: Speaker, @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [(String, String, SpeechPriority)] = []
    private var generation = 0
    private var busy = false
    private let wordsPerMinute: Int
    private let fixedVoice: String?

    /// Starts the speech thread writing to `wavURL` at `wordsPerMinute` (80…450); `voice` overrides the
    /// language's voice. Nil when espeak-ng cannot start or does not know `voice`.
    package init?(wavURL: URL, wordsPerMinute: Int = 175, voice: String? = nil) {
        self.wordsPerMinute = wordsPerMinute
        self.fixedVoice = voice
        let ready = NSCondition()
        nonisolated(unsafe) var started: Bool?
        let thread = Thread { [self] in
            let engine = EspeakEngine().flatMap { engine in voice.map(engine.hasVoice) == false ? nil : engine }
            let sink = engine.flatMap { try? WavFileSink(url: wavURL, sampleRateHz: $0.sampleRateHz) }
            ready.lock()
            started = engine != nil && sink != nil
            ready.signal()
            ready.unlock()
            guard let engine, let sink else { return }
            run(engine: engine, sink: sink)
        }
        thread.name = "assist-speech"
        thread.start()
        ready.lock()
        while started == nil { ready.wait() }
        ready.unlock()
        guard started == true else { return nil }
    }

    package func speak(_ text: String, language: String, priority: SpeechPriority) {
        condition.lock()
        defer { condition.unlock() }
        switch priority {
        case .important:
            queue.removeAll { $0.2 != .important }
        case .notification, .progress:
            if !queue.isEmpty { return }
        default:
            break
        }
        queue.append((text, fixedVoice ?? Self.voice(for: language), priority))
        condition.broadcast()
    }

    package func stopAll() {
        condition.lock()
        queue.removeAll()
        generation += 1
        condition.unlock()
    }

    package func drain(timeoutSeconds: Double) {
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        condition.lock()
        while (!queue.isEmpty || busy) && condition.wait(until: deadline) {}
        condition.unlock()
    }

    /// The espeak-ng voice for a language code.
    static func voice(for language: String) -> String {
        switch language {
        case "ru": return "ru"
        case "zh": return "cmn"
        default: return "en-us"
        }
    }

    private func run(engine: EspeakEngine, sink: WavFileSink) {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let (text, voice, _) = queue.removeFirst()
            let started = generation
            busy = true
            condition.unlock()
            let samples = engine.synthesise(text, voice: voice, wordsPerMinute: wordsPerMinute)
            condition.lock()
            if generation == started { try? sink.write(samples) }
            busy = false
            condition.broadcast()
            condition.unlock()
        }
    }
}

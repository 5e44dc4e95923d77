import Audio

/// Speech as the mixer sees it: plays the synthesised samples of the utterance speaking, reports words as
/// they start to sound and the utterance's end, then moves on to the next. Mixer thread.
final class SpeechSource: MixerSource, @unchecked Sendable {  // because: all state is the service's, under its lock
    private let service: SpeechService

    init(service: SpeechService) {
        self.service = service
    }

    func render(into buffer: UnsafeMutableBufferPointer<Float>, frames: Int, at position: Int64, ducked: Bool) -> Bool {
        var words: [(UInt64, SpeechWord, @Sendable (UInt64, SpeechWord) -> Void)] = []
        var ended: [(SpeechQueue.Entry, SpeechOutcome)] = []
        let condition = service.condition
        condition.lock()
        service.startNextIfIdle()
        guard let current = service.playing, current.readIndex < current.samples.count || current.isFinished else {
            condition.unlock()
            return false
        }
        let count = min(frames, current.samples.count - current.readIndex)
        let scale = Float(service.volume) / 32_768
        for index in 0..<count {
            let sample = Float(current.samples[current.readIndex + index]) * scale
            buffer[2 * index] += sample
            buffer[2 * index + 1] += sample
        }
        current.readIndex += count
        current.heard += count
        while let mark = current.marks.first, mark.sample < current.heard {
            current.marks.removeFirst()
            let word = current.word(for: mark)
            current.currentWordCharacter = word.characterOffset
            if let onWord = current.entry.callbacks.onWord, !current.detached {
                words.append((current.entry.id, word, onWord))
            }
        }
        current.compact()
        if current.isFinished {
            service.playing = nil
            if !current.detached { ended.append((current.entry, .finished)) }
            service.startNextIfIdle()
        }
        condition.broadcast()
        condition.unlock()
        for (id, word, onWord) in words { onWord(id, word) }
        service.report(ended)
        return count > 0 || service.isSpeaking
    }
}

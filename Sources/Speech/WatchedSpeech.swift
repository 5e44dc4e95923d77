import Foundation

/// What a watcher of speech is told (the low-vision view, which shows what is heard): an utterance queued, each
/// word as it starts to sound, and its end. Offsets count Unicode scalars of `text`, as a page splits it.
package enum SpeechSighting: Sendable, Equatable {
    case queued(id: UInt64, text: String, owner: Int, echo: Bool)
    case word(id: UInt64, start: Int, length: Int)
    case ended(id: UInt64, finished: Bool)
}

/// Where what is seen goes: nobody until a watcher is set (the view starts), then one closure, on the thread
/// that saw it (the mixer's for a spoken word, the printing one's for a printed line). Any thread.
package final class Watch<Sighting: Sendable>: @unchecked Sendable {  // because: `watcher` is used under `lock`
    private let lock = NSLock()
    private var watcher: (@Sendable (Sighting) -> Void)?

    package init() {}

    /// Sends everything seen from now on to `watcher` (nil: to nobody).
    package func watch(_ watcher: (@Sendable (Sighting) -> Void)?) {
        lock.withLock { self.watcher = watcher }
    }

    package func post(_ sighting: Sighting) {
        lock.withLock { watcher }?(sighting)
    }

    package var isWatched: Bool { lock.withLock { watcher != nil } }
}

/// What is heard, as it is heard.
package typealias SpeechWatch = Watch<SpeechSighting>

/// A speech engine whose utterances are also told to a `SpeechWatch`: every caller (the host's announcer, each
/// plugin) speaks through it, so whatever engine speaks, what is heard can be shown as it is heard.
package final class WatchedSpeech: SpeechEngine {
    package let inner: any SpeechEngine
    private let watch: SpeechWatch

    package init(_ inner: any SpeechEngine, watch: SpeechWatch) {
        self.inner = inner
        self.watch = watch
    }

    package func speak(_ utterance: Utterance, callbacks: SpeechCallbacks) -> UInt64? {
        guard watch.isWatched else { return inner.speak(utterance, callbacks: callbacks) }
        let scalars = Array(utterance.text.unicodeScalars)
        // The id is known only once queued, and the mixer may sound the first word (or a replaced hint may end)
        // before `speak` returns: what comes first waits at the gate, so the watcher is always told the queueing
        // first, then the words in order, then the end.
        let gate = SightingGate(watch)
        var watched = callbacks
        watched.onWord = { id, word in
            gate.post(.word(id: id, start: word.characterOffset, length: Self.scalarCount(of: word, in: scalars)))
            callbacks.onWord?(id, word)
        }
        watched.onDone = { id, outcome in
            gate.post(.ended(id: id, finished: outcome == .finished))
            callbacks.onDone?(id, outcome)
        }
        let id = inner.speak(utterance, callbacks: watched)
        if let id {
            gate.open(
                with: .queued(id: id, text: utterance.text, owner: utterance.owner, echo: utterance.group == .echo))
        }
        return id
    }

    /// How many scalars of `scalars`, from the word's start, its UTF-8 length spans.
    package static func scalarCount(of word: SpeechWord, in scalars: [Unicode.Scalar]) -> Int {
        var bytes = 0
        var count = 0
        var index = word.characterOffset
        while index < scalars.count, bytes < word.byteLength {
            bytes += UTF8.width(scalars[index])
            count += 1
            index += 1
        }
        return count
    }

    package func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?) {
        _ = speak(Utterance(text, language: language, priority: priority, group: group), callbacks: SpeechCallbacks())
    }

    package func cancel(group: SpeechGroup) { inner.cancel(group: group) }
    package func stopAll() { inner.stopAll() }
    package func drain(timeoutSeconds: Double) { inner.drain(timeoutSeconds: timeoutSeconds) }
    package func stop(id: UInt64, owner: Int) -> Bool { inner.stop(id: id, owner: owner) }
    package func cancel(owner: Int) -> Int { inner.cancel(owner: owner) }
    package func pause(owner: Int) -> Bool { inner.pause(owner: owner) }
    package func resume(owner: Int) { inner.resume(owner: owner) }
    package func isPaused(owner: Int) -> Bool { inner.isPaused(owner: owner) }
    package func holdForListening() { inner.holdForListening() }
    package func endListeningHold() { inner.endListeningHold() }
    package var isSpeaking: Bool { inner.isSpeaking }
    package func detach(owner: Int) { inner.detach(owner: owner) }
    package func shutdown() { inner.shutdown() }
    package func configure(wordsPerMinute: Int?, volume: Double?) {
        inner.configure(wordsPerMinute: wordsPerMinute, volume: volume)
    }
    package func configure(voice: String) { inner.configure(voice: voice) }
}

/// One utterance's sightings, held until its queueing is told (`open`), then passed on as they come. Any thread.
private final class SightingGate: @unchecked Sendable {  // because: `held` and `isOpen` are used under `lock`
    private let lock = NSLock()
    private let watch: SpeechWatch
    private var held: [SpeechSighting] = []
    private var isOpen = false

    init(_ watch: SpeechWatch) { self.watch = watch }

    func post(_ sighting: SpeechSighting) {
        lock.lock()
        defer { lock.unlock() }
        // Posted under the lock, so that a word never overtakes the queueing `open` is telling.
        if isOpen { watch.post(sighting) } else { held.append(sighting) }
    }

    func open(with first: SpeechSighting) {
        lock.lock()
        defer { lock.unlock() }
        watch.post(first)
        held.forEach(watch.post)
        held = []
        isOpen = true
    }
}

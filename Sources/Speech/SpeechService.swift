import Audio
import Foundation
import Logging

/// The host's speech: espeak-ng on a thread of its own, synthesising a little ahead of what the mixer plays,
/// under Speech Dispatcher's priority rules (`SpeechQueue`). Stop and cancel act at once; pause stops at once
/// and resume starts again at the word that was being heard; each utterance ends with "finished" or
/// "cancelled", and word-start callbacks come as each word begins to sound.
// because: every mutable member is guarded by `condition`; the engine is used only on the speech thread
package final class SpeechService: Speaker, @unchecked Sendable {
    /// The most leading silence dropped from an utterance, in samples (200 ms at espeak-ng's 22 050 Hz).
    static let leadingTrimLimit = 4_410
    /// How far synthesis may run ahead of playback, in samples (2 s), so a 100 kB text never fills memory.
    static let aheadSamples = 44_100

    let condition = NSCondition()
    var queue = SpeechQueue()
    var playing: Playback?
    var pausedOwners: Set<Int> = []
    /// While voice listens for a command (`holdForListening`): the first id not held. Utterances queued before
    /// it wait, and so does every plugin's speech; the host's own from then on (the answer) is spoken.
    var listeningFrom: UInt64?
    private var nextID: UInt64 = 1
    private var running = true
    weak var mixer: AudioMixer?
    let logger: Logger
    let fixedVoice: String?
    /// The rate used when an utterance does not set one, in words per minute.
    var defaultWordsPerMinute: Int
    /// Speech loudness, 0…1, separate from cues.
    var volume = 1.0
    /// espeak-ng's voice variant ("f3") added to each language's voice, the user's `speech.voice`; nil for
    /// the language's own.
    var variant: String?

    /// Starts the speech thread and joins `mixer`. `voice` overrides every language's voice. Nil when
    /// espeak-ng cannot start or does not know `voice`.
    package init?(mixer: AudioMixer, logger: Logger, wordsPerMinute: Int = 175, voice: String? = nil) {
        self.mixer = mixer
        self.logger = logger
        self.fixedVoice = voice
        self.defaultWordsPerMinute = wordsPerMinute
        let ready = NSCondition()
        nonisolated(unsafe) var started: Bool?
        let thread = Thread { [self] in
            let engine = EspeakEngine().flatMap { engine in voice.map(engine.hasVoice) == false ? nil : engine }
            ready.lock()
            started = engine != nil
            ready.signal()
            ready.unlock()
            guard let engine else { return }
            synthesisLoop(engine)
        }
        thread.name = "assist-speech"
        thread.start()
        ready.lock()
        while started == nil { ready.wait() }
        ready.unlock()
        guard started == true else { return nil }
        mixer.add(SpeechSource(service: self), ducksOthers: true)
    }

    /// Queues `utterance`; returns its id, or nil when the text has nothing to say (its `onDone` is not
    /// called then). Any thread.
    @discardableResult
    package func speak(_ utterance: Utterance, callbacks: SpeechCallbacks = SpeechCallbacks()) -> UInt64? {
        var clean = utterance
        clean.text = Self.speakable(utterance.text)
        guard clean.text.contains(where: { !$0.isWhitespace }) else { return nil }
        var ended: [(SpeechQueue.Entry, SpeechOutcome)] = []
        condition.lock()
        let id = nextID
        nextID += 1
        let entry = SpeechQueue.Entry(id: id, utterance: clean, callbacks: callbacks)
        if let group = clean.group, group.replaces {
            let sameGroup = { (other: Utterance) in other.group == group && other.owner == clean.owner }
            ended += queue.remove { sameGroup($0.utterance) }.map { ($0, .cancelled) }
            if let speaking = playing?.entry.utterance, sameGroup(speaking), let cut = endPlaying() {
                ended.append((cut, .cancelled))
            }
        }
        let (dropped, interruption) = queue.admit(entry, speaking: playing?.entry.utterance.priority)
        ended += dropped.map { ($0, .cancelled) }
        switch interruption {
        case .cancel: if let entry = endPlaying() { ended.append((entry, .cancelled)) }
        case .postpone: postponePlaying()
        case .none: break
        }
        startNextIfIdle()
        condition.unlock()
        report(ended)
        return id
    }

    /// Stops utterance `id`, speaking or waiting; its `onDone` reports cancelled. False when it is not known.
    @discardableResult
    package func stop(id: UInt64) -> Bool { cancel { $0.id == id } > 0 }

    /// Stops utterance `id` only if `owner` asked for it. Any thread.
    @discardableResult
    package func stop(id: UInt64, owner: Int) -> Bool { cancel { $0.id == id && $0.utterance.owner == owner } > 0 }

    /// Stops every utterance of `owner`. Returns how many. Any thread.
    @discardableResult
    package func cancel(owner: Int) -> Int { cancel { $0.utterance.owner == owner } }

    /// Pauses `owner`'s speech at once; the utterance speaking restarts at its current word on `resume`.
    /// Other owners' speech goes on. Returns false when `owner` had nothing to pause. Any thread.
    @discardableResult
    package func pause(owner: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let hadSpeech =
            playing?.entry.utterance.owner == owner || queue.waiting.contains { $0.utterance.owner == owner }
        pausedOwners.insert(owner)
        if playing?.entry.utterance.owner == owner {
            postponePlaying()
            startNextIfIdle()
        }
        return hadSpeech
    }

    /// Resumes `owner`'s paused speech. Any thread.
    package func resume(owner: Int) {
        condition.lock()
        pausedOwners.remove(owner)
        startNextIfIdle()
        condition.unlock()
        mixer?.wake()
    }

    /// True while `owner` is paused. Any thread.
    package func isPaused(owner: Int) -> Bool { condition.withLock { pausedOwners.contains(owner) } }

    /// Voice listens for a command (the push-to-talk key is down): what is being said stops at once and waits,
    /// with everything queued and every plugin's speech from now on, until `endListeningHold`; then it starts
    /// again at the word that was being heard. The host's speech queued from now on (the "Heard: …" or
    /// "Sorry" that answers the command) is spoken. Any thread.
    package func holdForListening() {
        condition.lock()
        defer { condition.unlock() }
        // A second window while one holds keeps the first one's mark: the answers said between stay free.
        if listeningFrom == nil { listeningFrom = nextID }
        if let current = playing?.entry, isHeld(current) {
            postponePlaying()
            startNextIfIdle()
        }
    }

    /// Ends `holdForListening`: what it held goes on. Any thread.
    package func endListeningHold() {
        condition.lock()
        listeningFrom = nil
        startNextIfIdle()
        condition.unlock()
        mixer?.wake()
    }

    /// True while anything is being spoken. Any thread.
    package var isSpeaking: Bool { condition.withLock { playing != nil } }

    /// Drops `owner`'s callbacks: its speech continues but reports nothing (the plugin is going away).
    package func detach(owner: Int) {
        condition.lock()
        queue.clearCallbacks(owner: owner)
        if playing?.entry.utterance.owner == owner { playing?.detached = true }
        condition.unlock()
    }

    /// Sets the default rate (80…450 words per minute) and the speech volume (0…1). Any thread.
    package func configure(wordsPerMinute: Int? = nil, volume: Double? = nil) {
        condition.withLock {
            if let wordsPerMinute { defaultWordsPerMinute = min(450, max(80, wordsPerMinute)) }
            if let volume { self.volume = min(1, max(0, volume)) }
        }
    }

    /// The user's voice (`speech.voice`): "standard" (each language's own, a man's), "female" (about twice its
    /// pitch) or "classic" (espeak's older Klatt synthesis), as an espeak-ng variant. Any thread.
    package func configure(voice: String) {
        let variant = Self.variants[voice] ?? nil
        condition.withLock { self.variant = variant }
    }

    /// `speech.voice`'s values and the espeak-ng variant each one is.
    package static let variants: [String: String?] = [
        "standard": nil, "female": "f3", "classic": "klatt",
    ]

    /// Ends the speech thread after the current synthesis. Any thread.
    package func shutdown() {
        condition.withLock {
            running = false
            condition.broadcast()
        }
    }

    // MARK: Speaker

    package func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?) {
        speak(Utterance(text, language: language, priority: priority, group: group))
    }

    package func cancel(group: SpeechGroup) { _ = cancel { $0.utterance.group == group && $0.utterance.owner == 0 } }

    package func stopAll() { _ = cancel { _ in true } }

    package func drain(timeoutSeconds: Double) {
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        condition.lock()
        while hasUnpausedWork && condition.wait(until: deadline) {}
        condition.unlock()
    }

    // MARK: Internals (called with `condition` held unless stated)

    var hasUnpausedWork: Bool {
        playing != nil || queue.waiting.contains { !isHeld($0) } || queue.lastProgress.map { !isHeld($0) } == true
    }

    /// Whether `entry` waits: its owner paused, or voice listening for a command (`holdForListening`).
    func isHeld(_ entry: SpeechQueue.Entry) -> Bool {
        if pausedOwners.contains(entry.utterance.owner) { return true }
        guard let listeningFrom else { return false }
        return entry.id < listeningFrom || entry.utterance.owner != 0
    }

    private func cancel(where predicate: (SpeechQueue.Entry) -> Bool) -> Int {
        condition.lock()
        var ended = queue.remove(where: predicate).map { ($0, SpeechOutcome.cancelled) }
        if let current = playing?.entry, predicate(current), let entry = endPlaying() {
            ended.append((entry, .cancelled))
        }
        startNextIfIdle()
        condition.unlock()
        report(ended)
        return ended.count
    }

    /// Ends the utterance speaking and returns its entry for reporting (nil when its owner detached).
    func endPlaying() -> SpeechQueue.Entry? {
        guard let current = playing else { return nil }
        current.cancelled = true
        playing = nil
        condition.broadcast()
        return current.detached ? nil : current.entry
    }

    /// Puts the utterance speaking back in the queue, to restart at the word being heard.
    private func postponePlaying() {
        guard let current = playing else { return }
        var entry = current.entry
        entry.startCharacter = current.currentWordCharacter
        if current.detached { entry.callbacks = SpeechCallbacks() }
        current.cancelled = true
        playing = nil
        queue.putBack(entry)
        condition.broadcast()
    }

    func startNextIfIdle() {
        guard playing == nil, let entry = queue.next(skipping: isHeld) else { return }
        playing = Playback(entry)
        condition.broadcast()
    }

    /// Calls `onDone` for ended utterances, outside the lock.
    func report(_ ended: [(SpeechQueue.Entry, SpeechOutcome)]) {
        for (entry, outcome) in ended { entry.callbacks.onDone?(entry.id, outcome) }
        if !ended.isEmpty { condition.withLock { condition.broadcast() } }
    }

    /// Text espeak-ng can take: control characters become spaces.
    static func speakable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    scalar.properties.generalCategory == .control && scalar != "\n" ? " " : scalar
                }))
    }

    /// The espeak-ng voice for a language code.
    package static func voice(for language: String) -> String {
        switch language {
        case "ru": return "ru"
        case "zh": return "cmn"
        case "es": return "es"
        default: return "en-us"
        }
    }

    private func synthesisLoop(_ engine: EspeakEngine) {
        while true {
            condition.lock()
            while running && (playing == nil || playing?.synthesisStarted == true) { condition.wait() }
            guard running, let current = playing else {
                condition.unlock()
                return
            }
            current.synthesisStarted = true
            let utterance = current.entry.utterance
            let rate = utterance.wordsPerMinute ?? defaultWordsPerMinute
            let text = current.remainingText
            condition.unlock()
            let voice = chooseVoice(utterance, engine: engine)
            engine.synthesise(text, voice: voice, wordsPerMinute: rate) { [self] chunk, marks in
                accept(chunk, marks: marks, into: current)
            }
            condition.withLock {
                current.synthesisDone = true
                condition.broadcast()
            }
            mixer?.wake()
        }
    }

    private func chooseVoice(_ utterance: Utterance, engine: EspeakEngine) -> String {
        let variant = condition.withLock { self.variant }
        let wanted =
            utterance.voice ?? fixedVoice ?? (Self.voice(for: utterance.language) + (variant.map { "+" + $0 } ?? ""))
        if engine.hasVoice(wanted) { return wanted }
        let fallback = Self.voice(for: utterance.language)
        logger.warning("espeak-ng has no voice \(wanted); speaking with \(fallback) instead")
        return fallback
    }

    /// Takes one chunk from espeak-ng on the speech thread; waits while far enough ahead. False stops synthesis.
    private func accept(_ chunk: UnsafeBufferPointer<Int16>, marks: [EspeakEngine.Mark], into current: Playback) -> Bool
    {
        condition.lock()
        guard !current.cancelled else {
            condition.unlock()
            return false
        }
        var start = 0
        if !current.soundStarted {
            // Silence before the first sound is dropped (up to 200 ms; a few samples kept for a clean onset).
            let limit = Self.leadingTrimLimit - current.trimmedLeading
            if let onset = chunk.firstIndex(where: { abs(Int32($0)) > 64 }) {
                start = min(max(0, onset - 32), limit)
                current.soundStarted = true
            } else {
                start = min(chunk.count, limit)
                if start < chunk.count { current.soundStarted = true }
            }
            current.trimmedLeading += start
        }
        current.samples.append(contentsOf: chunk[start...])
        current.synthesised += chunk.count - start
        let trimmed = current.trimmedLeading
        current.marks.append(
            contentsOf: marks.map { mark in
                var moved = mark
                moved.sample = max(0, mark.sample - trimmed)
                return moved
            })
        condition.unlock()
        mixer?.wake()
        condition.lock()
        defer { condition.unlock() }
        while !current.cancelled && running && current.synthesised - current.heard > Self.aheadSamples {
            condition.wait()
        }
        return !current.cancelled && running
    }
}

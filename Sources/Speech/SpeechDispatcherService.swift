import Foundation
import Logging

/// Speech through the user's Speech Dispatcher, for people whose screen reader already uses it
/// (`speech.backend = "speech-dispatcher"`). The server keeps the SSIP priority rules and plays the sound
/// itself, so cues are not ducked under it. Each word is preceded by an SSML index mark naming its
/// character offset, which gives word events and lets pause and resume work at the word. Stopping one
/// queued message marks it and stops it when it begins (SSIP cancels only whole connections).
// because: `messages`, `current`, `pausedOwners` and `cancelled` are guarded by `lock`
package final class SpeechDispatcherService: SpeechEngine, @unchecked Sendable {
    private struct Message {
        var utterance: Utterance
        var callbacks: SpeechCallbacks
        var byteOffsets: [Int]
        /// `speak` is still telling the marks that came before `say` returned: the event thread leaves the marks
        /// and the end that come meanwhile to it, so they are told in order.
        var replaying = true
    }

    private let connection: SpeechDispatcherConnection
    private let logger: Logger
    private let lock = NSCondition()
    private var messages: [Int: Message] = [:]
    private var current: Int?
    private var cancelled: Set<Int> = []
    private var pausedOwners: Set<Int> = []
    /// Ends that arrived before `spd_say` returned the message's id (the server can be that fast).
    private var earlyEnds: [Int: SpeechOutcome] = [:]
    /// Index marks of messages `say` has not yet returned the id of.
    private var earlyMarks: [Int: [String]] = [:]
    private var defaultWordsPerMinute: Int
    /// libspeechd reads replies on its event thread, so calls made because of an event, or while holding
    /// `lock` (which the event thread may be waiting for), go through this queue instead.
    private let commands = DispatchQueue(label: "assist-speechd-commands")

    /// Connects to Speech Dispatcher; nil (after logging why) when it cannot be reached.
    package init?(logger: Logger, wordsPerMinute: Int = 175) {
        do {
            connection = try SpeechDispatcherConnection(clientName: "assist")
        } catch {
            logger.warning(
                "Speech Dispatcher cannot be reached: \((error as? SpeechDispatcherError)?.reason ?? "\(error)")")
            return nil
        }
        self.logger = logger
        self.defaultWordsPerMinute = wordsPerMinute
        SpeechDispatcherConnection.events = { [weak self] event in self?.handle(event) }
    }

    /// The rate of utterances that name none; the volume is the user's in Speech Dispatcher's own settings.
    package func configure(wordsPerMinute: Int?, volume: Double?) {
        guard let wordsPerMinute else { return }
        lock.withLock { defaultWordsPerMinute = min(450, max(80, wordsPerMinute)) }
    }

    /// The user's own speech set-up chooses the voice: `speech.voice` is espeak-ng's alone.
    package func configure(voice: String) {}

    package func speak(_ utterance: Utterance, callbacks: SpeechCallbacks) -> UInt64? {
        let text = SpeechService.speakable(utterance.text)
        guard text.contains(where: { !$0.isWhitespace }) else { return nil }
        var offsets: [Int] = [0]
        var total = 0
        for scalar in text.unicodeScalars {
            total += UTF8.width(scalar)
            offsets.append(total)
        }
        let wordsPerMinute = utterance.wordsPerMinute ?? lock.withLock { defaultWordsPerMinute }
        // Speech Dispatcher's rate runs from -100 to 100 around the module's default, about 175 wpm.
        let rate = Int32(max(-100, min(100, (wordsPerMinute - 175) * 100 / 275)))
        guard
            let id = connection.say(
                Self.ssml(text), priority: utterance.priority.rawValue + 1, language: utterance.language,
                voice: utterance.voice, rate: rate)
        else {
            logger.warning("Speech Dispatcher refused a message")
            return nil
        }
        var stored = utterance
        stored.text = text
        let message = Message(utterance: stored, callbacks: callbacks, byteOffsets: offsets)
        // The server may begin it, mark its first words and even end it before `say` returns: what came first is
        // told now, in order, then what came while it was told, and only then does the event thread tell the rest.
        var early = lock.withLock {
            if let outcome = earlyEnds.removeValue(forKey: id) {
                lock.broadcast()
                return Optional(outcome)
            }
            messages[id] = message
            return nil
        }
        while true {
            let (marks, ended) = lock.withLock { () -> ([String], SpeechOutcome?) in
                if let marks = earlyMarks.removeValue(forKey: id) { return (marks, nil) }
                messages[id]?.replaying = false
                return ([], earlyEnds.removeValue(forKey: id))
            }
            guard !marks.isEmpty else {
                early = early ?? ended
                break
            }
            if let onWord = callbacks.onWord {
                for word in marks.compactMap({ Self.word(named: $0, in: message) }) { onWord(UInt64(id), word) }
            }
        }
        if let early { callbacks.onDone?(UInt64(id), early) }
        return UInt64(id)
    }

    package func stop(id: UInt64, owner: Int) -> Bool {
        stopMessages { $0.key == Int(id) && $0.value.utterance.owner == owner } > 0
    }

    package func cancel(owner: Int) -> Int { stopMessages { $0.value.utterance.owner == owner } }

    package func pause(owner: Int) -> Bool {
        let speaking = lock.withLock {
            pausedOwners.insert(owner)
            return current.flatMap { messages[$0] }?.utterance.owner == owner
        }
        if speaking { connection.pause() }
        return speaking
    }

    package func resume(owner: Int) {
        if lock.withLock({ pausedOwners.remove(owner) != nil }) { connection.resume() }
    }

    package func isPaused(owner: Int) -> Bool { lock.withLock { pausedOwners.contains(owner) } }

    /// Whether `holdForListening` paused the connection.
    private var heldForListening = false

    /// SSIP pauses a whole connection: what is being said stops at once, and what is sent until
    /// `endListeningHold` (the answer to the command too) is spoken after it, under the server's priorities.
    package func holdForListening() {
        // A connection a plugin's pause already holds stays as it is.
        let speaking = lock.withLock { () -> Bool in
            guard !heldForListening, current != nil, pausedOwners.isEmpty else { return false }
            heldForListening = true
            return true
        }
        if speaking { connection.pause() }
    }

    package func endListeningHold() {
        if lock.withLock({ () -> Bool in
            defer { heldForListening = false }
            return heldForListening
        }) {
            connection.resume()
        }
    }

    package var isSpeaking: Bool { lock.withLock { current != nil } }

    package func detach(owner: Int) {
        lock.withLock {
            for (id, message) in messages where message.utterance.owner == owner {
                messages[id]?.callbacks = SpeechCallbacks()
            }
        }
    }

    package func shutdown() {
        SpeechDispatcherConnection.events = nil
    }

    // MARK: Speaker

    package func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?) {
        _ = speak(Utterance(text, language: language, priority: priority, group: group), callbacks: SpeechCallbacks())
    }

    package func stopAll() {
        lock.withLock { cancelled.formUnion(messages.keys) }
        connection.cancelAll()
    }

    package func drain(timeoutSeconds: Double) {
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        lock.lock()
        while !messages.isEmpty && lock.wait(until: deadline) {}
        lock.unlock()
    }

    // MARK: Internals

    private func stopMessages(where predicate: ((key: Int, value: Message)) -> Bool) -> Int {
        let (count, speaking) = lock.withLock {
            let ids = messages.filter(predicate).map(\.key)
            cancelled.formUnion(ids)
            return (ids.count, current.map(ids.contains) ?? false)
        }
        if speaking { connection.stopCurrent() }
        return count
    }

    /// Events from libspeechd's thread.
    private func handle(_ event: SpeechDispatcherConnection.Event) {
        var report: (() -> Void)?
        lock.lock()
        switch event {
        case .begin(let id):
            current = id
            if cancelled.contains(id) { commands.async { [connection] in connection.stopCurrent() } }
        case .mark(let id, let name):
            if let message = messages[id], !message.replaying {
                if let onWord = message.callbacks.onWord, let word = Self.word(named: name, in: message) {
                    report = { onWord(UInt64(id), word) }
                }
            } else if earlyMarks.count < 64 {
                earlyMarks[id, default: []].append(name)  // before `say` returned, or while its marks are told
            }
        case .end(let id), .cancel(let id):
            if current == id { current = nil }
            let message = messages.removeValue(forKey: id)
            // Before `say` returned, or while `speak` tells its first marks: `speak` tells the end after them.
            let held = message?.replaying ?? true
            if !held { earlyMarks[id] = nil }
            let wasCancelled = cancelled.remove(id) != nil
            var outcome = SpeechOutcome.finished
            if case .cancel = event { outcome = .cancelled }
            if wasCancelled { outcome = .cancelled }
            if held {
                earlyEnds[id] = outcome
            } else if let onDone = message?.callbacks.onDone {
                report = { onDone(UInt64(id), outcome) }
            }
            lock.broadcast()
        }
        lock.unlock()
        report?()
    }

    /// The word that the index mark `name` (its character offset) of `message` stands before.
    private static func word(named name: String, in message: Message) -> SpeechWord? {
        guard let offset = Int(name), offset >= 0, offset < message.byteOffsets.count else { return nil }
        let text = message.utterance.text.unicodeScalars
        let start = text.index(text.startIndex, offsetBy: offset)
        let length = wordLength(Array(text[start...].prefix { !$0.properties.isWhitespace }))
        let byteEnd = message.byteOffsets[min(message.byteOffsets.count - 1, offset + length)]
        return SpeechWord(
            characterOffset: offset, byteOffset: message.byteOffsets[offset],
            byteLength: byteEnd - message.byteOffsets[offset])
    }

    /// The text as SSML with an index mark, named by its character offset, before each word. espeak-ng (through
    /// Speech Dispatcher) never reports a mark that comes after a full stop ("Dr. <mark/>Smith", "in. <mark/>He"),
    /// while it does after "!", "?" and ";": such a word's mark goes just before the stop, where it is reported as
    /// the word before it ends, rather than never.
    static func ssml(_ text: String) -> String {
        var out = Array("<speak>".unicodeScalars)
        var offset = 0
        var inWord = false
        var stops: Int?  // where in `out` the full stops that end the last word begin
        for scalar in text.unicodeScalars {
            let space = scalar.properties.isWhitespace
            if !space && !inWord {
                out.insert(contentsOf: "<mark name=\"\(offset)\"/>".unicodeScalars, at: stops ?? out.count)
            }
            inWord = !space
            if scalar == "." {
                stops = stops ?? out.count
            } else if !space {
                stops = nil
            }
            switch scalar {
            case "<": out += "&lt;".unicodeScalars
            case ">": out += "&gt;".unicodeScalars
            case "&": out += "&amp;".unicodeScalars
            case "\"": out += "&quot;".unicodeScalars
            default: out.append(scalar)
            }
            offset += 1
        }
        out += "</speak>".unicodeScalars
        var result = String.UnicodeScalarView()
        result.append(contentsOf: out)
        return String(result)
    }

    /// How many scalars of `run` (a word up to the next space) the page marks: without the punctuation after it
    /// ("morning." is marked "morning", as espeak-ng's own word events mark it), unless it is punctuation alone.
    static func wordLength(_ run: [Unicode.Scalar]) -> Int {
        var length = run.count
        while length > 1, isPunctuation(run[length - 1]) { length -= 1 }
        return length
    }

    private static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }
}

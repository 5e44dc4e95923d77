import Voice

/// What the main loop (and the push-to-talk key's thread) and the listening thread share: `VoiceHearing.shared`,
/// one value under one mutex, so nothing of it is read or written outside the lock.
struct VoiceShared {
    /// The question asked now, as voice listens for its answer (set on the main loop).
    struct Question {
        /// What answers it, while one is asked: its words, or dictated words for a text question.
        var wanted: ArgumentFollower.Wanted?
        /// A text question's likely answers: the list its feature listens for after a phrase, less what was
        /// already said back for it.
        var likely: [String] = []
        /// True while the question is a choice (a menu): a command spotted then still acts.
        var choosing = false
        /// The text question last asked (its dialog's id) and the answers said back for it (main loop).
        var proposed: (question: UInt64, words: [String])?
    }

    /// False once voice stops: the listening thread ends.
    var running = true
    /// Listening until this moment (monotonic seconds), in push-to-talk and after the wake phrase.
    var openUntil = 0.0
    /// When a command was last heard (monotonic seconds).
    var lastHeard = -100.0
    /// The feature focused when the phrases were last made (main loop).
    var focused: String?
    /// The phrases listened for, as last made on the main loop.
    var listening: [String] = []
    /// The phrases to listen for from the next chunk on, when they changed (made on the main loop).
    var pendingPhrases: [KeyPhrase]?
    /// What may follow each phrase that takes words ("find object" → the names), made on the main loop.
    var followers: [String: ArgumentFollower.Wanted] = [:]
    /// The launch keywords that take words, from the manifests (their lists may not be set yet).
    var taking: Set<String> = []
    var question = Question()
    /// Counts the windows opened (push-to-talk, the wake phrase), so the listening thread sees each new one.
    var windows = 0
    /// Whether the push-to-talk key is held down now, read through `voice.key-device`.
    var keyIsDown = false
    /// Whether Assist's speech is held for the push-to-talk window.
    var speechHeld = false

    /// A window opens (push-to-talk's key tapped, or the wake phrase heard): listening for the next
    /// `VoiceSession.windowMs` from `now` (monotonic seconds), as a new window the listening thread will see.
    mutating func openWindow(now: Double) {
        openUntil = now + Double(VoiceSession.windowMs) / 1000
        windows += 1
    }
}

/// Something to say, and who asked.
package struct Utterance: Sendable {
    /// The text, UTF-8; speech can start part-way through it after a pause.
    package var text: String
    /// "en", "ru" or "zh": picks the voice unless `voice` is set.
    package var language: String
    /// An espeak-ng voice name ("en-gb", "ru", "cmn"); nil for the language's voice.
    package var voice: String?
    /// Words per minute (80…450); nil for the user's rate.
    package var wordsPerMinute: Int?
    package var priority: SpeechPriority
    /// Who asked: 0 for the host, else the plugin's context number. Pause, resume and cancel act per owner.
    package var owner: Int
    /// An utterance of a group replaces its owner's earlier one of the same group, waiting or speaking (the
    /// host's hints, the echo of typed keys); nil for none.
    package var group: SpeechGroup?

    package init(
        _ text: String, language: String = "en", voice: String? = nil, wordsPerMinute: Int? = nil,
        priority: SpeechPriority = .message, owner: Int = 0, group: SpeechGroup? = nil
    ) {
        self.group = group
        self.text = text
        self.language = language
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
        self.priority = priority
        self.owner = owner
    }
}

/// How an utterance ended.
package enum SpeechOutcome: Int32, Sendable {
    /// Spoken to the end.
    case finished = 0
    /// Stopped, cancelled, or dropped by the priority rules before or while speaking.
    case cancelled = 1
}

/// A word about to be heard: where it is in the utterance's text.
package struct SpeechWord: Equatable, Sendable {
    /// Offset in Unicode scalars (characters) from the start of the text.
    package var characterOffset: Int
    /// Offset in UTF-8 bytes from the start of the text.
    package var byteOffset: Int
    /// The word's length in UTF-8 bytes.
    package var byteLength: Int

    package init(characterOffset: Int, byteOffset: Int, byteLength: Int) {
        self.characterOffset = characterOffset
        self.byteOffset = byteOffset
        self.byteLength = byteLength
    }
}

/// Callbacks for one utterance. `onWord` runs on the mixer thread as each word starts to sound; `onDone` runs
/// exactly once, on the mixer thread or the caller's.
package struct SpeechCallbacks: Sendable {
    package var onWord: (@Sendable (UInt64, SpeechWord) -> Void)?
    package var onDone: (@Sendable (UInt64, SpeechOutcome) -> Void)?

    package init(
        onWord: (@Sendable (UInt64, SpeechWord) -> Void)? = nil,
        onDone: (@Sendable (UInt64, SpeechOutcome) -> Void)? = nil
    ) {
        self.onWord = onWord
        self.onDone = onDone
    }
}

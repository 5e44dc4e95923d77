/// Speech priorities, as in Speech Dispatcher; the raw values are the ABI's `ASSIST_PRIORITY_*`.
package enum SpeechPriority: Int32, Sendable, Comparable {
    case important = 0
    case message = 1
    case text = 2
    case notification = 3
    case progress = 4

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Something that turns text into speech. The host gives the announcer one; tests use a recording fake.
package protocol Speaker: Sendable {
    /// Queues `text` in `language` ("en") at `priority`, in `group` (a hint, a question, the echo of a key).
    /// Any thread.
    func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?)
    /// Queues `utterance`, telling `callbacks` as each word starts to sound and when it ends; returns its id, or
    /// nil when nothing will be reported (the text has nothing to say, or this speaker reports nothing).
    func speak(_ utterance: Utterance, callbacks: SpeechCallbacks) -> UInt64?
    /// Stops the host's utterances of `group`, waiting or speaking (a question answered). Any thread.
    func cancel(group: SpeechGroup)
    /// Silences everything at once. Any thread.
    func stopAll()
    /// Waits until everything queued has been spoken, at most `timeoutSeconds`; for a clean exit. Any thread.
    func drain(timeoutSeconds: Double)
}

/// A kind of the host's speech that is stopped together, or whose new utterance takes the place of the one
/// before (a hint said twice is heard once; each typed key's echo cuts the last).
package struct SpeechGroup: Hashable, Sendable {
    package var name: String
    /// A new utterance of the group stops the earlier ones, waiting or speaking.
    package var replaces: Bool

    package init(_ name: String, replaces: Bool) {
        self.name = name
        self.replaces = replaces
    }

    /// "That key does nothing here", "Unknown command": only the latest is worth hearing.
    package static let hint = SpeechGroup("hint", replaces: true)
    /// A typed character said back.
    package static let echo = SpeechGroup("echo", replaces: true)
    /// Assist's greeting at start ("Assist is ready.", the offer of the tour): its sentences queue one after the
    /// other, and the first key a person presses stops what is left, as a hint is stopped (issue 72: the answer to
    /// a key pressed during the greeting was heard 4.7 s late, behind it).
    package static let greeting = SpeechGroup("greeting", replaces: false)
    /// A list read out when asked for (the spoken tour, a feature's commands, the phrases voice hears): its lines
    /// queue one after another, and a key stops what is left.
    package static let list = SpeechGroup("list", replaces: false)
    /// A question and its choices, stopped once it is answered.
    package static let question = SpeechGroup("question", replaces: false)
}

extension Speaker {
    package func cancel(group: SpeechGroup) {}

    package func speak(_ text: String, language: String, priority: SpeechPriority) {
        speak(text, language: language, priority: priority, group: nil)
    }

    package func drain(timeoutSeconds: Double) {}

    /// A speaker that reports nothing says the utterance as plain text.
    package func speak(_ utterance: Utterance, callbacks: SpeechCallbacks) -> UInt64? {
        speak(utterance.text, language: utterance.language, priority: utterance.priority, group: utterance.group)
        return nil
    }
}

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
    /// Queues `text` in `language` ("en") at `priority`. Any thread.
    func speak(_ text: String, language: String, priority: SpeechPriority)
    /// Silences everything at once. Any thread.
    func stopAll()
    /// Waits until everything queued has been spoken, at most `timeoutSeconds`; for a clean exit. Any thread.
    func drain(timeoutSeconds: Double)
}

extension Speaker {
    package func drain(timeoutSeconds: Double) {}
}

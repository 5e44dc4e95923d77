import AssistCore
import Foundation
import Speech

/// Says things to the user: every message is printed as one plain line and spoken, the screen never more than
/// one line ahead of the ear (`PacedLines`).
///
/// It remembers the last message so "repeat" can say it again, and it never speaks secrets.
package final class Announcer: @unchecked Sendable {  // because: `lastMessage` is guarded by `lock`
    private let output: LineOutput
    private let data: LineOutput
    /// What is printed where it is spoken, never more than one line ahead of what is heard.
    private let lines: PacedLines
    /// True when a data command's rows go elsewhere than the spoken lines (they are then not paced).
    private let dataApart: Bool
    /// False when printing does not wait for speech: nobody hears it as it is made.
    private let paced: Bool
    private let speaker: Speaker?
    private let lock = NSLock()
    private var lastMessage: String?
    /// The last line printed by `say`: a hint the same as it is spoken again but not printed again.
    private var lastPrinted: String?
    /// The language speech uses ("en").
    package let language: String

    /// Creates an announcer printing to `output` and speaking with `speaker` (nil for silent runs); `data`
    /// (by default `output`) takes what is printed without being said: a data command's rows. With `paced`
    /// false (nobody hears the speech live) lines are printed at once.
    package init(
        output: LineOutput, data: LineOutput? = nil, speaker: Speaker?, language: String, paced: Bool = true
    ) {
        self.output = output
        self.data = data ?? output
        lines = PacedLines(output: output)
        self.paced = paced
        dataApart = data != nil
        self.speaker = speaker
        self.language = language
    }

    /// Prints and speaks `text`. Empty text is ignored. In a `group` that replaces (`.hint`), it stops the
    /// earlier message of that group still waiting or speaking, so stray keys never queue hints; a hint the
    /// same as the line printed last is not printed again (a screen reader would read each copy). Any thread.
    /// `language` speaks it in another language than the session's (a new language's confirmation, said in it).
    package func say(
        _ text: String, priority: SpeechPriority = .message, remember: Bool = true, group: SpeechGroup? = nil,
        language: String? = nil
    ) {
        let trimmed = Self.line(text)
        guard !trimmed.isEmpty else { return }
        let printed = lock.withLock {
            if remember { lastMessage = trimmed }
            if group == .hint && lastPrinted == trimmed { return false }
            lastPrinted = trimmed
            return true
        }
        let utterance = Utterance(trimmed, language: language ?? self.language, priority: priority, group: group)
        guard printed else {
            speaker?.speak(trimmed, language: utterance.language, priority: priority, group: group)
            return
        }
        guard let speaker else {
            lines.add(trimmed, spoken: false)
            return
        }
        speak(utterance, printing: trimmed, tabs: false, with: speaker, callbacks: SpeechCallbacks())
    }

    /// Prints `line` as a row (its tabs kept; among a data command's rows when they go apart), or as a `status`
    /// line where spoken lines are printed, paced by what is heard, and says `utterance` with `speaker`, passing
    /// its words and end on to `callbacks`: a feature's own speech. The utterance's id, or nil when nothing will
    /// be reported. Any thread.
    package func speak(
        _ utterance: Utterance, printing line: String, status: Bool = false, with speaker: Speaker,
        callbacks: SpeechCallbacks
    ) -> UInt64? {
        guard !dataApart || status else {
            // A data command's rows have a place of their own; nothing is paced there.
            data.writeRow(line)
            return speaker.speak(utterance, callbacks: callbacks)
        }
        return speak(utterance, printing: line, tabs: !status, with: speaker, callbacks: callbacks)
    }

    @discardableResult
    private func speak(
        _ utterance: Utterance, printing line: String, tabs: Bool, with speaker: Speaker, callbacks: SpeechCallbacks
    ) -> UInt64? {
        let ticket = lines.add(line, tabs: tabs, spoken: paced)
        let lines = self.lines
        var paced = callbacks
        paced.onWord = { id, word in
            lines.heard(ticket)
            callbacks.onWord?(id, word)
        }
        paced.onDone = { id, outcome in
            // A word was heard unless it was dropped before it began (then it no longer holds the next line back).
            lines.heard(ticket, sounded: outcome == .finished)
            callbacks.onDone?(id, outcome)
        }
        let id = speaker.speak(utterance, callbacks: paced)
        if id == nil { lines.heard(ticket, sounded: false) }
        return id
    }

    /// Speaks `text` without printing or remembering it: the echo of a typed key, already shown where it was
    /// typed. Each echo replaces the one before. Any thread.
    package func echo(_ text: String) {
        let trimmed = Self.line(text)
        guard !trimmed.isEmpty else { return }
        speaker?.speak(trimmed, language: language, priority: .important, group: .echo)
    }

    /// Stops what is still to be said of `group` (a question once it is answered). Any thread.
    package func cancel(_ group: SpeechGroup) {
        speaker?.cancel(group: group)
    }

    /// `text` as a line to print and speak: plain, without the spaces and newlines around it.
    private static func line(_ text: String) -> String {
        PlainText.spoken(text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Shows `text` where spoken lines are printed, without speaking it: what the screen holds and the ear can
    /// ask for (a menu come back to, whose choices "repeat" reads). Any thread.
    package func show(_ text: String) {
        let trimmed = Self.line(text)
        guard !trimmed.isEmpty else { return }
        lock.withLock { lastPrinted = trimmed }
        lines.add(trimmed, spoken: false)
    }

    /// Prints `text` without speaking it: a data command's rows, a plugin's transcript, tables for sighted
    /// helpers.
    package func print(_ text: String) {
        if dataApart { data.writeRow(text) } else { lines.add(text, tabs: true, spoken: false) }
    }

    /// Keeps `text` as the last message, which "repeat" says again, without saying it here: what a feature said
    /// through its own speech (the tour's "r repeats the last sentence" holds inside features too). Any thread.
    package func remember(_ text: String) {
        let trimmed = Self.line(text)
        guard !trimmed.isEmpty else { return }
        lock.withLock { lastMessage = trimmed }
    }

    /// Says the last message again; returns false when nothing has been said yet. Any thread.
    @discardableResult
    package func repeatLast() -> Bool {
        lock.lock()
        let last = lastMessage
        lock.unlock()
        guard let last else { return false }
        say(last, priority: .important, remember: false)
        return true
    }

    /// Waits for queued speech to finish, at most `timeoutSeconds`. Any thread.
    package func drain(timeoutSeconds: Double) {
        speaker?.drain(timeoutSeconds: timeoutSeconds)
        lines.flush()
    }

    /// Silences speech at once; every line waiting to be heard is printed. Any thread.
    package func silence() {
        speaker?.stopAll()
        lines.flush()
    }

    /// Prints every line still waiting for the one before it to be heard: Assist is ending. Any thread.
    package func flush() {
        lines.flush()
    }
}

/// Writes lines to standard output and flushes each, so screen readers and pipes see them at once.
package struct StandardOutput: LineOutput {
    /// The descriptor written to: standard output, or a terminal's (a test's screen in process).
    private let descriptor: Int32

    package init(descriptor: Int32 = 1) { self.descriptor = descriptor }

    /// Writes `line` as printed (`PlainText.printed`: cleaned of control characters, a lone form feed kept) and a
    /// newline.
    package func writeLine(_ line: String) { write(line, tabs: false) }

    /// Writes `line` as `writeLine` does, its tabs kept (a transcript's table row).
    package func writeRow(_ line: String) { write(line, tabs: true) }

    private func write(_ line: String, tabs: Bool) {
        let data = Array((PlainText.printed(line, keepingTabs: tabs) + "\n").utf8)
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

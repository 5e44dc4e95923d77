import AssistCore
import Foundation
import Speech

/// Says things to the user: every message is printed as one plain line and spoken.
///
/// It remembers the last message so "repeat" can say it again, and it never speaks secrets.
package final class Announcer: @unchecked Sendable {  // because: `lastMessage` is guarded by `lock`
    private let output: LineOutput
    private let data: LineOutput
    private let speaker: Speaker?
    private let lock = NSLock()
    private var lastMessage: String?
    /// The last line printed by `say`: a hint the same as it is spoken again but not printed again.
    private var lastPrinted: String?
    /// The language speech uses ("en").
    package let language: String

    /// Creates an announcer printing to `output` and speaking with `speaker` (nil for silent runs); `data`
    /// (by default `output`) takes what is printed without being said: a data command's rows.
    package init(output: LineOutput, data: LineOutput? = nil, speaker: Speaker?, language: String) {
        self.output = output
        self.data = data ?? output
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
        if printed { output.writeLine(trimmed) }
        speaker?.speak(trimmed, language: language ?? self.language, priority: priority, group: group)
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
        output.writeLine(trimmed)
    }

    /// Prints `text` without speaking it: a data command's rows, a plugin's transcript, tables for sighted
    /// helpers.
    package func print(_ text: String) {
        data.writeRow(text)
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
    }

    /// Silences speech at once. Any thread.
    package func silence() {
        speaker?.stopAll()
    }
}

/// Writes lines to standard output and flushes each, so screen readers and pipes see them at once.
package struct StandardOutput: LineOutput {
    package init() {}

    /// Writes `line` (cleaned of control characters, see `PlainText`) and a newline. A line that is one form feed
    /// alone stays one: it parts a document's pages in a transcript, as in a printer's text, and moves no cursor.
    package func writeLine(_ line: String) { write(line, tabs: false) }

    /// Writes `line` as `writeLine` does, its tabs kept (a transcript's table row).
    package func writeRow(_ line: String) { write(line, tabs: true) }

    private func write(_ line: String, tabs: Bool) {
        let data = Array(((line == "\u{0C}" ? line : PlainText.clean(line, keepingTabs: tabs)) + "\n").utf8)
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(1, base + offset, buffer.count - offset)
                if written <= 0 {
                    if written < 0 && errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

import Foundation

/// Prints spoken lines so that the screen is never more than one line ahead of the ear (issue 72).
///
/// A line that nothing waits for is printed at once. While a printed line is still waiting to be heard, the next
/// spoken line waits too, and is printed as soon as the one before starts to sound (or ends, or is dropped): the
/// screen then holds the line being heard and at most one after it. A line that starts to sound is printed at
/// once with every line before it, so the ear is never ahead of the screen either. Lines that are only shown
/// (never spoken) keep their place in the order and wait for nothing else.
package final class PacedLines: @unchecked Sendable {  // because: `waiting` and `unheard` are guarded by `lock`
    /// One line given to print. `toSay` until it starts to sound (`sounded`); `silent` when it never will (only
    /// shown, or dropped unheard: a hint replaced, a question answered), and then it waits for nothing.
    private struct Line {
        enum State { case toSay, sounded, silent }
        let ticket: Int
        let text: String
        let tabs: Bool
        var state: State
    }

    private let output: LineOutput
    private let lock = NSLock()
    /// Lines not yet printed, in the order they were given.
    private var waiting: [Line] = []
    /// Tickets of lines printed and not yet heard: at most one, but for lines put on the screen because a later
    /// one sounded first (an urgent line said before them).
    private var unheard = Set<Int>()
    private var nextTicket = 0

    package init(output: LineOutput) {
        self.output = output
    }

    /// Takes `text` to print; a spoken line's ticket is then given to `heard` once it starts to sound, or ends
    /// unheard. Prints what may be printed now (this line, when nothing printed is waiting to be heard). Any
    /// thread; the lines reach the output in the order given.
    @discardableResult
    package func add(_ text: String, tabs: Bool = false, spoken: Bool) -> Int {
        lock.withLock {
            nextTicket += 1
            waiting.append(Line(ticket: nextTicket, text: text, tabs: tabs, state: spoken ? .toSay : .silent))
            release()
            return nextTicket
        }
    }

    /// The line of `ticket` started to sound (`sounded`), or ended without a word heard: it and every line
    /// before it are printed once it sounds, and the next line may be. Told again, nothing changes. Any thread
    /// (the mixer's, for a word).
    package func heard(_ ticket: Int, sounded: Bool = true) {
        lock.withLock {
            if unheard.remove(ticket) == nil, let index = waiting.firstIndex(where: { $0.ticket == ticket }),
                waiting[index].state == .toSay
            {
                waiting[index].state = sounded ? .sounded : .silent
            }
            release()
        }
    }

    /// Prints every line still waiting (Assist is ending, or speech was silenced). Any thread.
    package func flush() {
        lock.withLock {
            for line in waiting { write(line) }
            waiting.removeAll()
            unheard.removeAll()
        }
    }

    /// Prints, in order, the lines that may be: all of them up to the last one that sounded, then the next ones
    /// while nothing printed waits to be heard. Called with `lock` held.
    private func release() {
        let lastSounded = waiting.lastIndex { $0.state == .sounded } ?? -1
        var printed = 0
        for (index, line) in waiting.enumerated() {
            guard index <= lastSounded || line.state != .toSay || unheard.isEmpty else { break }
            write(line)
            if line.state == .toSay { unheard.insert(line.ticket) }
            printed += 1
        }
        waiting.removeFirst(printed)
    }

    private func write(_ line: Line) {
        if line.tabs { output.writeRow(line.text) } else { output.writeLine(line.text) }
    }
}

/// The order in which utterances are spoken, under Speech Dispatcher's five priorities (SSIP):
/// - important: spoken next, after earlier important ones; a message or text that is speaking is postponed
///   and resumes later at its current word; notifications and progress are cancelled.
/// - message: after important and message; cancels notification and progress, speaking or waiting; a text
///   that is speaking is postponed and resumes later at its current word, and waiting texts wait on. (SSIP
///   cancels text here; Assist keeps a reading going, so a hint never silently ends it.)
/// - text: after important, message and text; cancels notification and progress.
/// - notification: spoken only when nothing speaks or waits, else dropped at once.
/// - progress: like notification, but the latest one is kept and spoken once the queue empties, so the last
///   report of a long task is always heard.
/// Pure value type; `SpeechService` holds it under its lock.
struct SpeechQueue {
    struct Entry {
        var id: UInt64
        var utterance: Utterance
        var callbacks: SpeechCallbacks
        /// Where speech starts, in characters (after a pause or postponement).
        var startCharacter = 0
    }

    /// What `admit` asks the service to do with the utterance that is speaking.
    enum Interruption {
        case none, cancel, postpone
    }

    private(set) var waiting: [Entry] = []
    private(set) var lastProgress: Entry?

    /// Adds `entry` given what is speaking. Returns the entries dropped (their callbacks report cancelled) and
    /// what to do with the one speaking.
    mutating func admit(_ entry: Entry, speaking: SpeechPriority?) -> (dropped: [Entry], interruption: Interruption) {
        let busy = speaking != nil || !waiting.isEmpty
        switch entry.utterance.priority {
        case .notification:
            guard !busy else { return ([entry], .none) }
            waiting.append(entry)
            return ([], .none)
        case .progress:
            guard busy else {
                waiting.append(entry)
                return ([], .none)
            }
            let replaced = lastProgress.map { [$0] } ?? []
            lastProgress = entry
            return (replaced, .none)
        case .important, .message, .text:
            let cancels: Set<SpeechPriority> = [.notification, .progress]
            var dropped = waiting.filter { cancels.contains($0.utterance.priority) }
            waiting.removeAll { cancels.contains($0.utterance.priority) }
            if let progress = lastProgress {
                dropped.append(progress)
                lastProgress = nil
            }
            let position = waiting.firstIndex { $0.utterance.priority > entry.utterance.priority } ?? waiting.count
            waiting.insert(entry, at: position)
            var interruption = Interruption.none
            if let speaking, cancels.contains(speaking) {
                interruption = .cancel
            } else if let speaking, speaking > entry.utterance.priority, entry.utterance.priority != .text {
                interruption = .postpone
            }
            return (dropped, interruption)
        }
    }

    /// Puts a postponed or paused entry back, ahead of everything of its priority or lower.
    mutating func putBack(_ entry: Entry) {
        let position = waiting.firstIndex { $0.utterance.priority >= entry.utterance.priority } ?? waiting.count
        waiting.insert(entry, at: position)
    }

    /// Takes the next entry whose owner is not paused; the kept progress report when nothing else waits.
    mutating func next(skippingOwners paused: Set<Int>) -> Entry? {
        next { paused.contains($0.utterance.owner) }
    }

    /// Takes the next entry not `held`; the kept progress report when nothing else waits and it is not held.
    mutating func next(skipping held: (Entry) -> Bool) -> Entry? {
        if let index = waiting.firstIndex(where: { !held($0) }) {
            return waiting.remove(at: index)
        }
        if waiting.isEmpty, let progress = lastProgress, !held(progress) {
            lastProgress = nil
            return progress
        }
        return nil
    }

    /// Removes and returns the entries matching `predicate` (for stop, cancel-mine and stop-all).
    mutating func remove(where predicate: (Entry) -> Bool) -> [Entry] {
        var removed = waiting.filter(predicate)
        waiting.removeAll(where: predicate)
        if let progress = lastProgress, predicate(progress) {
            removed.append(progress)
            lastProgress = nil
        }
        return removed
    }

    /// True when nothing waits.
    var isEmpty: Bool { waiting.isEmpty && lastProgress == nil }
}

extension SpeechQueue {
    /// Forgets the callbacks of `owner`'s entries.
    mutating func clearCallbacks(owner: Int) {
        for index in waiting.indices where waiting[index].utterance.owner == owner {
            waiting[index].callbacks = SpeechCallbacks()
        }
        if lastProgress?.utterance.owner == owner { lastProgress?.callbacks = SpeechCallbacks() }
    }
}

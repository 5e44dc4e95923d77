import Foundation
import Runtime

/// Runs the dialogs features open: one at a time, in order, each spoken and printed as plain lines, and
/// answered by keys, typed lines or voice.
///
/// Used only on the main loop.
package final class DialogEngine: @unchecked Sendable {  // because: used only on the main loop thread
    private struct Pending {
        let id: UInt64
        let owner: String
        let request: DialogRequest
        let completion: (DialogAnswer) -> Void
        /// Steps aside for any dialog opened while it waits (the shell's menu), and comes back after.
        var yields = false
        /// What h, F1, `?` and "help" say instead of the one-line hint (the shell's menu: its commands).
        var help: String?
        /// Said instead of a choice's prompt, choices and hint, which are shown only (the shell's menu come back
        /// to: the ear is not kept 20 s behind the screen); "repeat" reads them all.
        var brief: String?
    }

    let announcer: Announcer
    let phrases: PhraseBook
    private let loop: MainLoop
    private var queue: [Pending] = []
    private var current: Pending? {
        didSet {
            guard current?.id != oldValue?.id else { return }
            heard = nil
            questionObservers.forEach { $0(question) }
        }
    }
    /// A text question's answer said aloud, said back as "Did you say: …?" and awaiting yes or no (`propose`).
    private(set) var heard: String?
    private var questionObservers: [(DialogRequest?) -> Void] = []
    /// Tells `observer` the question now asked (nil: none), each time it changes: the console reads words
    /// while a menu is open, voice listens for yes or no while a confirm is asked. Main loop.
    package func observeQuestions(_ observer: @escaping (DialogRequest?) -> Void) {
        questionObservers.append(observer)
    }

    /// The question asked now, if any: while a spoken answer to a text question is said back, that yes-or-no
    /// question (keys and voice then answer it).
    package var question: DialogRequest? {
        if let heard, case .text = current?.request {
            return .confirm(
                prompt: phrases.text("voice.confirm-words", ["words": heard]), defaultYes: false, timeoutMs: 0)
        }
        return current?.request
    }

    /// Who asked the question asked now (a plugin's id, or the host's), and its id.
    package var questionOwner: String? { current?.owner }
    package var questionID: UInt64? { current?.id }

    /// Whether a text question may be answered aloud (voice is on, with dictation in its language): its hint
    /// says so. Set by the voice session.
    package var answersBySpeech = false
    var highlighted: Int?
    var typedDigits = ""
    private var timer: UInt64?
    private var digitTimer: UInt64?
    /// How long a first digit waits for a second on a list longer than nine before it is taken alone.
    /// How long a digit that could begin a longer number waits for the next (`shell.digit-wait-seconds`, 2 s:
    /// 1.5 s was too short for a person finding the second key).
    package var digitPauseMilliseconds: UInt32 = 2_000
    private var nextID: UInt64 = 1

    /// Creates an engine speaking through `announcer` with the host's `phrases`, using `loop` for timeouts.
    package init(announcer: Announcer, phrases: PhraseBook, loop: MainLoop) {
        self.announcer = announcer
        self.phrases = phrases
        self.loop = loop
    }

    /// Set when the input has ended (standard input closed): a dialog opened afterwards could never be
    /// answered, so it is cancelled at once rather than left waiting for ever.
    package var inputEnded = false

    /// True while a dialog waits for an answer.
    package var isActive: Bool { current != nil }

    /// True while a question is asked that is not the shell's menu (one that yields): what is typed or said
    /// then answers it, and never starts a feature behind it.
    package var isAskingQuestion: Bool { current.map { !$0.yields } ?? false }

    /// True while the current dialog wants a whole typed line rather than single keys.
    package var wantsLine: Bool {
        if case .text = question { return true }
        return false
    }

    /// True while the current dialog takes a secret that must not be echoed.
    package var isSecret: Bool {
        if case .text(_, .secret) = current?.request { return true }
        return false
    }

    /// Asks `question` first, yes or no with no as the default and no time limit: `action` runs only on yes;
    /// anything else (no, Escape, end of input) says "Not done.". For destructive or costly commands and for
    /// what voice heard that should not act unasked.
    package func askFirst(_ question: String, owner: String, then action: @escaping () -> Void) {
        open(.confirm(prompt: question, defaultYes: false, timeoutMs: 0), owner: owner) { [announcer, phrases] answer in
            if answer.status == .answered, answer.yes {
                action()
            } else {
                announcer.say(phrases.text("voice.not-done"), priority: .important)
            }
        }
    }

    /// Queues a dialog for `owner`; `completion` runs once on the main loop. Returns its id.
    /// With `yields`, the dialog steps aside for any dialog opened while it is shown and is asked again once
    /// those are answered (the shell's menu under a background feature's question).
    @discardableResult
    package func open(
        _ request: DialogRequest, owner: String, yields: Bool = false, help: String? = nil, brief: String? = nil,
        completion: @escaping (DialogAnswer) -> Void
    ) -> UInt64 {
        let id = nextID
        nextID += 1
        var pending = Pending(id: id, owner: owner, request: request, completion: completion)
        pending.help = help
        pending.brief = brief
        if inputEnded {
            queue.append(pending)
            loop.post { [self] in cancel(id) }
            return id
        }
        pending.yields = yields
        if let shown = current, shown.yields {
            // The waiting menu goes back to the front of the queue, unanswered; the new question is asked now.
            if let timer { loop.cancelTimer(timer) }
            timer = nil
            current = nil
            queue.insert(shown, at: 0)
            queue.insert(pending, at: 0)
            presentNext()
            return id
        }
        // A menu waiting to be asked again (it yielded) keeps stepping aside: a new question goes before it,
        // even one asked from the completion of the question it yielded to.
        if !yields, let waiting = queue.firstIndex(where: \.yields) {
            queue.insert(pending, at: waiting)
        } else {
            queue.append(pending)
        }
        if current == nil { presentNext() }
        return id
    }

    /// Withdraws dialog `id`; its completion runs with `.cancelled`. Returns false for an unknown id.
    @discardableResult
    package func cancel(_ id: UInt64) -> Bool {
        if current?.id == id {
            finish(status: .cancelled, index: nil, yes: nil, text: nil)
            return true
        }
        guard let index = queue.firstIndex(where: { $0.id == id }) else { return false }
        let pending = queue.remove(at: index)
        pending.completion(Self.answer(pending, status: .cancelled, index: nil, yes: nil, text: nil))
        return true
    }

    /// Withdraws every dialog of `owner`, as when its feature stops.
    package func cancelAll(owner: String) {
        for pending in queue where pending.owner == owner { cancel(pending.id) }
        if current?.owner == owner, let id = current?.id { cancel(id) }
    }

    /// Says the current question again.
    package func repeatPrompt() {
        guard let current else { return }
        present(current, whole: true)
    }

    /// Offers an input event to the current dialog; returns true when the dialog used it.
    package func handle(_ event: InputEvent) -> Bool {
        guard let current else { return false }
        // What is still to be said of the hints is stale once another key comes: its answer ("Choose a number
        // from 1 to 6.") is heard at once, not behind a hint stray keys left (issue 72: 7.5 s after 20 of them).
        // So is the greeting: a person who presses a key has moved on.
        announcer.cancel(.hint)
        announcer.cancel(.greeting)
        switch current.request {
        case .choice(_, let choices, let defaultIndex):
            handleChoice(event, choices: choices, defaultIndex: defaultIndex)
        case .confirm(_, let defaultYes, _):
            handleConfirm(event, defaultYes: defaultYes)
        case .text:
            if let heard { handleHeard(event, heard) } else { handleText(event) }
        }
        return true
    }

    /// The answer to the text question asked, as voice heard it: said back as a question first, and given only
    /// after yes; no asks for it again (docs/voice.md). A secret is never taken aloud, and a number question
    /// takes a number said in words. Main loop.
    package func propose(_ text: String) {
        guard case .text(_, let kind) = current?.request, kind != .secret, kind != .email else { return }
        var answer = text.trimmingCharacters(in: .whitespaces)
        if kind == .number {
            guard let number = NumberWords.value(CommandRouter.normalise(answer)) else {
                announcer.say(phrases.text("dialog.text-again"), group: .question)
                return
            }
            answer = String(number)
        }
        guard !answer.isEmpty else { return }
        heard = answer
        questionObservers.forEach { $0(question) }
        if case .confirm(let prompt, _, _)? = question { announcer.say(prompt, remember: true, group: .question) }
    }

    /// Yes gives the heard answer; no forgets it and asks again; a typed line is the answer as typed.
    private func handleHeard(_ event: InputEvent, _ heard: String) {
        if case .line(let typed) = event, yesOrNo(typed) == nil, !isCommon(typed) {
            let trimmed = typed.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { return finish(status: .answered, index: nil, yes: nil, text: trimmed) }
        }
        switch answerYesOrNo(event, defaultYes: false) {
        case true?:
            finish(status: .answered, index: nil, yes: nil, text: heard)
        case false?:
            self.heard = nil
            announcer.cancel(.question)
            questionObservers.forEach { $0(question) }
            announcer.say(phrases.text("dialog.text-again"), group: .question)
        case nil:
            break
        }
    }

    // MARK: - Presenting

    private func presentNext() {
        guard current == nil, !queue.isEmpty else { return }
        let next = queue.removeFirst()
        current = next
        highlighted = nil
        typedDigits = ""
        cancelDigitPause()
        present(next)
        if case .confirm(_, _, let timeoutMs) = next.request, timeoutMs > 0 {
            let id = next.id
            timer = loop.addTimer(milliseconds: timeoutMs, repeating: false) { [weak self] in
                self?.timeout(id)
            }
        }
    }

    /// Runs `take` after `digitPauseMilliseconds` unless another digit, Enter or the next dialog comes first.
    func takeDigitsAfterAPause(_ take: @escaping () -> Void) {
        cancelDigitPause()
        let id = current?.id
        nonisolated(unsafe) let action = take  // because: the timer fires on the main loop, as every call here
        digitTimer = loop.addTimer(milliseconds: digitPauseMilliseconds, repeating: false) { [weak self] in
            guard let self, self.current?.id == id else { return }
            self.digitTimer = nil
            action()
        }
    }

    func cancelDigitPause() {
        if let digitTimer { loop.cancelTimer(digitTimer) }
        digitTimer = nil
    }

    private func present(_ pending: Pending, whole: Bool = false) {
        // Said as one question: once it is answered, what is left of it is not said.
        func say(_ text: String, remember: Bool = false) {
            announcer.say(text, remember: remember, group: .question)
        }
        // Its hint is one with the hints stray keys bring: a stray key's takes its place, never queues behind it.
        func hint(_ text: String) {
            announcer.say(text, remember: false, group: .hint)
        }
        switch pending.request {
        case .choice(let prompt, let choices, _) where pending.brief != nil && !whole:
            announcer.show(prompt)
            for (index, choice) in choices.enumerated() { announcer.show("\(index + 1). \(choice)") }
            say(pending.brief ?? "", remember: true)
        case .choice(let prompt, let choices, _):
            say(prompt, remember: true)
            for (index, choice) in choices.enumerated() { say("\(index + 1). \(choice)") }
            hint(phrases.text("dialog.choice-hint", ["count": String(choices.count)]))
        case .confirm(let prompt, let defaultYes, _):
            say(prompt, remember: true)
            hint(phrases.text(defaultYes ? "dialog.confirm-hint-yes" : "dialog.confirm-hint-no"))
        case .text(_, let kind) where heard != nil && kind != .secret:
            if case .confirm(let prompt, _, _)? = question { say(prompt, remember: true) }
            hint(phrases.text("dialog.confirm-hint-no"))
        case .text(let prompt, let kind):
            say(prompt, remember: true)
            let spoken = answersBySpeech && kind != .email
            let key =
                kind == .secret ? "dialog.text-hint-secret" : spoken ? "dialog.text-hint-voice" : "dialog.text-hint"
            hint(phrases.text(key))
        }
    }

    private func timeout(_ id: UInt64) {
        guard current?.id == id, case .confirm(_, let defaultYes, _) = current?.request else { return }
        timer = nil
        announcer.say(phrases.text(defaultYes ? "dialog.timeout-yes" : "dialog.timeout-no"))
        finish(status: .timedOut, index: nil, yes: defaultYes, text: nil)
    }

    func finish(status: DialogStatus, index: Int?, yes: Bool?, text: String?) {
        guard let done = current else { return }
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        current = nil
        announcer.cancel(.question)
        // An answer ends what was still to be said of the hints and the greeting: what follows it is heard at once.
        announcer.cancel(.hint)
        announcer.cancel(.greeting)
        done.completion(Self.answer(done, status: status, index: index, yes: yes, text: text))
        presentNext()
    }

    private static func answer(_ pending: Pending, status: DialogStatus, index: Int?, yes: Bool?, text: String?)
        -> DialogAnswer
    {
        var fallbackYes = false
        if case .confirm(_, let defaultYes, _) = pending.request { fallbackYes = defaultYes }
        return DialogAnswer(request: pending.id, status: status, index: index, yes: yes ?? fallbackYes, text: text)
    }

    /// Help asked for at a question: its own help, one line at a time and remembered for "repeat", said at once
    /// (the question's reading stops), or the hint.
    func sayHelp(_ hint: String) {
        guard let help = current?.help else { return announcer.say(hint, remember: false, group: .hint) }
        // Asked for, it comes at once: what was left of the question's reading stops (Control R reads it again).
        announcer.cancel(.question)
        announcer.cancel(.hint)
        // Said as part of the question: its answer stops what is left of it.
        for line in help.split(separator: "\n") { announcer.say(String(line), group: .question) }
    }

    /// Whether the question shown has help of its own (then h asks for it where no choice has that letter).
    var hasOwnHelp: Bool { current?.help != nil }

    /// The shared answers to "cancel", "repeat" and "help" inside any dialog; true when handled.
    func handleCommon(_ event: InputEvent, hint: String) -> Bool {
        switch event {
        case .key(.escape), .endOfInput:
            finish(status: .cancelled, index: nil, yes: nil, text: nil)
            return true
        case .key(.control("r")), .key(.character("r")):
            // Ctrl+R on a terminal (letters type words there); r where each line is one key.
            repeatPrompt()
            return true
        case .key(.function(1)), .key(.character("?")):
            sayHelp(hint)
            return true
        case .line(let text), .phrase(let text):
            let words = CommandRouter.normalise(text)
            if words == "cancel" || words == phrases.text("dialog.word-cancel") {
                finish(status: .cancelled, index: nil, yes: nil, text: nil)
                return true
            }
            if words == "repeat" || words == phrases.text("dialog.word-repeat") {
                repeatPrompt()
                return true
            }
            if words == "help" || words == "?" || words == phrases.text("dialog.word-help")
                || (words == "h" && hasOwnHelp)
            {
                sayHelp(hint)
                return true
            }
            // "Stop" said while the question is read (over it, docs/voice.md "Barge-in") stops the talking; the
            // question stays, for an answer or "cancel". Typed, it is an answer like any other.
            if case .phrase = event, words == "stop" || words == phrases.text("dialog.word-stop") {
                announcer.silence()
                return true
            }
            return false
        default:
            return false
        }
    }
}

import Foundation
import HostTesting
import Interaction
import Runtime
import Speech
import Testing

@Suite("Dialogs")
struct DialogEngineTests {
    let loop = MainLoop()
    let output = RecordingOutput()
    let engine: DialogEngine
    let answers = AnswerLog()

    init() {
        let phrases = PhraseBook(
            directory: BuildProducts.packageRoot.appendingPathComponent("share/assist/host"), language: "en")
        engine = DialogEngine(
            announcer: Announcer(output: output, speaker: nil, language: "en"), phrases: phrases, loop: loop)
    }

    private func open(_ request: DialogRequest) -> UInt64 {
        let answers = self.answers
        return engine.open(request, owner: "test") { answers.append($0) }
    }

    @Test func choicesArePrintedAsNumberedLines() {
        _ = open(.choice(prompt: "Which?", choices: ["Tea", "Coffee"], defaultIndex: nil))
        #expect(output.lines.prefix(3) == ["Which?", "1. Tea", "2. Coffee"])
        #expect(engine.handle(.key(.character("2"))))
        #expect(answers.all.map(\.index) == [1])
    }

    @Test func aChoiceWrittenWithALetterIsPickedByThatKey() {
        _ = open(.choice(prompt: "Photo sensor.", choices: ["S: status", "T: stop", "Y: sync now"], defaultIndex: nil))
        #expect(engine.handle(.key(.character("y"))))
        #expect(answers.all.map(\.index) == [2])
        _ = open(.choice(prompt: "Again.", choices: ["S: status", "T: stop"], defaultIndex: nil))
        _ = engine.handle(.line("T"))
        _ = engine.handle(.key(.character("q")))  // no such letter: the hint, no answer
        #expect(answers.all.map(\.index) == [2, 1])
    }

    /// "Continue? 1. Yes 2. No" (the survey's, the forget question's "No, Yes") takes Y and N as a yes-or-no
    /// question does (issue 72, item 8: y did nothing); other choices of two do not.
    @Test func aChoiceOfYesAndNoTakesYAndN() {
        _ = open(.choice(prompt: "Continue?", choices: ["Yes", "No"], defaultIndex: 0))
        #expect(engine.handle(.key(.character("n"))))
        _ = open(.choice(prompt: "Delete?", choices: ["No", "Yes"], defaultIndex: 0))
        #expect(engine.handle(.key(.character("y"))))
        _ = open(.choice(prompt: "Which?", choices: ["Tea", "Coffee"], defaultIndex: nil))
        _ = engine.handle(.key(.character("y")))
        #expect(answers.all.map(\.index) == [1, 1])
    }

    /// The shell's menu steps aside for a question a background feature asks, and is asked again after.
    @Test func aYieldingMenuStepsAsideAndComesBack() {
        let answers = self.answers
        _ = engine.open(
            .choice(prompt: "Choose a feature.", choices: ["Clock", "Quit"], defaultIndex: nil),
            owner: "host", yields: true
        ) { answers.append($0) }
        _ = open(.confirm(prompt: "Sync now?", defaultYes: false, timeoutMs: 0))
        #expect(output.lines.last == "Sync now?" || output.lines.contains("Sync now?"))
        _ = engine.handle(.key(.character("y")))
        #expect(answers.all.map(\.yes) == [true], "the question was answered, the menu was not")
        #expect(output.lines.filter { $0 == "Choose a feature." }.count == 2, "the menu is asked again")
        _ = engine.handle(.key(.character("1")))
        #expect(answers.all.map(\.index) == [nil, 0])
    }

    /// By voice, as the survey's long lists are answered: a number said as words, a label, an ordinal; a label
    /// that is itself a number word is that label.
    @Test func aChoiceIsPickedByItsNumberInWordsOrItsLabel() {
        let conditions = (1...16).map { "Condition \($0)" }.replacingElement(at: 13, with: "Diabetes")
        _ = open(.choice(prompt: "Which?", choices: conditions, defaultIndex: nil))
        _ = engine.handle(.phrase("fourteen"))
        _ = open(.choice(prompt: "Which?", choices: conditions, defaultIndex: nil))
        _ = engine.handle(.phrase("number twelve"))
        _ = open(.choice(prompt: "Which?", choices: conditions, defaultIndex: nil))
        _ = engine.handle(.phrase("diabetes"))
        _ = open(.choice(prompt: "Which?", choices: ["Tea", "Coffee", "Water"], defaultIndex: nil))
        _ = engine.handle(.phrase("the second one"))
        _ = open(.choice(prompt: "Which?", choices: ["Tea", "Coffee", "Water"], defaultIndex: nil))
        _ = engine.handle(.phrase("the last one"))
        _ = open(.choice(prompt: "How often?", choices: ["Never", "One", "Two or more"], defaultIndex: nil))
        _ = engine.handle(.phrase("one"))
        #expect(answers.all.map(\.index) == [13, 11, 13, 1, 2, 1])
        _ = open(.choice(prompt: "Which?", choices: ["Tea", "Coffee"], defaultIndex: nil))
        _ = engine.handle(.phrase("twenty one"))
        #expect(answers.all.count == 6, "out of range: asked again, not answered")
        #expect(output.lines.last?.contains("2") == true, "\(output.lines.suffix(2))")
    }

    @Test func digitsWaitWhenMoreThanNineChoices() {
        _ = open(.choice(prompt: "Which?", choices: (1...12).map { "Item \($0)" }, defaultIndex: nil))
        _ = engine.handle(.key(.character("1")))
        #expect(answers.all.isEmpty)
        _ = engine.handle(.key(.character("2")))
        #expect(answers.all.map(\.index) == [11])
    }

    /// A script's last line, "1", on a list of twelve: the input ends while the digit waits, and it is the
    /// answer (the shell's menu of ten features on a pipe chose nothing and quit).
    @Test func aDigitWaitingWhenTheInputEndsIsTheAnswer() {
        _ = open(.choice(prompt: "Which?", choices: (1...12).map { "Item \($0)" }, defaultIndex: nil))
        _ = engine.handle(.key(.character("1")))
        #expect(answers.all.isEmpty)
        _ = engine.handle(.endOfInput)
        #expect(answers.all.map(\.index) == [0])
        #expect(answers.all.map(\.status) == [.answered])
    }

    /// A lone digit that could begin a longer number is taken after a pause; one that cannot, and 0, at once.
    @Test func aLoneFirstDigitIsTakenAfterAPause() {
        _ = open(.choice(prompt: "Which?", choices: (1...12).map { "Item \($0)" }, defaultIndex: nil))
        _ = engine.handle(.key(.character("1")))
        #expect(answers.all.isEmpty, "1 may begin 10, 11 or 12")
        let answers = self.answers
        _ = loop.run(until: { !answers.all.isEmpty }, timeoutSeconds: 5)
        #expect(answers.all.map(\.index) == [0], "taken alone after the pause")
        _ = open(.choice(prompt: "Again?", choices: (1...12).map { "Item \($0)" }, defaultIndex: nil))
        _ = engine.handle(.key(.character("3")))
        #expect(answers.all.map(\.index) == [0, 2], "3 cannot begin a number up to 12")
    }

    @Test func arrowsSpeakPositionAndEnterPicks() {
        _ = open(.choice(prompt: "Which?", choices: ["Tea", "Coffee", "Water"], defaultIndex: 0))
        _ = engine.handle(.key(.down))
        _ = engine.handle(.key(.down))
        #expect(output.lines.last == "Coffee, 2 of 3")
        _ = engine.handle(.key(.enter))
        #expect(answers.all.map(\.index) == [1])
    }

    /// Voice has no arrows: "next …" and "previous …" move like Down and Up unless they name a choice.
    @Test func nextAndPreviousWordsMoveLikeArrows() {
        _ = open(.choice(prompt: "Mug.", choices: ["Slot 1", "Slot 2", "Next steps"], defaultIndex: nil))
        _ = engine.handle(.phrase("next slot"))
        #expect(output.lines.last == "Slot 1, 1 of 3")
        _ = engine.handle(.phrase("next slot"))
        _ = engine.handle(.phrase("previous slot"))
        #expect(output.lines.last == "Slot 1, 1 of 3")
        #expect(answers.all.isEmpty)
        _ = engine.handle(.phrase("next steps"))
        #expect(answers.all.map(\.index) == [2], "a choice the words name wins")
    }

    @Test func wordsAndOutOfRange() {
        _ = open(.choice(prompt: "Which?", choices: ["Green tea", "Coffee"], defaultIndex: nil))
        _ = engine.handle(.line("9"))
        #expect(output.lines.last == "Choose a number from 1 to 2.")
        _ = engine.handle(.line("green"))
        #expect(answers.all.map(\.index) == [0])
    }

    @Test func typedLettersFilterALongList() {
        let choices =
            ["cup", "wine glass", "bowl", "cake", "potted plant", "hot dog", "dog", "teddy bear", "bear"]
            + (1...12).map { "thing \($0)" }
        _ = open(.choice(prompt: "Which?", choices: choices, defaultIndex: nil))
        _ = engine.handle(.line("dog"))
        #expect(answers.all.map(\.index) == [6], "an exact name wins over a longer one containing it")
        _ = open(.choice(prompt: "Which?", choices: choices, defaultIndex: nil))
        _ = engine.handle(.line("plant"))
        #expect(answers.all.map(\.index) == [6, 4], "the only one containing it")
        _ = open(.choice(prompt: "Which?", choices: choices, defaultIndex: nil))
        _ = engine.handle(.line("ea"))
        #expect(Array(output.lines.suffix(3)) == ["2 contain ea; say or type the number:", "8. teddy bear", "9. bear"])
        _ = engine.handle(.line("thing"))
        #expect(output.lines.last == "12 of the 21 contain thing. Type more letters, or a number.")
        _ = engine.handle(.line("zebra"))
        #expect(output.lines.last == "Nothing matches zebra. Choose a number from 1 to 21.")
        _ = engine.handle(.line("9"))
        #expect(answers.all.map(\.index) == [6, 4, 8])
    }

    @Test func confirmDefaultsAndQueue() {
        _ = open(.confirm(prompt: "Delete it?", defaultYes: false, timeoutMs: 0))
        _ = open(.confirm(prompt: "Really?", defaultYes: true, timeoutMs: 0))
        #expect(!output.lines.contains("Really?"))
        _ = engine.handle(.key(.enter))
        #expect(output.lines.contains("Really?"))
        _ = engine.handle(.line("no"))
        #expect(answers.all.map(\.yes) == [false, false])
        #expect(answers.all.map(\.status) == [.answered, .answered])
    }

    @Test func confirmTimesOutToTheSafeDefault() {
        _ = open(.confirm(prompt: "Delete it?", defaultYes: false, timeoutMs: 30))
        let answers = self.answers
        let answered = loop.run(until: { !answers.all.isEmpty }, timeoutSeconds: 2)
        #expect(answered)
        #expect(answers.all.first?.status == .timedOut)
        #expect(answers.all.first?.yes == false)
        #expect(output.lines.last == "No answer, so no.")
    }

    @Test func textAndSecretText() {
        _ = open(.text(prompt: "Email?", kind: .email))
        #expect(engine.wantsLine)
        #expect(!engine.isSecret)
        _ = engine.handle(.line("  me@example.org "))
        _ = open(.text(prompt: "Password?", kind: .secret))
        #expect(engine.isSecret)
        _ = engine.handle(.line("hunter2"))
        #expect(answers.all.map(\.text) == ["me@example.org", "hunter2"])
        #expect(!output.lines.contains { $0.contains("hunter2") })
    }

    /// A text question answered aloud (docs/voice.md): what voice heard is said back as a yes-or-no question,
    /// which keys and voice then answer; yes gives it, no asks again, a typed line is the answer as typed. A
    /// secret is never taken aloud; a number question takes a number said in words.
    @Test func aSpokenAnswerToATextQuestionIsSaidBackAndGivenOnlyAfterYes() {
        var asked: [DialogRequest?] = []
        engine.observeQuestions { asked.append($0) }
        engine.answersBySpeech = true
        _ = open(.text(prompt: "What should I find?", kind: .plain))
        #expect(
            output.lines.suffix(2) == [
                "What should I find?", "Say your answer, or type it and press Enter. Escape cancels.",
            ])
        engine.propose("cop")
        #expect(output.lines.last == "Did you say: cop?")
        #expect(!engine.wantsLine, "Y and N answer at once")
        #expect(asked.last == .confirm(prompt: "Did you say: cop?", defaultYes: false, timeoutMs: 0))
        _ = engine.handle(.phrase("no"))
        #expect(output.lines.last == "Say it again, or type it and press Enter.")
        #expect(engine.wantsLine && answers.all.isEmpty)
        #expect(asked.last == .text(prompt: "What should I find?", kind: .plain))
        _ = engine.handle(.phrase("repeat"))
        #expect(output.lines.last == "Say your answer, or type it and press Enter. Escape cancels.")
        _ = engine.handle(.phrase("stop"))
        #expect(answers.all.isEmpty, "stop said aloud silences; it is no answer")
        engine.propose("cup")
        _ = engine.handle(.key(.character("y")))
        _ = open(.text(prompt: "Name?", kind: .plain))
        engine.propose("my keys")
        _ = engine.handle(.line("my red keys"))
        _ = open(.text(prompt: "Password?", kind: .secret))
        engine.propose("hunter two")
        #expect(engine.isSecret && !output.lines.contains { $0.contains("hunter") })
        _ = engine.handle(.key(.escape))
        _ = open(.text(prompt: "How old are you?", kind: .number))
        engine.propose("forty two")
        #expect(output.lines.last == "Did you say: 42?")
        _ = engine.handle(.phrase("yes"))
        #expect(answers.all.map(\.text) == ["cup", "my red keys", nil, "42"])
        #expect(answers.all.map(\.status) == [.answered, .answered, .cancelled, .answered])
        #expect(asked.last == .some(nil), "no question is left")
    }

    @Test func cancelByIdAndByEscape() {
        let first = open(.choice(prompt: "A?", choices: ["x"], defaultIndex: nil))
        #expect(engine.cancel(first))
        _ = open(.choice(prompt: "B?", choices: ["x"], defaultIndex: nil))
        _ = engine.handle(.key(.escape))
        #expect(answers.all.map(\.status) == [.cancelled, .cancelled])
        #expect(!engine.isActive)
    }
}

final class AnswerLog: @unchecked Sendable {  // because: `stored` is guarded by `lock`
    private let lock = NSLock()
    private var stored: [DialogAnswer] = []

    func append(_ answer: DialogAnswer) {
        lock.lock()
        stored.append(answer)
        lock.unlock()
    }

    var all: [DialogAnswer] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

extension Array {
    fileprivate func replacingElement(at index: Int, with element: Element) -> [Element] {
        var copy = self
        copy[index] = element
        return copy
    }
}

@Suite("Numbers said in words")
struct NumberWordsTests {
    @Test func wordsDigitsAndOrdinals() {
        #expect(NumberWords.value("fourteen") == 14)
        #expect(NumberWords.value("twenty one") == 21)
        #expect(NumberWords.value("twenty-one") == 21)
        #expect(NumberWords.value("ninety") == 90)
        #expect(NumberWords.value("number 7") == 7)
        #expect(NumberWords.value("option three") == 3)
        #expect(NumberWords.value("the third one") == 3)
        #expect(NumberWords.value("the last one", last: 9) == 9)
        #expect(NumberWords.value("the last one") == nil)
        #expect(NumberWords.value("tea") == nil)
        #expect(NumberWords.value("one two three") == nil)
        #expect(NumberWords.value("twenty twelve") == nil)
        #expect(NumberWords.value("") == nil)
        #expect((0...99).allSatisfy { NumberWords.value(NumberWords.spoken($0) ?? "") == $0 })
        #expect(NumberWords.spoken(100) == nil)
    }
}

/// What would still be heard, kept as the speech queue keeps it: a new utterance of a replacing group takes the
/// place of the one before, and `cancel` removes a group. Nothing is ever spoken, so the queue shows what a
/// listener is behind by.
final class QueueSpeaker: Speaker, @unchecked Sendable {  // because: `queued` is guarded by `lock`
    private let lock = NSLock()
    private var queued: [(text: String, group: SpeechGroup?)] = []

    func speak(_ text: String, language: String, priority: SpeechPriority, group: SpeechGroup?) {
        lock.withLock {
            if let group, group.replaces { queued.removeAll { $0.group == group } }
            queued.append((text, group))
        }
    }
    func cancel(group: SpeechGroup) { lock.withLock { queued.removeAll { $0.group == group } } }
    func stopAll() { lock.withLock { queued.removeAll() } }
    func drain(timeoutSeconds: Double) {}
    var waiting: [String] { lock.withLock { queued.map(\.text) } }
}

/// Issue 72: stray keys at a menu never pile hints up ahead of the answer to the next real key.
@Suite("Hints keep up")
struct HintTests {
    let loop = MainLoop()
    let output = RecordingOutput()
    let speaker = QueueSpeaker()
    let phrases = PhraseBook(
        directory: BuildProducts.packageRoot.appendingPathComponent("share/assist/host"), language: "en")
    var engine: DialogEngine {
        DialogEngine(
            announcer: Announcer(output: output, speaker: speaker, language: "en"), phrases: phrases, loop: loop)
    }

    @Test func strayKeysLeaveOneHintAndAnAnswerCancelsIt() {
        let engine = self.engine
        let answers = AnswerLog()
        _ = engine.open(
            .choice(prompt: "Choose a feature.", choices: (1...8).map { "Feature \($0)" }, defaultIndex: nil),
            owner: "host"
        ) { answers.append($0) }
        let asked = speaker.waiting.count
        for _ in 0..<20 { _ = engine.handle(.key(.function(2))) }
        let hint = phrases.text("dialog.choice-hint", ["count": "8"])
        #expect(speaker.waiting.filter { $0 == hint }.count == 1, "one hint waits, not 20: \(speaker.waiting)")
        #expect(speaker.waiting.count == asked, "the question's own hint was replaced, nothing added")
        #expect(output.lines.filter { $0 == hint }.count == 1, "printed once: \(output.lines)")
        _ = engine.handle(.key(.character("5")))
        #expect(answers.all.map(\.index) == [4])
        #expect(!speaker.waiting.contains(hint), "the answer cancels the hint: \(speaker.waiting)")
    }

    /// A key that is answered without ending the question (a number past the list) is heard at once too: the
    /// hint stray keys left is dropped first (the terminal bench heard the answer 7.5 s late after 20 F2s).
    @Test func anAnswerThatKeepsTheQuestionCancelsTheHintToo() {
        let engine = self.engine
        _ = engine.open(
            .choice(prompt: "Choose a feature.", choices: (1...6).map { "Feature \($0)" }, defaultIndex: nil),
            owner: "host"
        ) { _ in }
        for _ in 0..<20 { _ = engine.handle(.key(.function(2))) }
        let hint = phrases.text("dialog.choice-hint", ["count": "6"])
        #expect(speaker.waiting.contains(hint))
        _ = engine.handle(.key(.character("9")))
        let answer = phrases.text("dialog.out-of-range", ["count": "6"])
        #expect(!speaker.waiting.contains(hint), "\(speaker.waiting)")
        #expect(speaker.waiting.last == answer, "\(speaker.waiting)")
    }

    /// A question with help of its own (the shell's menu) reads it, line by line, for F1, `?`, h and "help";
    /// one without says its hint.
    @Test func aQuestionsOwnHelpIsReadForEveryWayOfAsking() {
        let engine = self.engine
        _ = engine.open(
            .choice(prompt: "Choose a feature.", choices: ["Clock", "Quit"], defaultIndex: nil), owner: "host",
            help: "First line of help.\nHelp tutorial is named here."
        ) { _ in }
        for event: InputEvent in [.key(.function(1)), .key(.character("?")), .key(.character("h")), .line("help")] {
            let before = output.lines.count
            _ = engine.handle(event)
            #expect(
                Array(output.lines.dropFirst(before)) == ["First line of help.", "Help tutorial is named here."],
                "\(event): \(output.lines)")
        }
        _ = engine.handle(.key(.escape))
        _ = engine.open(.choice(prompt: "Which?", choices: ["Tea", "Coffee"], defaultIndex: nil), owner: "x") { _ in }
        _ = engine.handle(.key(.character("?")))
        #expect(output.lines.last == phrases.text("dialog.choice-hint", ["count": "2"]))
    }

    /// Issue 72: a menu come back to is shown whole and said in one line, not read again item by item with its
    /// hint (20 s every return from a feature); "repeat" reads it whole, and it answers as before.
    @Test func aMenuComeBackToIsSaidInALine() {
        let engine = self.engine
        let answers = AnswerLog()
        let choices = (1...8).map { "Feature \($0)" }
        let brief = phrases.text("shell.menu-again", ["count": "8"])
        _ = engine.open(
            .choice(prompt: "Choose a feature.", choices: choices, defaultIndex: nil), owner: "host", brief: brief
        ) { answers.append($0) }
        #expect(speaker.waiting == [brief], "only the line is heard: \(speaker.waiting)")
        #expect(output.lines == ["Choose a feature."] + choices.enumerated().map { "\($0 + 1). \($1)" } + [brief])
        _ = engine.handle(.key(.control("r")))
        #expect(
            speaker.waiting.contains("8. Feature 8") && speaker.waiting.contains("Choose a feature."),
            "\(speaker.waiting)")
        _ = engine.handle(.key(.character("3")))
        #expect(answers.all.map(\.index) == [2])
    }
}

/// A line said in another language than the session's (a new language's confirmation) goes to speech in that
/// language, and is printed as any other line (issue 72: it was spoken in the old language).
@Suite("a line in another language")
struct AnnouncerLanguageTests {
    @Test func aLineGivenALanguageIsSpokenInIt() {
        let output = RecordingOutput()
        let speaker = RecordingSpeaker()
        let announcer = Announcer(output: output, speaker: speaker, language: "en")
        announcer.say("Language: Spanish.")
        announcer.say("Idioma: español.", language: "es")
        #expect(speaker.spoken == ["Language: Spanish.", "Idioma: español."])
        #expect(speaker.languages == ["en", "es"])
        #expect(output.lines == ["Language: Spanish.", "Idioma: español."])
    }
}

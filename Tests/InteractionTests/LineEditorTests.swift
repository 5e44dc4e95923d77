import Interaction
import Testing

/// Typed words and single keys together, as a terminal's keys are read in each mode.
@Suite("Typing on a terminal")
struct LineEditorTests {
    /// The events `keys` give, one at a time, ignoring what is shown.
    static func events(_ editor: inout LineEditor, _ keys: [Key], at now: Double = 0) -> [InputEvent] {
        keys.flatMap { editor.take($0, at: now) }.compactMap { output in
            if case .event(let event) = output { return event }
            return nil
        }
    }

    static func keys(_ text: String) -> [Key] { text.map { $0 == " " ? .space : .character($0) } }

    @Test func atAMenuLettersTypeAWordAndEnterSendsIt() {
        var editor = LineEditor(mode: .words(instant: []))
        let events = Self.events(&editor, Self.keys("survey") + [.enter])
        #expect(events.last == .line("survey"))
        #expect(
            events.dropLast()
                == Self.keys("survey").compactMap { key in
                    if case .character(let char) = key { return .typing(.added(char)) }
                    return nil
                })
        #expect(!editor.isTyping)
    }

    @Test func atAMenuDigitsArrowsAndEscapeStayKeysUntilSomethingIsTyped() {
        var editor = LineEditor(mode: .words(instant: []))
        #expect(
            Self.events(&editor, [.character("2"), .down, .escape, .space]) == [
                .key(.character("2")), .key(.down), .key(.escape), .key(.space),
            ])
        // Once typing, a space is part of the phrase and a digit too.
        #expect(Self.events(&editor, Self.keys("what time is it 2") + [.enter]).last == .line("what time is it 2"))
    }

    @Test func backspaceEditsAndOnAnEmptyLineClosesIt() {
        var editor = LineEditor(mode: .words(instant: []))
        let events = Self.events(&editor, Self.keys("sux") + [.backspace] + Self.keys("rvey") + [.enter])
        #expect(events.contains(.typing(.removed("x"))))
        #expect(events.last == .line("survey"))
        #expect(Self.events(&editor, [.character("a"), .backspace, .backspace]).last == .typing(.closed))
        #expect(!editor.isTyping)
        #expect(Self.events(&editor, [.escape]) == [.key(.escape)], "with nothing typed, Escape is Escape")
    }

    @Test func escapeWhileTypingClearsTheLineWithoutLeaving() {
        var editor = LineEditor(mode: .words(instant: []))
        #expect(Self.events(&editor, Self.keys("quit") + [.escape]).last == .typing(.closed))
        #expect(Self.events(&editor, [.enter]) == [.key(.enter)])
    }

    @Test func insideAFeatureLettersAreKeysAndSlashOpensACommandLine() {
        var editor = LineEditor(mode: .keys)
        #expect(
            Self.events(&editor, [.character("p"), .character("s")]) == [.key(.character("p")), .key(.character("s"))])
        let events = Self.events(&editor, [LineEditor.commandKey] + Self.keys("stop") + [.enter])
        #expect(events.first == .typing(.opened))
        #expect(events.last == .line("stop"))
        #expect(Self.events(&editor, [.character("p")]) == [.key(.character("p"))], "the line closed after Enter")
        #expect(Self.events(&editor, [LineEditor.commandKey, .enter]).last == .typing(.closed), "nothing typed")
    }

    @Test func yesAndNoAnswerAtOnceAndTheRestOfTheWordBelongsToThem() {
        var editor = LineEditor(mode: .words(instant: ["y", "n"]))
        #expect(Self.events(&editor, [.character("y")], at: 10) == [.key(.character("y"))])
        editor.mode = .words(instant: [])
        // "yes" and Enter typed on: nothing more reaches the menu that follows.
        #expect(Self.events(&editor, [.character("e"), .character("s"), .enter], at: 10.3).isEmpty)
        #expect(Self.events(&editor, [.character("s")], at: 10.5) == [.typing(.added("s"))])
        var late = LineEditor(mode: .words(instant: ["y", "n"]))
        _ = Self.events(&late, [.character("n")], at: 0)
        #expect(Self.events(&late, [.character("o")], at: 5) == [.typing(.added("o"))], "long after, a word begins")
    }

    @Test func aSecretIsNeitherShownNorEchoed() {
        var editor = LineEditor(mode: .line(secret: true))
        let outputs = Self.keys("1234").flatMap { editor.take($0) } + editor.take(.enter)
        #expect(outputs == Array(repeating: .event(.typing(.hidden)), count: 4) + [.show("\n"), .event(.line("1234"))])
    }

    @Test func aTextDialogTakesEveryKeyAndEscapeCancelsIt() {
        var editor = LineEditor(mode: .line(secret: false))
        #expect(Self.events(&editor, [.character("1"), .character("/"), .enter]).last == .line("1/"))
        #expect(Self.events(&editor, [.escape]) == [.key(.escape)])
    }

    @Test func aPasteIsTypedNotTakenAsKeysAndTheRestAfterEnterIsDropped() {
        var editor = LineEditor(mode: .keys)
        let (outputs, ended) = editor.takePaste(Self.keys("faster") + [.enter] + Self.keys("slower"))
        #expect(!LineEditor(mode: .keys).takePasteDropsRest(Self.keys("stop") + [.enter]), "one line: nothing left")
        let events = outputs.compactMap { output -> InputEvent? in
            if case .event(let event) = output { return event }
            return nil
        }
        #expect(ended)
        #expect(events.last == .line("faster"))
        #expect(!events.contains(.key(.character("f"))))
    }

    /// The command key and a command's word read at once (keys typed one by one reach a busy program together)
    /// are the command, as typed slowly: "/detener" was once refused as an unknown command under load. In a text
    /// dialog "/" is the text's own.
    @Test func theCommandKeyAndAWordReadAtOnceAreThatWord() {
        for mode in [TypingMode.keys, .words(instant: ["s", "n"])] {
            var editor = LineEditor(mode: mode)
            let events = editor.takePaste([LineEditor.commandKey] + Self.keys("detener") + [.enter]).outputs
                .compactMap { output -> InputEvent? in
                    if case .event(let event) = output { return event }
                    return nil
                }
            #expect(events.first == .typing(.opened), "\(mode)")
            #expect(events.last == .line("detener"), "\(mode)")
        }
        var dialog = LineEditor(mode: .line(secret: false))
        let outputs = dialog.takePaste([LineEditor.commandKey] + Self.keys("12") + [.enter]).outputs
        #expect(outputs.last == .event(.line("/12")))
    }

    @Test func aLineOverTheLimitIsRefusedOnce() {
        var editor = LineEditor(mode: .keys)
        let (outputs, ended) = editor.takePaste(Array(repeating: .character("a"), count: LineEditor.limit + 50))
        let refusals = outputs.filter { $0 == .event(.typing(.tooLong(limit: LineEditor.limit))) }
        #expect(ended)
        #expect(refusals.count == 1)
        #expect(!editor.isTyping)
    }

    @Test func controlKeysStayKeysWhileTyping() {
        var editor = LineEditor(mode: .words(instant: []))
        #expect(Self.events(&editor, [.character("a"), .control("c")]).last == .key(.control("c")))
        #expect(editor.isTyping)
    }

    @Test func anArrowOrAFunctionKeyLeavesAWordUnsentAndActs() {
        var editor = LineEditor(mode: .words(instant: []))
        #expect(Self.events(&editor, [.character("x"), .function(12)]).last == .key(.function(12)))
        #expect(!editor.isTyping)
        var dialog = LineEditor(mode: .line(secret: false))
        #expect(Self.events(&dialog, [.character("x"), .down, .enter]).last == .line("x"))
    }
}

extension LineEditor {
    /// Whether a paste of `keys` leaves the rest of the paste unused.
    func takePasteDropsRest(_ keys: [Key]) -> Bool {
        var editor = self
        return editor.takePaste(keys).dropRest
    }
}

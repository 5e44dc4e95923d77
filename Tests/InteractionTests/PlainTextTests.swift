import AssistCore
import Interaction
import Runtime
import Testing

@Suite("Plain text: nothing raw reaches a terminal or a speech engine")
struct PlainTextTests {
    @Test func controlCharactersAndDirectionOverridesAreRemoved() {
        #expect(PlainText.clean("cup\u{1B}[31mred\u{07}") == "cup[31mred")
        #expect(PlainText.clean("\u{202E}mirror\u{2066}x\u{2069}") == "mirrorx")
        #expect(PlainText.clean("a\tb\u{0}c\u{7F}d\u{85}e") == "a bcde")
        #expect(PlainText.clean("a\tb\u{1B}c", keepingTabs: true) == "a\tbc", "a data row's tabs part its fields")
        #expect(PlainText.clean("line one\nline two") == "line one\nline two", "line breaks are the caller's")
        #expect(PlainText.clean("Привет, 你好, مرحبا") == "Привет, 你好, مرحبا", "scripts are untouched")
        #expect(PlainText.clean("क्\u{200D}ष") == "क्\u{200D}ष", "a zero-width joiner is part of the word")
    }

    /// Issue 73: a reason ending with its own full stop, put into a sentence that adds one, is heard once.
    @Test func aDoubledFullStopIsOneAndEllipsesAndPathsStay() {
        #expect(
            PlainText.spoken("It cannot be written: the folder is read only.. Free it.")
                == "It cannot be written: the folder is read only. Free it.")
        #expect(PlainText.spoken("Saved to \"notes\"..") == "Saved to \"notes\".")
        #expect(PlainText.spoken("Wait...") == "Wait...")
        #expect(
            PlainText.spoken("The name \"../../escape.json\" is a path.") == "The name \"../../escape.json\" is a path."
        )
        #expect(PlainText.spoken("Версия 2.. Далее") == "Версия 2. Далее")
    }

    @Test func longValuesAreShortenedWithTheirLength() {
        let long = String(repeating: "x", count: 10_000)
        let shortened = PlainText.value(long)
        #expect(shortened.count <= PlainText.valueLimit + 20)
        #expect(shortened.hasSuffix("… (10000 characters)"))
        #expect(PlainText.value("two\nlines") == "two lines")
        #expect(PlainText.value("short") == "short")
    }

    @Test func aLongRunInsideASentenceIsShortenedAndTheSentenceKept() {
        let sentence = "There is no plugin called " + String(repeating: "y", count: 1_000_000) + ". Did you mean clock?"
        let spoken = PlainText.spoken(sentence)
        #expect(spoken.hasPrefix("There is no plugin called yyy"))
        #expect(spoken.hasSuffix(". Did you mean clock?") == false, "the run ends with its own full stop")
        #expect(spoken.contains("(1000001 characters) Did you mean clock?"))
        #expect(spoken.count < 400)
        #expect(PlainText.message(String(repeating: "word ", count: 1_000)).count <= PlainText.messageLimit + 30)
    }

    @Test func aCountedPhraseSaysItsFormForOneForExactlyOne() {
        let book = PhraseBook(
            language: "en", primary: ["k": "{count} uploads waiting: {who}.", "k-one": "1 upload waiting: {who}."],
            english: [:])
        #expect(book.text("k", count: 1, ["who": "Survey"]) == "1 upload waiting: Survey.")
        #expect(book.text("k", count: 0, ["who": "Survey"]) == "0 uploads waiting: Survey.")
        #expect(book.text("k", count: 21, ["who": "Survey"]) == "21 uploads waiting: Survey.")
        // A table without the form for one (a third party's) says the other form.
        let plain = PhraseBook(language: "en", primary: ["n": "{count} items"], english: [:])
        #expect(plain.text("n", count: 1) == "1 items")
    }

    /// What C calls write into buffers (a reason, a device name, a word heard) becomes text up to the first NUL.
    @Test func aCBufferIsReadUpToItsFirstNul() {
        let bytes: [UInt8] = Array("no camera".utf8) + [0] + Array("left over".utf8)
        #expect(String(nulTerminated: bytes.map { CChar(bitPattern: $0) }) == "no camera")
        #expect(String(nulTerminated: Array("whole".utf8).map { CChar(bitPattern: $0) }) == "whole", "no NUL at all")
        #expect(String(nulTerminated: [CChar(bitPattern: 0xFF), 0x41, 0]) == "\u{FFFD}A", "not UTF-8")
        let card: (CChar, CChar, CChar, CChar, CChar) = (0x55, 0x56, 0x43, 0, 0x58)
        #expect(String(nulTerminatedTuple: card) == "UVC")
    }

    @Test func phraseValuesAreCleanedAndShortened() {
        let book = PhraseBook(language: "en", primary: ["k": "Nothing matches {text}."], english: [:])
        let text = book.text("k", ["text": "\u{1B}]0;title\u{07}" + String(repeating: "z", count: 5_000)])
        #expect(!text.contains("\u{1B}") && !text.contains("\u{07}"))
        #expect(text.count < 300 && text.hasSuffix("(5008 characters)."))
    }
}

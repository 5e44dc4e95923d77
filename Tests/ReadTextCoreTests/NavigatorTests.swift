import Testing

@testable import ReadTextCore

/// A fake voice: records what is spoken and lets the test play the speech service's events.
final class FakeVoice: ReadingVoice {
    var spoken: [(id: UInt64, text: String, rate: Int)] = []
    var stopped: [UInt64] = []
    var cues: [ReadingCue] = []
    var rates: [String] = []
    private var next: UInt64 = 1

    func speakItem(_ text: String, wordsPerMinute: Int) -> UInt64? {
        defer { next += 1 }
        spoken.append((next, text, wordsPerMinute))
        return next
    }

    func stopItem(_ id: UInt64) { stopped.append(id) }
    func play(_ cue: ReadingCue) { cues.append(cue) }
    /// The end is said in words too (`ends`), with its cue.
    var ends = 0
    func sayEnd() {
        ends += 1
        cues.append(.end)
    }
    func sayRate(_ wordsPerMinute: Int, limit: Bool) {
        rates.append(limit ? "limit \(wordsPerMinute)" : "\(wordsPerMinute)")
    }
    var last: (id: UInt64, text: String, rate: Int) { spoken[spoken.count - 1] }
}

@Suite("read-text: navigation")
struct NavigatorTests {
    let voice = FakeVoice()
    let navigator: ReadingNavigator

    init() {
        navigator = ReadingNavigator(voice: voice, language: "en")
        navigator.load(
            [
                ReadingItem(text: "One two three.", column: 0), ReadingItem(text: "Four five.", column: 0),
                ReadingItem(text: "Six.", column: 1),
            ], complete: true)
        navigator.columns = 2
        navigator.start()
    }

    @Test func itemsAdvanceOnlyWhenFinishedAndTheEndPlaysTheEndCue() {
        #expect(voice.last.text == "One two three." && voice.last.rate == 175)
        navigator.wordStarted(1, characterOffset: 4)
        navigator.cancelled(1)
        #expect(voice.spoken.count == 1 && navigator.state == .paused, "cancelled by other speech: paused")
        navigator.resume()
        #expect(voice.last.text == "two three.")
        navigator.finished(voice.last.id)
        #expect(voice.last.text == "Four five.")
        navigator.finished(voice.last.id)
        navigator.finished(voice.last.id)
        #expect(voice.cues == [.end] && navigator.state == .ended)
        #expect(voice.ends == 1, "the end is said in words, not a tone alone")
    }

    @Test func pauseMidWordResumesAtThatWord() {
        navigator.wordStarted(1, characterOffset: 4)  // "two"
        navigator.pause()
        #expect(voice.stopped == [1] && navigator.state == .paused)
        navigator.resume()
        #expect(voice.last.text == "two three.")
        navigator.wordStarted(voice.last.id, characterOffset: 4)  // "three" within the remainder
        navigator.pause()
        navigator.resume()
        #expect(voice.last.text == "three.", "offsets add up across pauses")
    }

    @Test func backPausesAfterTheItemAndResumeMovesOn() {
        navigator.finished(1)
        navigator.previous()
        #expect(voice.last.text == "One two three.")
        navigator.finished(voice.last.id)
        #expect(navigator.state == .paused)
        navigator.resume()
        #expect(voice.last.text == "Four five.")
    }

    @Test func beforeTheFirstAndPastTheLastPlayTheEndCue() {
        navigator.previous()
        #expect(voice.cues == [.end] && voice.last.text == "One two three." && navigator.index == 0)
        #expect(voice.ends == 0, "the first sentence again is not the end")
        navigator.next()
        navigator.next()
        let count = voice.spoken.count
        navigator.next()
        #expect(voice.cues == [.end, .end] && voice.spoken.count == count, "no sentence past the end")
        #expect(voice.ends == 1, "past the last sentence the end is said")
    }

    @Test func theSpeedToggleRestartsAtTheCurrentWordAt260AndBack() {
        navigator.wordStarted(1, characterOffset: 8)
        navigator.toggleSpeed()
        #expect(voice.cues == [.faster] && voice.rates == ["260"])
        #expect(voice.last.text == "three." && voice.last.rate == 260)
        navigator.toggleSpeed()
        #expect(voice.cues == [.faster, .slower] && voice.last.rate == 175)
    }

    @Test func fasterAndSlowerStep25AWordsAMinuteFromTheUsersRateUpTo450() {
        let voice = FakeVoice()
        let navigator = ReadingNavigator(voice: voice, language: "en", wordsPerMinute: 300)
        navigator.load([ReadingItem(text: "One two three.", column: 0)], complete: true)
        navigator.start()
        #expect(voice.last.rate == 300, "reading starts at speech.rate")
        navigator.changeSpeed(by: -1)
        #expect(voice.cues == [.slower] && voice.last.rate == 275, "slower is slower")
        for _ in 0..<8 { navigator.changeSpeed(by: 1) }
        #expect(navigator.wordsPerMinute == 450 && voice.last.rate == 450)
        #expect(
            voice.rates == ["275", "300", "325", "350", "375", "400", "425", "450", "limit 450"],
            "each step said as a number; past the top it says so and stays")
        #expect(voice.cues.last == .end)
        navigator.pause()
        navigator.changeSpeed(by: -1)
        #expect(navigator.state == .paused && voice.rates.last == "425", "a paused reader keeps the new rate")
        navigator.resume()
        #expect(voice.last.rate == 425)
    }

    @Test func theSlowestRateIs80AndRatesOutsideTheRangeAreBroughtIn() {
        let voice = FakeVoice()
        let slow = ReadingNavigator(voice: voice, language: "en", wordsPerMinute: 90)
        slow.changeSpeed(by: -1)
        slow.changeSpeed(by: -1)
        #expect(slow.wordsPerMinute == 80 && voice.rates == ["80", "limit 80"])
        #expect(ReadingNavigator(voice: voice, language: "en", wordsPerMinute: 9_000).wordsPerMinute == 450)
    }

    @Test func readAllStartsOverFromTheFirstItem() {
        navigator.finished(1)
        navigator.start()
        #expect(voice.stopped == [2] && voice.last.text == "One two three.")
    }

    @Test func whereAmICountsSentencesAndColumns() {
        navigator.finished(1)
        navigator.finished(2)
        #expect(navigator.position == ReadingPosition(item: 3, count: 3, complete: true, column: 2, columns: 2))
    }

    @Test func streamedItemsContinueAfterWaiting() {
        let streaming = ReadingNavigator(voice: voice, language: "en")
        streaming.load([], complete: false)
        streaming.append([ReadingItem(text: "First.", column: 0)])
        let first = voice.last.id
        streaming.finished(first)
        #expect(streaming.state == .waitingForMore)
        streaming.append([ReadingItem(text: "Second.", column: 0)])
        #expect(voice.last.text == "Second.")
        streaming.finishStreaming()
        streaming.finished(voice.last.id)
        #expect(streaming.state == .ended)
    }
}

/// Issue 70: a document's pages. Page Down and Page Up go to the first sentence of the next or previous page
/// that has text; "page N" to that page; where-am-I says the page and the sentence on it; a page not read yet,
/// or past the end, is said, and nothing moves.
@Suite("read-text: pages of a document")
struct PageNavigatorTests {
    let voice = FakeVoice()
    let navigator: ReadingNavigator

    init() {
        navigator = ReadingNavigator(voice: voice, language: "en")
        navigator.pages = 5
        navigator.load([], complete: false)
        navigator.append([
            ReadingItem(text: "Page one, first.", column: 0, page: 1),
            ReadingItem(text: "Page one, second.", column: 0, page: 1),
            // Page 2 is blank (a scan with nothing on it).
            ReadingItem(text: "Page three.", column: 0, page: 3),
        ])
    }

    @Test func pagesAreReachedByTheirFirstSentence() {
        #expect(voice.last.text == "Page one, first.")
        navigator.finished(voice.last.id)
        #expect(
            navigator.position.page == 1 && navigator.position.itemOnPage == 2 && navigator.position.itemsOnPage == 2)
        #expect(navigator.movePage(by: 1) == .moved(page: 3), "a blank page is passed over")
        #expect(voice.last.text == "Page three.")
        #expect(navigator.position.page == 3 && navigator.position.pages == 5)
        #expect(navigator.movePage(by: -1) == .moved(page: 1))
        #expect(voice.last.text == "Page one, first.")
        #expect(navigator.movePage(by: -1) == .outside(pages: 5) && voice.cues == [.end])
        #expect(navigator.goToPage(2) == .moved(page: 3))
        #expect(navigator.goToPage(4) == .notYet(page: 4), "page 4 is still being read")
        #expect(navigator.goToPage(9) == .outside(pages: 5))
        navigator.append([ReadingItem(text: "Page four.", column: 0, page: 4)])
        navigator.finishStreaming()
        #expect(navigator.goToPage(4) == .moved(page: 4) && voice.last.text == "Page four.")
        #expect(navigator.goToPage(5) == .empty)
        #expect(navigator.movePage(by: 1) == .empty, "nothing from page 5 to the end")
    }

    @Test func aPictureHasNoPages() {
        let picture = ReadingNavigator(voice: voice, language: "en")
        picture.load([ReadingItem(text: "A sign.", column: 0)], complete: true)
        #expect(picture.goToPage(1) == .outside(pages: 0) && picture.position.pages == 0)
    }
}

/// Issue 70: a document's headings, found by their fonts, read as headings and reached by h and H.
@Suite("read-text: headings")
struct HeadingTests {
    @Test func headingsAreTheLinesSetLargerOrBoldWhereTheTextIsNot() {
        let lines = [
            DocumentLine("Your electricity bill", size: 20),
            DocumentLine("This letter explains what you owe and", size: 11),
            DocumentLine("how it was worked out.", size: 11), DocumentLine("How to pay", size: 11, bold: true),
            DocumentLine("Pay before the end of March at any post office, by bank transfer from your own", size: 11),
            DocumentLine("account, or by the card we sent you last year with the number written on it.", size: 11),
            DocumentLine("Late payments cost five euros.", size: 11, bold: true),
            DocumentLine("12", size: 20), DocumentLine(String(repeating: "Long large line ", count: 8), size: 20),
        ]
        let items = DocumentHeadings.items(lines, builder: SentenceBuilder(), navigation: .sentences)
        #expect(items.filter(\.heading).map(\.text) == ["Your electricity bill", "How to pay"], "\(items)")
        #expect(items.first?.text == "Your electricity bill", "never joined to the sentence after it")
        #expect(items.contains { $0.text == "This letter explains what you owe and how it was worked out." })
        // A page whose text is all bold has no bold headings; a document without sizes has none at all.
        let allBold = lines.map { DocumentLine($0.text, size: 11, bold: true) }
        #expect(
            DocumentHeadings.items(allBold, builder: SentenceBuilder(), navigation: .sentences).allSatisfy {
                !$0.heading
            })
        let unknown = lines.map { DocumentLine($0.text) }
        #expect(
            DocumentHeadings.items(unknown, builder: SentenceBuilder(), navigation: .sentences).allSatisfy {
                !$0.heading
            })
    }

    @Test func hAndShiftHMoveByHeadingAndTheWordIsSaidOncePerPage() {
        let voice = FakeVoice()
        let navigator = ReadingNavigator(voice: voice, language: "en")
        navigator.headingWord = "Heading:"
        navigator.pages = 2
        navigator.load(
            [
                ReadingItem(text: "Bill", column: 0, page: 1, heading: true),
                ReadingItem(text: "Text one.", column: 0, page: 1),
                ReadingItem(text: "How to pay", column: 0, page: 1, heading: true),
                ReadingItem(text: "Text two.", column: 0, page: 1),
                ReadingItem(text: "Questions", column: 0, page: 2, heading: true),
            ], complete: true)
        navigator.start()
        #expect(voice.last.text == "Heading: Bill" && voice.cues == [.heading])
        #expect(navigator.moveHeading(by: 1) && voice.last.text == "How to pay", "the word once a page")
        #expect(navigator.moveHeading(by: 1) && voice.last.text == "Heading: Questions", "a new page says it again")
        #expect(!navigator.moveHeading(by: 1) && voice.cues.last == .end)
        #expect(navigator.moveHeading(by: -1) && voice.last.text == "How to pay")
        #expect(navigator.moveHeading(by: -1) && voice.last.text == "Bill")
        #expect(!navigator.moveHeading(by: -1))
        #expect(voice.cues.filter { $0 == .heading }.count == 5)
    }
}

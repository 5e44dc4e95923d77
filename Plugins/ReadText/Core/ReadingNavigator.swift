/// The sounds the reader plays besides speech.
public enum ReadingCue: Sendable, Equatable {
    /// End of the text, or past either end: a 0.25 s continuous tone.
    case end
    /// The camera is steady: a tick at gain 0.4.
    case stable
    /// Speed changed: rising when faster, falling when slower (gain 0.7).
    case faster, slower
    /// Waiting for the next streamed item: a soft tick every 0.5 s.
    case tick
    /// A document's heading is read next: a short earcon before it.
    case heading
}

/// How the reader speaks: `ReadingNavigator` is told about each utterance's words and end through
/// `wordStarted`, `finished` and `cancelled`. The plugin implements it over assist.speech/1; tests fake it.
public protocol ReadingVoice: AnyObject {
    /// Starts speaking `text` at `wordsPerMinute`; returns the utterance id, or nil when nothing was queued.
    func speakItem(_ text: String, wordsPerMinute: Int) -> UInt64?
    /// Stops an utterance at once.
    func stopItem(_ id: UInt64)
    /// Plays a cue.
    func play(_ cue: ReadingCue)
    /// Says the new reading speed as a number, at that speed; `limit` when it could go no further that way.
    func sayRate(_ wordsPerMinute: Int, limit: Bool)
    /// The text has been read to its end: the end cue and words, not a tone alone.
    func sayEnd()
}

/// Where the reader is, for "where am I".
public struct ReadingPosition: Equatable, Sendable {
    public var item: Int
    public var count: Int
    public var complete: Bool
    public var column: Int
    public var columns: Int
    /// In a document: the page (from 1) and how many it has; 0 for a picture.
    public var page = 0
    public var pages = 0
    /// The sentence's number on its page, and how many the page has.
    public var itemOnPage = 0
    public var itemsOnPage = 0
}

/// Reading and navigation over the items (read-text.md §10): advances when an item finishes; back pauses
/// after the item; pause keeps the rest of the item from the start of the current word; speed restarts at
/// the current word. All calls on the main loop.
public final class ReadingNavigator {
    public enum State: Equatable, Sendable {
        case idle, speaking, paused, waitingForMore, ended
    }

    private unowned let voice: ReadingVoice
    private let language: String
    public private(set) var items: [ReadingItem] = []
    public private(set) var index = 0
    public private(set) var state = State.idle
    public private(set) var isComplete = true
    /// The words per minute in use: the user's `speech.rate` at first, then as faster and slower leave it.
    public private(set) var wordsPerMinute: Int
    /// The rate reading started at, which the speed toggle returns to.
    public let baseRate: Int
    public var columns = 1
    /// How many pages the document being read has; 0 for a picture.
    public var pages = 0
    /// Told when an item starts from its beginning (the plugin prints its raw text).
    public var onItemStart: ((ReadingItem) -> Void)?
    /// Said before the first heading read on each page ("Heading:"); after that, a heading's earcon alone.
    public var headingWord = "Heading:"
    /// The pages whose first heading was read with `headingWord`.
    private var headingSaid: Set<Int> = []
    /// The pages read so far (from 1), blank ones too: a document's pages may come out of order
    /// (`DocumentPageOrder`), and reading never passes over a page that has not come.
    private var donePages: Set<Int> = []
    /// Told when reading reaches the end of a complete text.
    public var onEnd: (() -> Void)?
    /// Told of a page reading now waits for that was not asked for by name: the page before a blank one that
    /// Page Up waited for (so it is recognised next).
    public var onWaiting: ((_ page: Int) -> Void)?
    private var utterance: UInt64?
    private var spokenBase = 0
    private var wordOffset = 0
    private var pauseAfterCurrent = false
    private var resumeMovesOn = false

    public init(voice: ReadingVoice, language: String, wordsPerMinute: Int = ReadTextParameters.normalRate) {
        self.voice = voice
        self.language = language
        let rate = ReadTextParameters.rates.clamped(wordsPerMinute)
        self.wordsPerMinute = rate
        baseRate = rate
    }

    /// Replaces the items; `complete` is false while more will be appended (streaming).
    public func load(_ items: [ReadingItem], complete: Bool) {
        self.items = items
        isComplete = complete
        donePages = []
        index = 0
        cell = nil
        state = .idle
    }

    /// While a question is asked before reading begins (go on where it stopped?), nothing is read.
    private var held = false
    /// Where reading begins once that page has come (a document re-opened where it stopped): its page and its
    /// sentence on it, from 1; nil: at the first item.
    private var startAt: (page: Int, item: Int)?
    /// `startAt` was asked for by going back (Page Up): if that page turns out blank, the page with text before
    /// it is where reading goes, not the next one with text (which may be the page reading was on).
    private var startBackward = false

    /// Reads nothing until `release`: items appended meanwhile wait.
    public func hold() { held = true }

    /// Lets reading begin: at the `item`th sentence of `page` (from 1; the page's last when it has fewer) once
    /// that page has come, at the first item with nil, or at the first item when the page never comes. A move
    /// asked for before then (next, a page, a heading) is the place instead.
    public func release(at place: (page: Int, item: Int)?) {
        held = false
        startAt = state == .idle ? place : nil
        beginIfIdle()
    }

    private func beginIfIdle() {
        guard !held, state == .idle || state == .waitingForMore && startAt != nil, !items.isEmpty else { return }
        // Going back onto a page that came blank: on back to the page before it with text (waited for).
        if let target = startAt, startBackward, isBlank(target.page) {
            guard let earlier = pageBefore(target.page) else {
                startBackward = false
                return beginIfIdle()
            }
            startAt = (earlier, 1)
            if !pagesCame(from: earlier, before: earlier + 1) { onWaiting?(earlier) }
            return beginIfIdle()
        }
        // A document is read from its first page, which may come after later ones.
        guard let target = startAt ?? (pages > 0 ? (page: 1, item: 1) : nil) else {
            index = 0
            speak(from: 0)
            return
        }
        guard let first = items.firstIndex(where: { $0.page >= target.page }),
            pagesCame(from: target.page, before: items[first].page)
        else {
            if isComplete {
                startAt = nil
                startBackward = false
                index = 0
                speak(from: 0)
            }
            return
        }
        startAt = nil
        startBackward = false
        let onPage = items.indices.filter { items[$0].page == items[first].page }
        index = items[first].page == target.page ? onPage[min(max(target.item, 1), onPage.count) - 1] : first
        speak(from: 0)
    }

    /// Appends streamed items, in order (a document's pages up to the last item's have all come); continues at
    /// once if the reader was waiting for them.
    public func append(_ more: [ReadingItem]) {
        if let last = more.last?.page, last > 0 { donePages.formUnion(1...last) }
        items += more
        readOn()
    }

    /// A document's page `page` (from 1) has been read, with its sentences (none for a blank page), in whatever
    /// order pages come: they go where their page stands among those read, and reading goes on into them when it
    /// was waiting for that page.
    public func add(_ more: [ReadingItem], page: Int) {
        donePages.insert(page)
        // Items are in page order: a page's place is found from the end, where pages read in order go (a
        // search from the start made reading a 2,000-page document quadratic).
        let at = items.lastIndex { $0.page <= page }.map { $0 + 1 } ?? 0
        items.insert(contentsOf: more, at: at)
        if state != .idle, at <= index, !more.isEmpty {
            index += more.count
            if let moved = cell, moved.item >= at { cell = (moved.item + more.count, moved.column) }
        }
        readOn()
    }

    private func readOn() {
        if held || startAt != nil && (state == .idle || state == .waitingForMore) {
            beginIfIdle()
            return
        }
        if state == .waitingForMore, nextIsReady {
            index += 1
            speak(from: 0)
        } else if state == .idle, !items.isEmpty {
            beginIfIdle()
        }
    }

    /// Page `page` has come, with no text.
    private func isBlank(_ page: Int) -> Bool {
        (isComplete || donePages.contains(page)) && !items.contains { $0.page == page }
    }

    /// The first page before `page` that has text, or that is still to come; nil when none.
    private func pageBefore(_ page: Int) -> Int? {
        let withText = Set(items.map(\.page))
        return (1..<max(page, 1)).reversed().first { withText.contains($0) || !isComplete && !donePages.contains($0) }
    }

    /// Whether every page from `first` up to (not including) `last` has come.
    private func pagesCame(from first: Int, before last: Int) -> Bool {
        first >= last || isComplete || (first..<last).allSatisfy(donePages.contains)
    }

    /// The item after this one is there, with no page between them still to come.
    private var nextIsReady: Bool {
        guard index + 1 < items.count else { return false }
        return !items.indices.contains(index) || pagesCame(from: items[index].page + 1, before: items[index + 1].page)
    }

    /// No more items will come.
    public func finishStreaming() {
        isComplete = true
        if startAt != nil { beginIfIdle() }
        if state == .waitingForMore {
            voice.sayEnd()
            state = .ended
            onEnd?()
        }
    }

    /// Starts reading from the first item (also "read all").
    public func start() {
        guard !items.isEmpty else { return }
        stopSpeech()
        pauseAfterCurrent = false
        resumeMovesOn = false
        index = 0
        speak(from: 0)
    }

    // MARK: Speech events

    public func wordStarted(_ id: UInt64, characterOffset: Int) {
        guard id == utterance else { return }
        wordOffset = spokenBase + characterOffset
    }

    public func finished(_ id: UInt64) {
        guard id == utterance else { return }
        utterance = nil
        if pauseAfterCurrent {
            pauseAfterCurrent = false
            resumeMovesOn = true
            state = .paused
            return
        }
        advance()
    }

    /// Someone else's speech cancelled the item (the navigator's own stops never reach here): pause at the
    /// current word, so resume carries on.
    public func cancelled(_ id: UInt64) {
        guard id == utterance else { return }
        utterance = nil
        resumeMovesOn = false
        state = .paused
    }

    // MARK: Commands

    public func pause() {
        guard state == .speaking else { return }
        stopSpeech()
        resumeMovesOn = false
        state = .paused
    }

    public func resume() {
        guard state == .paused else { return }
        if resumeMovesOn {
            resumeMovesOn = false
            if nextIsReady {
                index += 1
                speak(from: 0)
            } else {
                advance()
            }
        } else {
            speak(from: wordOffset)
        }
    }

    public func togglePause() {
        if state == .speaking { pause() } else { resume() }
    }

    public func next() {
        guard !items.isEmpty else { return }
        guard nextIsReady else {
            stopSpeech()
            if isComplete {
                voice.sayEnd()
                state = .ended
            } else {
                state = .waitingForMore
            }
            return
        }
        stopSpeech()
        index += 1
        pauseAfterCurrent = false
        speak(from: 0)
    }

    public func previous() {
        guard !items.isEmpty else { return }
        stopSpeech()
        // Before the first sentence, or before a page that has not come yet (a document opened again partway).
        if index == 0 || !pagesCame(from: items[index - 1].page + 1, before: items[index].page) {
            voice.play(.end)
            pauseAfterCurrent = false
        } else {
            index -= 1
            pauseAfterCurrent = true
        }
        speak(from: 0)
    }

    /// One step faster (`steps` > 0) or slower, `ReadTextParameters.rateStep` words a minute each, within
    /// `ReadTextParameters.rates`; at a limit the end cue plays and the rate is said with "fastest" or
    /// "slowest". Speech restarts at the current word.
    public func changeSpeed(by steps: Int) {
        let wanted = ReadTextParameters.rates.clamped(wordsPerMinute + steps * ReadTextParameters.rateStep)
        guard wanted != wordsPerMinute else {
            voice.play(.end)
            voice.sayRate(wordsPerMinute, limit: true)
            return
        }
        setRate(wanted)
    }

    /// Switches between the starting rate and `ReadTextParameters.fastStep` words a minute faster (the
    /// original's normal and fast), from wherever faster and slower left it.
    public func toggleSpeed() {
        let fast = ReadTextParameters.rates.clamped(baseRate + ReadTextParameters.fastStep)
        setRate(wordsPerMinute == baseRate && fast != baseRate ? fast : baseRate)
    }

    private func setRate(_ rate: Int) {
        let faster = rate > wordsPerMinute
        wordsPerMinute = rate
        let speaking = state == .speaking
        if speaking { stopSpeech() }
        voice.play(faster ? .faster : .slower)
        voice.sayRate(rate, limit: false)
        if speaking { speak(from: wordOffset) }
    }

    /// Stops reading for good.
    public func stop() {
        stopSpeech()
        state = .ended
    }

    public var position: ReadingPosition {
        var position = ReadingPosition(
            item: min(index, max(0, items.count - 1)) + 1, count: items.count, complete: isComplete,
            column: (items.indices.contains(index) ? items[index].column : 0) + 1, columns: columns)
        if pages > 0, items.indices.contains(index) {
            let page = items[index].page
            let onPage = items.indices.filter { items[$0].page == page }
            position.page = page
            position.pages = pages
            position.itemOnPage = (onPage.firstIndex(of: index) ?? 0) + 1
            position.itemsOnPage = onPage.count
        }
        return position
    }

    /// What became of a move to another page.
    public enum PageMove: Equatable, Sendable {
        /// Reading goes on from the first sentence of this page.
        case moved(page: Int)
        /// No such page: the document has `pages`.
        case outside(pages: Int)
        /// Page `page` is not read yet; reading goes on there when it has come (until another move).
        case notYet(page: Int)
        /// The page holds no text; nor do the pages after it up to the end.
        case empty
    }

    /// Goes to the first sentence of page `page` (from 1), or of the next page that has text. A page that has not
    /// come yet (or one before the next page with text) is waited for, reading stopped meanwhile.
    public func goToPage(_ page: Int) -> PageMove { goToPage(page, backward: false) }

    private func goToPage(_ page: Int, backward: Bool) -> PageMove {
        guard pages > 0, (1...pages).contains(page) else { return .outside(pages: pages) }
        let found = items.firstIndex(where: { $0.page >= page })
        guard pagesCame(from: page, before: found.map { items[$0].page } ?? pages + 1) else {
            stopSpeech()
            pauseAfterCurrent = false
            resumeMovesOn = false
            startAt = (page, 1)
            startBackward = backward
            state = .waitingForMore
            return .notYet(page: page)
        }
        guard let found else { return .empty }
        stopSpeech()
        pauseAfterCurrent = false
        resumeMovesOn = false
        index = found
        speak(from: 0)
        return .moved(page: items[found].page)
    }

    /// The next page (`by` 1) or the one before (-1) of the page being read.
    public func movePage(by step: Int) -> PageMove {
        guard pages > 0 else { return .outside(pages: 0) }
        let current = currentPage
        if step < 0 {
            // The first page before this one that has text, or one still to come on the way there.
            guard let earlier = pageBefore(current) else {
                voice.play(.end)
                return .outside(pages: pages)
            }
            return goToPage(earlier, backward: true)
        }
        guard current + 1 <= pages else {
            voice.play(.end)
            return .outside(pages: pages)
        }
        return goToPage(current + 1)
    }

    /// Moves to the next heading (`by` 1) or the one before (-1) and reads on from it; false, with the end
    /// cue, when there is none that way.
    @discardableResult
    public func moveHeading(by step: Int) -> Bool {
        jump(
            to: step > 0
                ? items.indices.first { $0 > index && items[$0].heading }
                : items.indices.last { $0 < index && items[$0].heading })
    }

    /// Reads on from item `found`; false, with the end cue, when there is none (nil).
    private func jump(to found: Int?) -> Bool {
        guard let found else {
            voice.play(.end)
            return false
        }
        stopSpeech()
        pauseAfterCurrent = false
        resumeMovesOn = false
        index = found
        speak(from: 0)
        return true
    }

    /// Whether the text has a heading at all.
    public var hasHeadings: Bool { items.contains(where: \.heading) }

    /// The page of the sentence being read (1 before any).
    private var currentPage: Int { items.indices.contains(index) ? items[index].page : 1 }

    /// Whether a page after the one being read (`forward`) or before it has still to come, so that a heading or a
    /// table not found that way may yet be there.
    public func pagesToCome(forward: Bool) -> Bool {
        guard !isComplete, pages > 0 else { return false }
        let current = currentPage
        return forward ? !pagesCame(from: current + 1, before: pages + 1) : !pagesCame(from: 1, before: current)
    }

    /// Where the item being read is in a table; nil outside one.
    public var tablePlace: TablePlace? { items.indices.contains(index) ? items[index].table : nil }

    /// Moves to the start of the next table and reads on from it (its size first); false, with the end cue, when
    /// there is none after.
    @discardableResult
    public func moveToNextTable() -> Bool {
        jump(to: items.indices.first { $0 > index && items[$0].table?.row == 0 })
    }

    /// Whether the text has a table at all.
    public var hasTables: Bool { items.contains { $0.table != nil } }

    /// What Left and Right give inside a table: a cell's words to say, the row's first or last cell passed, or
    /// nothing, outside a table (they move by sentence there).
    public enum CellMove: Equatable, Sendable {
        case cell(String)
        case edge(forward: Bool)
        case outside
    }

    /// The cell last moved to, and the item (a table's row) it is in.
    private var cell: (item: Int, column: Int)?

    /// Moves `step` cells along the row being read (from outside the row's cells, Right goes to its first,
    /// Left to its last): the row's reading pauses (resume goes on with it) and the cell is given to be said,
    /// after its column's header. Past the row's first or last cell, the end cue and no move.
    public func moveCell(by step: Int) -> CellMove {
        guard let place = tablePlace, !place.cells.isEmpty else { return .outside }
        let current = cell.flatMap { $0.item == index ? $0.column : nil }
        let column = current.map { $0 + step } ?? (step > 0 ? 0 : place.cells.count - 1)
        guard place.cells.indices.contains(column) else {
            voice.play(.end)
            return .edge(forward: step > 0)
        }
        pause()
        cell = (index, column)
        return .cell(place.cells[column])
    }

    // MARK: Internals

    private func advance() {
        if nextIsReady {
            index += 1
            speak(from: 0)
        } else if !isComplete {
            state = .waitingForMore
        } else {
            voice.sayEnd()
            state = .ended
            onEnd?()
        }
    }

    private func speak(from offset: Int) {
        guard items.indices.contains(index) else { return }
        let item = items[index]
        var spoken = SpeechCleanup.spoken(item.text, language: language)
        // Offsets are in Unicode scalars, as speech reports them. A heading is short: it is said again whole.
        var start = min(max(0, item.heading ? 0 : offset), spoken.unicodeScalars.count)
        if item.heading {
            voice.play(.heading)
            if headingSaid.insert(item.page).inserted { spoken = headingWord + " " + spoken }
            start = 0
        }
        if start == 0 { onItemStart?(item) }
        spokenBase = start
        wordOffset = start
        let remainder = String(String.UnicodeScalarView(spoken.unicodeScalars.dropFirst(start)))
        utterance = voice.speakItem(remainder, wordsPerMinute: wordsPerMinute)
        state = .speaking
        if utterance == nil { advance() }
    }

    private func stopSpeech() {
        // A move the person asked for is where reading goes on, not where it stopped last time.
        startAt = nil
        startBackward = false
        held = false
        if let utterance { voice.stopItem(utterance) }
        utterance = nil
    }
}

extension ClosedRange {
    /// `value`, moved to the nearest end when it lies outside.
    func clamped(_ value: Bound) -> Bound { Swift.min(Swift.max(value, lowerBound), upperBound) }
}

import Foundation
import OCR
import PluginAPI
import PluginKit

/// The read-text feature (read-text.md): waits for a steady picture, picks the sharpest frame, recognises it
/// with a warm tesseract on a thread of its own, and reads sentence by sentence, streaming: speech starts with
/// the first block while the rest is still being recognised. Main-loop state lives here; frame-thread state
/// is in `capture` under its lock; tesseract and the frame selector live on `worker`.
public final class ReadText: PluginFeature, ReadingVoice {
    let host: PluginHostHandle
    let phrases: ReadTextPhrases
    let language: String
    var options = ReadTextOptions()
    var navigator: ReadingNavigator?
    /// The page and sentences last told to the view (ReadText+View).
    var viewShown: (page: Int, picture: Int, sentences: [String]) = (-1, 0, [])
    /// The number of the picture the items being read were recognised in (0: none, a document's text layer).
    var viewPicture = 0
    /// The last document page `--transcript` printed (0: none yet).
    var transcriptPage = 0
    /// How many pictures were numbered for the view. Owned by `worker`.
    nonisolated(unsafe) var picturesNumbered = 0
    let worker = WorkerThread(name: "assist-read-text-ocr")
    let capture = CaptureState()
    var pipeline: TextPipeline
    var controlTimer: UInt64?
    var tickTimer: UInt64?
    /// Set on the main loop by `stop`; the worker reads it too (a document's pages, recognition's chunks), so it
    /// is kept in the capture state's lock (ThreadSanitizer saw a plain flag written while a recognition read it).
    var stopped: Bool { capture.withLock { $0.stopped } }
    /// A document is being asked for or opened from the camera (`CaptureState.Values.leavingCamera`).
    var leavingCamera: Bool { capture.withLock { $0.leavingCamera } }
    /// Owned by `worker`: started by `startedEngine()`.
    nonisolated(unsafe) var engine: TesseractEngine?
    /// Owned by `worker`: tesseract could not start (said once).
    nonisolated(unsafe) var engineFailed = false
    /// The languages tesseract starts with, read from the settings at start.
    nonisolated(unsafe) var engineLanguages = "eng"
    /// Owned by `worker`: a document's "Reading" was said (before its first page without a text layer).
    nonisolated(unsafe) var saidReading = false
    nonisolated(unsafe) var selector = FrameSelector<GrayImage>()
    /// Where reading stopped in each document (opened for a document read by a person, not a script's
    /// `--transcript` or `--exit-at-end`); the open document's key, and when its place was last kept.
    var places: DocumentPlaces?
    var documentKey: String?
    /// The order the open document's pages are read in (main loop; the worker holds it too).
    var pageOrder: DocumentPageOrder?
    var placeKeptAt = 0.0
    /// Where the recognition under way sends what it reads (owned by `worker`); nil: to the main loop.
    nonisolated(unsafe) var output: ReadingOutput?

    public init(host: PluginHostHandle) {
        self.host = host
        language = host.language
        phrases = ReadTextPhrases(directory: host.shareDirectory, language: language)
        pipeline = TextPipeline(
            options: ReadTextOptions(),
            builder: SentenceBuilder(
                abbreviations: ReadTextPhrases.abbreviations(directory: host.shareDirectory, language: language)))
    }

    /// Tesseract languages for the user's language (read-text.md §4), unless `read-text.ocr-languages` says.
    var ocrLanguages: String {
        if let configured = host.setting("read-text.ocr-languages"), !configured.isEmpty { return configured }
        switch language {
        case "ru": return "rus+eng"
        case "zh": return "chi_sim+eng"
        case "es": return "spa+eng"
        default: return "eng"
        }
    }

    public func start(arguments: [String]) throws(PluginError) {
        var settings: [String: String] = [:]
        for key in ["read-text.area", "read-text.order", "read-text.navigation", "read-text.streaming"] {
            settings[key] = host.setting(key)
        }
        do { options = try ReadTextOptions.parse(arguments, settings: settings) } catch {
            throw PluginError(error.message)
        }
        pipeline.options = options
        if options.help {
            host.print(phrases.text("usage"))
            host.finish()
            return
        }
        if ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] == nil {
            host.log(.warning, "OMP_THREAD_LIMIT is unset; tesseract will run about 3 times slower")
        }
        let rate = host.setting("speech.rate").flatMap { Double($0) }.map { Int($0.rounded()) }
        let navigator = ReadingNavigator(
            voice: self, language: language, wordsPerMinute: rate ?? ReadTextParameters.normalRate)
        navigator.onItemStart = { [weak self] item in
            guard let self else { return }
            self.showOnView(reading: self.navigator?.index ?? 0)
            self.keepPlace()
            guard !self.options.transcript else { return }
            self.host.print(item.text)
        }
        navigator.onEnd = { [weak self] in self?.reachedEnd() }
        navigator.onWaiting = { [weak self] page in self?.readNext(page: page) }
        self.navigator = navigator
        var commands: [(String, String?)] = [
            ("speed", "f"), ("where", "w"), ("save", "ctrl+s"), ("again", "a"), ("all", "g"),
        ]
        let document = options.file.map(Documents.isDocument) ?? false
        // With the camera, o opens a document or a picture instead (ReadText+Open).
        if options.file == nil, options.image == nil { commands.append(("open", "o")) }
        for (id, key) in commands { try? host.registerCommand(id, key: key, phrases: phrases.table) }
        if document { prepareForDocument() }
        if host.firstTime("safety-notice") { status(phrases.text("safety-notice")) }
        engineLanguages = ocrLanguages
        // A document's text layer is read at once: its first sentence says that reading began, and tesseract
        // starts only for a page without one, which says "Reading" first when nothing was read before it.
        if !document {
            status(phrases.text("reading"))
            worker.run { [self] in _ = startedEngine() }
        }
        if let file = options.file {
            if document { readDocument(URL(fileURLWithPath: file)) } else { readPhoto(URL(fileURLWithPath: file)) }
        } else if let image = options.image {
            readPhoto(URL(fileURLWithPath: image))
        } else {
            try startCapture()
        }
    }

    /// tesseract for `engineLanguages`, started on first need (worker); nil once it could not start, which is
    /// said (and ends read-text) once.
    func startedEngine() -> TesseractEngine? {
        guard engine == nil, !engineFailed else { return engine }
        do {
            engine = try TesseractEngine(languages: engineLanguages)
        } catch {
            engineFailed = true
            let message = (error as? OCRError)?.message ?? "Text recognition cannot start."
            host.onMain { [self] in fail(message) }
        }
        return engine
    }

    public func stop() {
        capture.withLock {
            $0.stopped = true
            $0.capturing = false
        }
        if let controlTimer { host.cancelTimer(controlTimer) }
        if let tickTimer { host.cancelTimer(tickTimer) }
        keepPlace(now: true)
        navigator?.stop()
        worker.stop()
    }

    public func pause() { navigator?.pause() }
    public func resume() { navigator?.resume() }

    public func handle(command: String, argument: String?) {
        guard let navigator else { return }
        switch command {
        case ASSIST_CMD_NEXT:
            navigator.next()
            updateWaitingTick()
        case ASSIST_CMD_PREVIOUS: navigator.previous()
        case ASSIST_CMD_FASTER: navigator.changeSpeed(by: 1)
        case ASSIST_CMD_SLOWER: navigator.changeSpeed(by: -1)
        case "speed": navigator.toggleSpeed()
        case "where": host.speak(whereAmI(), priority: .important)
        case "save": saveText()
        case "again": readAgain()
        case "all": navigator.start()
        case "next-page": sayPageMove(navigator.movePage(by: 1), forward: true)
        case "previous-page": sayPageMove(navigator.movePage(by: -1), forward: false)
        case "next-heading", "previous-heading":
            let forward = command == "next-heading"
            if !navigator.moveHeading(by: forward ? 1 : -1) {
                host.speak(
                    phrases.text(
                        navigator.pagesToCome(forward: forward)
                            ? "heading-not-yet"
                            : !navigator.hasHeadings ? "no-headings" : forward ? "heading-last" : "heading-first"))
            }
        case "table": sayTable()
        case "open": askForDocument()
        case "next-cell", "previous-cell":
            let forward = command == "next-cell"
            switch navigator.moveCell(by: forward ? 1 : -1) {
            case .cell(let text): host.speak(text, priority: .important)
            case .edge: host.speak(phrases.text(forward ? "cell-last" : "cell-first"), priority: .important)
            case .outside: handle(command: forward ? ASSIST_CMD_NEXT : ASSIST_CMD_PREVIOUS, argument: nil)
            }
        case "next-row": handle(command: ASSIST_CMD_NEXT, argument: nil)
        case "previous-row": handle(command: ASSIST_CMD_PREVIOUS, argument: nil)
        case "page":
            guard let number = argument.flatMap(PageNumber.parse) else {
                host.speak(phrases.text("page-usage"))
                return
            }
            sayPageMove(navigator.goToPage(number), forward: true, asked: number)
        default: break
        }
    }

    // MARK: ReadingVoice

    public func speakItem(_ text: String, wordsPerMinute: Int) -> UInt64? {
        host.speak(
            text, language: language, wordsPerMinute: wordsPerMinute, printed: false,
            onWord: { [weak self] id, offset in self?.navigator?.wordStarted(id, characterOffset: offset) },
            onDone: { [weak self] id, finished in
                if finished { self?.navigator?.finished(id) } else { self?.navigator?.cancelled(id) }
            })
    }

    public func stopItem(_ id: UInt64) { host.stopSpeech(id) }

    public func sayRate(_ wordsPerMinute: Int, limit: Bool) {
        let key =
            !limit ? "rate" : wordsPerMinute >= ReadTextParameters.rates.upperBound ? "rate-fastest" : "rate-slowest"
        host.speak(phrases.text(key, ["n": String(wordsPerMinute)]), wordsPerMinute: wordsPerMinute)
    }

    public func sayEnd() {
        host.play(.end)
        status(phrases.text("end-of-text"))
    }

    public func play(_ cue: ReadingCue) {
        switch cue {
        case .end: host.play(.end)
        case .stable: host.play(.stable, gain: 0.4)
        case .faster: host.play(.rise, gain: 0.7)
        case .slower: host.play(.fall, gain: 0.7)
        case .tick: host.play(.tap, gain: 0.3)
        case .heading: host.play(.found, gain: 0.5)
        }
    }

    // MARK: Results (main loop)

    /// Says one sentence and ends the feature with an error.
    func fail(_ message: String) {
        guard !stopped else { return }
        status(message, priority: .important)
        host.finish(.io)
    }

    /// Says a status line ("Reading", a warning), printed where the host prints its own: with `--transcript`
    /// (a data command) on standard error, standard output holding only the pages' text.
    func status(_ text: String, priority: SpeechPriority = .message) {
        host.speak(text, priority: priority, status: true)
    }

    /// Says that no text was found, or that there is text but too small to read.
    func noText(tooSmall: Bool = false) {
        play(.end)
        status(phrases.text(tooSmall ? "too-small" : "not-found"))
        if options.exitAtEnd || (options.image != nil || options.file != nil) && options.transcript { host.finish() }
    }

    /// While "next" waits for streamed items, a soft tick every 0.5 s says the reader is still working.
    func updateWaitingTick() {
        let waiting = navigator?.state == .waitingForMore
        if waiting, tickTimer == nil {
            tickTimer = host.addTimer(milliseconds: 500, repeating: true) { [weak self] in
                guard let self else { return }
                if self.navigator?.state == .waitingForMore { self.play(.tick) } else { self.updateWaitingTick() }
            }
        } else if !waiting, let tickTimer {
            host.cancelTimer(tickTimer)
            self.tickTimer = nil
        }
    }

    func reachedEnd() {
        // Read to its end: opened again, the document starts from the start, unasked.
        if let places, let documentKey { try? places.forget(documentKey) }
        if options.exitAtEnd { host.finish() }
    }

    /// t in a document: inside a table, its size and the row being read; elsewhere, on to the next table.
    func sayTable() {
        guard let navigator else { return }
        if let place = navigator.tablePlace {
            let values = ["r": String(place.row), "n": String(place.rows - 1), "c": String(place.columns)]
            host.speak(
                place.row == 0
                    ? tableIntro(place.rows, place.columns)
                    : phrases.text("table-where", values), priority: .important)
        } else if !navigator.moveToNextTable() {
            host.speak(
                phrases.text(
                    navigator.pagesToCome(forward: true)
                        ? "table-not-yet" : navigator.hasTables ? "table-last" : "no-tables"))
        }
    }

    func whereAmI() -> String {
        guard let position = navigator?.position, position.count > 0 else { return phrases.text("where-nothing") }
        if position.pages > 0 {
            return phrases.text(
                "where-page",
                [
                    "p": String(position.page), "n": String(position.pages), "k": String(position.itemOnPage),
                    "m": String(position.itemsOnPage),
                ])
        }
        var text = phrases.text(
            position.complete ? "where-sentence" : "where-sentence-streaming",
            ["k": String(position.item), "n": String(position.count)])
        if position.columns > 1 {
            text += phrases.text("where-column", ["c": String(position.column), "n": String(position.columns)])
        }
        return text
    }

    func saveText() {
        guard let items = navigator?.items, !items.isEmpty else {
            host.speak(phrases.text("nothing-to-save"))
            return
        }
        if let setting = host.setting("read-text.save"), setting == "off" || setting == "false" {
            host.speak(phrases.text("save-off"))
            return
        }
        do {
            let url = try TextSaver.save(items)
            host.speak(phrases.text("saved"))
            host.print(url.path)
        } catch {
            host.speak(error.message)
        }
    }

    /// Page `page` (from 1) of the document is recognised next. Not for a transcript, which is printed in the
    /// document's order whatever is asked meanwhile.
    func readNext(page: Int) {
        if !options.transcript { pageOrder?.want(page - 1) }
    }

    /// Says where a page move went, or why it did not.
    func sayPageMove(_ move: ReadingNavigator.PageMove, forward: Bool, asked: Int? = nil) {
        switch move {
        case .moved(let page):
            if let asked, asked != page { host.speak(phrases.text("page-empty-went", ["p": String(asked)])) }
        case .outside(let pages):
            if pages == 0 {
                host.speak(phrases.text("no-pages"))
            } else if let asked {
                host.speak(phrases.text("page-outside", ["p": String(asked), "n": String(pages)]))
            } else {
                host.speak(phrases.text(forward ? "page-last" : "page-first"))
            }
        case .notYet(let page):
            // That page is read next; reading goes on there when it has come.
            readNext(page: page)
            host.speak(phrases.text("page-not-yet", ["p": String(page)]))
            updateWaitingTick()
        case .empty: host.speak(phrases.text("page-empty"))
        }
    }

    func readAgain() {
        guard options.image == nil, options.file == nil else {
            navigator?.start()
            return
        }
        navigator?.stop()
        try? startCapture()
    }
}

extension Error {
    fileprivate var message: String { (self as? ReadTextError)?.message ?? "\(self)" }
}

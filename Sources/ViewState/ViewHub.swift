import Foundation

/// What the low-vision view shows, kept for a page that opens late, and sent to every open page as it changes:
/// the lines heard (each shown when it starts to sound, never before, so the eye and the ear stay together),
/// the word being heard, the question asked with its choices, the feature in front, and the view's settings.
/// What a page sends back comes out of `onInput`. Any thread.
package final class ViewHub: @unchecked Sendable {  // because: every mutable member is guarded by `lock`
    /// A question as the page shows it: its prompt, and its choices as buttons.
    package struct Question: Equatable, Sendable {
        package enum Kind: String, Sendable { case choice, confirm, text, secret }
        package var kind: Kind
        package var prompt: String
        package var choices: [String]

        package init(kind: Kind, prompt: String, choices: [String] = []) {
            self.kind = kind
            self.prompt = prompt
            self.choices = choices
        }
    }

    /// What a page asked for.
    package enum Input: Equatable, Sendable {
        /// A key by its name as `Key(name:)` reads it ("enter", "escape", "n", "pagedown").
        case key(String)
        /// A typed line (words at the menu, a command in a feature, a text question's answer).
        case line(String)
        /// The choice at this index of the question asked, clicked or touched.
        case choose(Int)
        /// A view setting changed on the page (`view.text-size`, `view.scheme`…), as text.
        case setting(key: String, value: String)
        /// The page shows the camera's preview (it is visible and the camera is open) at this zoom, or not.
        case preview(on: Bool, zoom: Double)
    }

    /// How many lines a page that opens late is given (the newest).
    static let keptLines = 60
    /// The longest line kept, in characters (a page of read-text is spoken sentence by sentence).
    static let longestLine = 4_000
    /// Messages a page may send: a burst, then so many a second; the rest are dropped (a stuck key, a script).
    package static let burst = 40.0
    static let perSecond = 20.0

    private let lock = NSLock()
    private var lines: [(id: UInt64, text: String)] = []
    private var waiting: [UInt64: String] = [:]
    private var speaking: (id: UInt64, start: Int, length: Int)?
    private var question: Question?
    private var feature: String?
    private var settings: [String: String] = [:]
    private var pages: [UInt64: Page] = [:]
    private var nextPage: UInt64 = 1
    private var nextPrinted: UInt64 = 1 << 40  // apart from speech's ids, and exact in a page's numbers
    /// Messages dropped for coming too fast, since the last time it was told to the log.
    private var dropped = 0

    private struct Page {
        let outlet: any ViewOutlet
        var allowance = ViewHub.burst
        var lastRefill = DispatchTime.now().uptimeNanoseconds
        /// The page is visible and shows the camera.
        var wantsPreview = false
    }

    /// What the feature in front shows besides its lines, by kind ("reading": the page being read, "sentence": which
    /// of its sentences, "target": what find-object guides to), each as the JSON its event carried.
    private var panels: [String: String] = [:]

    /// Shows `json` (valid JSON, from an event) as the feature's panel of `kind`; nil takes the panel away.
    package func panel(_ kind: String, _ json: String?) {
        let changed = lock.withLock {
            guard panels[kind] != json else { return false }
            panels[kind] = json
            return true
        }
        if changed { broadcast(Self.panelMessage(kind, json)) }
    }

    /// Takes every panel away (the feature ended).
    package func clearPanels() {
        let kinds = lock.withLock {
            defer { panels.removeAll() }
            return Array(panels.keys)
        }
        for kind in kinds { broadcast(Self.panelMessage(kind, nil)) }
    }

    private static func panelMessage(_ kind: String, _ json: String?) -> String {
        let name = Self.json(["kind": kind]).dropFirst().dropLast()
        return #"{"type":"panel",\#(name),"data":\#(json ?? "null")}"#
    }

    /// Whether a camera is open for the feature in front (the preview is offered only then).
    private var cameraOpen = false
    /// The digital zoom the last page asked for, 1…8.
    private var zoom = 1.0

    /// What pages ask for, on a thread of the server's: post it to the main loop.
    package var onInput: (@Sendable (Input) -> Void)?
    /// Told how many messages were dropped for coming too fast (at most once a second).
    package var onDropped: (@Sendable (Int) -> Void)?
    /// Told when the preview is wanted by some page or by none any more, and the zoom asked for.
    package var onPreview: (@Sendable (_ wanted: Bool, _ zoom: Double) -> Void)?

    package init(settings: [String: String] = [:]) {
        self.settings = settings
    }

    // MARK: What the host tells it

    /// An utterance queued to be spoken: shown once its first word sounds.
    package func queued(id: UInt64, text: String) {
        lock.withLock { waiting[id] = String(text.prefix(Self.longestLine)) }
    }

    /// A word of utterance `id` starts to sound: its line is shown if it was not yet, and the word is marked.
    package func word(id: UInt64, start: Int, length: Int) {
        var messages: [String] = []
        lock.withLock {
            if let text = waiting.removeValue(forKey: id) {
                appendLine(id: id, text: text)
                messages.append(Self.json(["type": "line", "id": id, "text": text]))
            }
            guard lines.last?.id == id else { return }
            speaking = (id, start, length)
            // `at`: when the word began to sound, in milliseconds of the wall clock (bench/view.sh).
            let at = (Date().timeIntervalSince1970 * 1000).rounded()
            messages.append(Self.json(["type": "word", "id": id, "start": start, "length": length, "at": at]))
        }
        messages.forEach(broadcast)
    }

    /// Utterance `id` ended; one that finished without a word sounding (no word marks) is shown now.
    package func ended(id: UInt64, finished: Bool) {
        var messages: [String] = []
        lock.withLock {
            if let text = waiting.removeValue(forKey: id), finished {
                appendLine(id: id, text: text)
                messages.append(Self.json(["type": "line", "id": id, "text": text]))
            }
            if speaking?.id == id {
                speaking = nil
                messages.append(Self.json(["type": "end", "id": id]))
            }
        }
        messages.forEach(broadcast)
    }

    /// A line printed and not spoken (speech is off): shown at once.
    package func printed(_ text: String) {
        let message = lock.withLock {
            let id = nextPrinted
            nextPrinted += 1
            let kept = String(text.prefix(Self.longestLine))
            appendLine(id: id, text: kept)
            return Self.json(["type": "line", "id": id, "text": kept])
        }
        broadcast(message)
    }

    /// The question asked now (nil: none).
    package func ask(_ question: Question?) {
        let changed = lock.withLock {
            guard self.question != question else { return false }
            self.question = question
            return true
        }
        if changed { broadcast(Self.questionMessage(question)) }
    }

    /// The feature in front (nil: the menu).
    package func focus(_ name: String?) {
        let changed = lock.withLock {
            guard feature != name else { return false }
            feature = name
            return true
        }
        if changed { broadcast(Self.json(["type": "feature", "name": name ?? NSNull()])) }
    }

    /// The view's settings as they are now (after a change by ear or on a page).
    package func update(settings: [String: String]) {
        let changed = lock.withLock {
            guard self.settings != settings else { return false }
            self.settings = settings
            return true
        }
        if changed { broadcast(Self.json(["type": "settings", "settings": settings])) }
    }

    /// Whether the feature in front has the camera open: pages offer the preview only then.
    package func camera(open: Bool) {
        let changed = lock.withLock {
            guard cameraOpen != open else { return false }
            cameraOpen = open
            return true
        }
        if changed { broadcast(Self.json(["type": "camera", "open": open])) }
    }

    /// A camera picture for the pages that show the preview (`ViewPicture`'s bytes).
    package func picture(_ bytes: [UInt8]) {
        let outlets = lock.withLock { pages.values.filter(\.wantsPreview).map(\.outlet) }
        for outlet in outlets { outlet.send(picture: bytes) }
    }

    /// True while some page shows the preview.
    package var previewWanted: Bool { lock.withLock { cameraOpen && pages.values.contains(where: \.wantsPreview) } }

    // MARK: Pages

    /// A page opened: its id. `outlet` is sent everything as it is now, then each change.
    package func connect(_ outlet: any ViewOutlet) -> UInt64 {
        lock.withLock {
            let id = nextPage
            nextPage += 1
            pages[id] = Page(outlet: outlet)
            outlet.send(stateMessage())
            return id
        }
    }

    /// A page closed.
    package func disconnect(_ id: UInt64) {
        let (page, wanted) = lock.withLock { (pages.removeValue(forKey: id), previewWantedLocked) }
        page?.outlet.close()
        if page?.wantsPreview == true { onPreview?(wanted, zoomLocked) }
    }

    private var previewWantedLocked: Bool { cameraOpen && pages.values.contains(where: \.wantsPreview) }
    private var zoomLocked: Double { zoom }

    /// Closes every page (the host is stopping).
    package func closeAll() {
        let all = lock.withLock {
            defer { pages.removeAll() }
            return Array(pages.values)
        }
        all.forEach { $0.outlet.close() }
    }

    /// How many pages are open.
    package var pageCount: Int { lock.withLock { pages.count } }

    /// A message from page `id`: acted on unless it came too fast or is not understood.
    package func received(_ text: String, from id: UInt64) {
        let allowed = lock.withLock { () -> Bool in
            guard var page = pages[id] else { return false }
            let now = DispatchTime.now().uptimeNanoseconds
            page.allowance = min(
                Self.burst, page.allowance + Double(now - page.lastRefill) / 1e9 * Self.perSecond)
            page.lastRefill = now
            guard page.allowance >= 1 else {
                pages[id] = page
                dropped += 1
                return false
            }
            page.allowance -= 1
            pages[id] = page
            return true
        }
        guard allowed else { return reportDropped() }
        guard let input = Self.input(from: text) else { return }
        if case .preview(let on, let asked) = input {
            let (wanted, chosen) = lock.withLock { () -> (Bool, Double) in
                pages[id]?.wantsPreview = on
                if on { self.zoom = min(8, max(1, asked)) }
                return (previewWantedLocked, self.zoom)
            }
            onPreview?(wanted, chosen)
            return
        }
        onInput?(input)
    }

    private var lastDropReport: UInt64 = 0

    private func reportDropped() {
        let count = lock.withLock { () -> Int in
            let now = DispatchTime.now().uptimeNanoseconds
            guard now - lastDropReport > 1_000_000_000 else { return 0 }
            lastDropReport = now
            defer { dropped = 0 }
            return dropped
        }
        if count > 0 { onDropped?(count) }
    }

    /// What a page's message asks for; nil for anything not understood (ignored).
    package static func input(from text: String) -> Input? {
        guard text.utf8.count <= 8_192, let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let type = object["type"] as? String
        else { return nil }
        switch type {
        case "key":
            guard let name = object["key"] as? String, !name.isEmpty, name.count <= 12 else { return nil }
            return .key(name)
        case "line":
            guard let line = object["text"] as? String, line.count <= 2_000 else { return nil }
            return .line(line)
        case "choose":
            guard let index = object["index"] as? Int, index >= 0 else { return nil }
            return .choose(index)
        case "preview":
            guard let on = object["on"] as? Bool else { return nil }
            let zoom = (object["zoom"] as? Double) ?? (object["zoom"] as? Int).map(Double.init) ?? 1
            guard zoom.isFinite else { return nil }
            return .preview(on: on, zoom: zoom)
        case "setting":
            guard let key = object["key"] as? String, key.hasPrefix("view."), let value = object["value"] as? String,
                value.count <= 40
            else { return nil }
            return .setting(key: key, value: value)
        default:
            return nil
        }
    }

    // MARK: Internals

    private func appendLine(id: UInt64, text: String) {
        lines.append((id, text))
        if lines.count > Self.keptLines { lines.removeFirst(lines.count - Self.keptLines) }
    }

    private func broadcast(_ message: String) {
        let outlets = lock.withLock { pages.values.map(\.outlet) }
        for outlet in outlets { outlet.send(message) }
    }

    /// Everything as it is now, for a page that just opened. Called under `lock`.
    private func stateMessage() -> String {
        var state: [String: Any] = [
            "type": "state",
            "panels": panels.compactMapValues { try? JSONSerialization.jsonObject(with: Data($0.utf8)) },
            "lines": lines.map { ["id": $0.id, "text": $0.text] as [String: Any] },
            "settings": settings,
            "feature": feature ?? NSNull(),
            "question": Self.questionObject(question),
            "camera": cameraOpen,
        ]
        if let speaking {
            state["speaking"] = ["id": speaking.id, "start": speaking.start, "length": speaking.length]
        }
        return Self.json(state)
    }

    private static func questionObject(_ question: Question?) -> Any {
        guard let question else { return NSNull() }
        return ["kind": question.kind.rawValue, "prompt": question.prompt, "choices": question.choices]
    }

    private static func questionMessage(_ question: Question?) -> String {
        json(["type": "question", "question": questionObject(question)])
    }

    static func json(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Where one page's messages go: its socket's queues (`ViewServer`), or a test's list. Each call returns at once.
package protocol ViewOutlet: Sendable {
    /// A JSON message.
    func send(_ message: String)
    /// A camera picture (`ViewPicture`'s bytes); one not yet sent may be replaced by a newer one.
    func send(picture: [UInt8])
    /// The page is closed: nothing more is sent.
    func close()
}

/// A page's outlet onto its socket: messages wait in a queue of 512 (a page that cannot keep up loses the
/// oldest, and the host never waits), pictures in a queue of one (a slow page skips pictures).
package struct StreamOutlet: ViewOutlet {
    package let messages: AsyncStream<String>
    package let pictures: AsyncStream<[UInt8]>
    private let messageQueue: AsyncStream<String>.Continuation
    private let pictureQueue: AsyncStream<[UInt8]>.Continuation

    package init() {
        (messages, messageQueue) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(512))
        (pictures, pictureQueue) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    package func send(_ message: String) { messageQueue.yield(message) }
    package func send(picture: [UInt8]) { pictureQueue.yield(picture) }
    package func close() {
        messageQueue.finish()
        pictureQueue.finish()
    }
}

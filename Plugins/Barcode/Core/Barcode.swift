import Foundation
import OCR
import PluginAPI
import PluginKit

/// The barcode reader (barcode.md): EAN, UPC, Code 128 and QR codes from the camera, with guiding tones that
/// quicken as bars come into view, the code said when it is read (a person's own label first), `l` or
/// "label this" to name it; `labels`, `forget`, `rename`, `export` and `import` for the names; `--image PHOTO`
/// for a photo. Frames are scanned on a worker of its own (the newest frame only); what is said is decided on
/// the main loop.
// because: its state is touched only on the main loop; the scanning worker only posts there
public final class Barcode: PluginFeature, @unchecked Sendable {
    let host: PluginHostHandle
    let phrases: PhraseTable
    private var worker: LatestFrameWorker?
    /// The last code said, and when (monotonic seconds): the same code is not said again for `repeatSeconds`.
    private var lastSaid: (code: FoundCode, at: Double)?
    private var lastUnsure = 0.0
    private var guiding = false
    private var openedStore: LabelStore?
    /// The product lookup of this run, when an admin set one (`Barcode+Lookup`).
    var lookups: LookupRun?
    static let repeatSeconds = 4.0

    public init(host: PluginHostHandle) {
        self.host = host
        phrases = PhraseTable(directory: host.shareDirectory, language: host.language)
    }

    /// The phrase `key` with `values`; one with a `count` takes its form for one where there is.
    func text(_ key: String, _ values: [String: String] = [:]) -> String {
        if let count = values["count"].flatMap({ Int($0) }) { return phrases.text(key, count: count, values) }
        return phrases.text(key, values)
    }

    public func start(arguments: [String]) throws(PluginError) {
        guard let first = arguments.first else { return try startScanning() }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "--help", "-h": host.print(text("help-usage")); host.finish()
        case "--image":
            guard rest.count == 1 else { throw PluginError(text("image-needs-path")) }
            readPhoto(rest[0])
        case "labels":
            if rest == ["--start-again"] { return try startLabelsAgain() }
            guard rest.isEmpty else { throw PluginError(text("labels-usage")) }
            listLabels()
        case "forget":
            let name = rest.filter { $0 != "--yes" }.joined(separator: " ")
            guard !name.isEmpty else { throw PluginError(text("labels-usage")) }
            forget(name, confirmed: rest.contains("--yes"))
        case "rename":
            guard rest.count == 2 else { throw PluginError(text("labels-usage")) }
            rename(rest[0], to: rest[1])
        case "export":
            guard rest.count == 1 else { throw PluginError(text("labels-usage")) }
            export(to: rest[0])
        case "import":
            guard rest.count == 1 else { throw PluginError(text("labels-usage")) }
            importLabels(from: rest[0])
        default:
            throw PluginError(text("unknown-option", ["option": first]))
        }
    }

    /// The labels' database, opened once (a code read from the camera looks its label up there).
    func store() throws(PluginError) -> LabelStore {
        if let opened = openedStore { return opened }
        do {
            let store = try LabelStore(host: host)
            openedStore = store
            return store
        } catch {
            throw PluginError(unreadableLabels(error))
        }
    }

    func fail(_ message: String, status: PluginStatus) {
        host.speak(message, priority: .important)
        host.finish(status)
    }

    // MARK: the camera

    func startScanning() throws(PluginError) {
        try? host.registerCommand("label", key: "l", phrases: phrases)
        host.say(text(host.firstTime("intro") ? "intro" : "intro-short"))
        setUpLookup()
        let scanner = CodeScanner()
        worker = LatestFrameWorker(host: host, name: "assist-barcode-scan") { [weak self] frame in
            guard frame.format == .gray8 else { return 0 }
            // Every other frame is smoothed first: a dim, grainy code is read within two frames.
            let codes = scanner.scan(
                grey: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride,
                smoothed: frame.sequence % 2 == 1)
            let bars =
                codes.isEmpty
                ? BarLikeness(grey: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride)
                : nil
            let seconds = Double(frame.timestamp) / 1e9
            self?.host.onMain { [weak self] in self?.saw(codes, bars: bars, at: seconds) }
            return 0
        }
        // A 1280 × 720 picture, grey: codes a hand's length away are wide enough to read.
        do {
            try host.subscribeCamera(format: .gray8, maxWidth: 1_280, maxHeight: 720, maxFramesPerSecond: 15)
        } catch { throw PluginError(error.message) }
        host.subscribeEvents(prefix: "assist.camera.ended") { [self] _, _ in
            stop()
            host.finish()
        }
    }

    public func handle(frame: CameraFrame) { worker?.offer(frame) }

    /// On the main loop: a code read is said (unless it was just said); bars without a code guide.
    func saw(_ codes: [FoundCode], bars: BarLikeness?, at seconds: Double) {
        guard worker != nil else { return }
        guard let code = codes.first else {
            if let bars, bars.score >= 0.2 {
                guiding = true
                host.guidance(.left, intensity: 0.2 + 0.8 * bars.score, pan: bars.across * 2 - 1)
            } else if guiding {
                guiding = false
                host.stopCues()
            }
            return
        }
        if guiding {
            guiding = false
            host.stopCues()
        }
        guard CodeText.checkDigitHolds(code) else {
            if seconds - lastUnsure >= Self.repeatSeconds {
                lastUnsure = seconds
                host.speak(text("unsure"))
            }
            return
        }
        if let last = lastSaid, CodeText.key(last.code) == CodeText.key(code), seconds - last.at < Self.repeatSeconds {
            lastSaid = (code, seconds)
            return
        }
        lastSaid = (code, seconds)
        host.play(.found, pan: code.across * 2 - 1)
        host.cancelSpeech()
        host.speak(sentence(for: code), priority: .important)
    }

    /// "Tomato soup. EAN 4006381333931", or the code alone with the hint to label it, the first time (and, with
    /// a product lookup set up, the number sent to it: its name is said when it answers).
    func sentence(for code: FoundCode) -> String {
        let key = CodeText.key(code)
        let label = try? store().label(forKey: key)
        let spoken = said(code, label: label, lookedUp: label == nil ? lookedUpName(key) : nil)
        return spoken + (label == nil && host.firstTime("label-hint") ? " " + text("label-hint") : "")
    }

    public func handle(command: String, argument: String?) {
        guard command == "label" else { return }
        guard let code = lastSaid?.code else {
            host.speak(text("nothing-read"))
            return
        }
        askLabel(for: code, given: argument)
    }

    /// Asks for a name (typed or said) for `code`, or takes `given`; says why a name is refused and asks again.
    func askLabel(for code: FoundCode, given: String? = nil) {
        let ask = { [self] (name: String?) -> Void in
            guard let name, !name.isEmpty else {
                host.speak(text("label-cancelled"))
                return
            }
            do {
                let store = try store()
                let key = CodeText.key(code)
                if let problem = LabelName.problem(name, existing: try store.label(named: name), forKey: key) {
                    host.speak(text(problem, ["name": NameKey.cleaned(name), "longest": String(LabelName.longest)]))
                    return askLabel(for: code)
                }
                try store.save(
                    LabelStore.Label(key: key, kind: code.kind.rawValue, code: code.text, name: NameKey.cleaned(name)))
                host.play(.success)
                host.speak(text("label-saved", ["name": NameKey.cleaned(name)]), priority: .important)
            } catch {
                let said = (error as? PluginStatus).map(unreadableLabels) ?? Self.sentence(error)
                host.speak(said, priority: .important)
            }
        }
        if let given { return ask(given) }
        host.askText(text("label-ask", ["code": CodeText.spoken(code) { self.text($0, $1) }])) { ask($0) }
    }

    public func stop() {
        worker?.stop()
        worker = nil
        host.unsubscribeCamera()
        host.stopCues()
    }

    public func pause() {
        host.unsubscribeCamera()
        host.stopCues()
    }

    public func resume() {
        do {
            try host.subscribeCamera(format: .gray8, maxWidth: 1_280, maxHeight: 720, maxFramesPerSecond: 15)
        } catch { fail(error.message, status: .io) }
    }

    // MARK: a photo

    /// `--image PHOTO`: every code found, one a line (labels first where there are), then the end.
    func readPhoto(_ path: String) {
        do {
            let photo = try TesseractEngine.loadGray(URL(fileURLWithPath: path), largestSide: 2_048)
            let codes = photo.pixels.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map {
                    CodeScanner().scanThoroughly(
                        grey: $0, width: photo.width, height: photo.height, stride: photo.width)
                } ?? []
            }
            let trusted = codes.filter(CodeText.checkDigitHolds)
            if trusted.isEmpty {
                return fail(text(codes.isEmpty ? "no-code" : "unsure"), status: .notFound)
            }
            setUpLookup()
            sayPhoto(trusted)
        } catch {
            fail("\(error)", status: .invalid)
        }
    }

    /// The code as said, its label first when it has one, else a name looked up (a photo's codes: no hint).
    func sentenceWithoutHint(_ code: FoundCode) -> String {
        let key = CodeText.key(code)
        let label = try? store().label(forKey: key)
        let spoken = said(code, label: label, lookedUp: label == nil ? lookedUpName(key) : nil)
        guard label == nil, lookups?.found[key] == .unknown, let number = ProductLookup.number(forKey: key) else {
            return spoken
        }
        return spoken + ". " + text("lookup-unknown", ["number": number])
    }

    private func said(_ code: FoundCode, label: LabelStore.Label?, lookedUp: String?) -> String {
        let spoken = CodeText.spoken(code) { self.text($0, $1) }
        if let label { return text("labelled", ["name": label.name, "code": spoken]) }
        if let lookedUp { return text("looked-up", ["name": lookedUp, "code": spoken]) }
        return spoken
    }
}

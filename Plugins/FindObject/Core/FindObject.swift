import Foundation
import OCR
import ObjectDetection
import PluginAPI
import PluginKit

/// The find-object feature (find-object.md): finds an object (YOLOv4-tiny) or a piece of text (tesseract) in
/// the camera's pictures and guides the user to it with stereo cues and short phrases. Frames are processed
/// on the host's delivery thread for this plugin, whose one-frame mailbox keeps only the newest; the search
/// state lives in `search`, used only there. The main loop owns commands, zoom, pause and timers.
public final class FindObject: PluginFeature {
    let host: PluginHostHandle
    let phrases: PhraseTable
    let language: String
    let search: SearchState
    let loader = WorkerThread(name: "assist-find-object-load")
    var mailbox: LatestFrameWorker?
    var zoomIndex = 0
    var paused = false
    var autoPauseTimer: UInt64?
    var zoomTimer: UInt64?
    /// The sound tour: playing, the step's timer, and whether the search it paused goes on after it.
    var touring = false
    var tourTimer: UInt64?
    var resumeAfterTour = false
    /// Camera teaching while it films (set and cleared on the main loop, fed on the delivery thread).
    private let teachingLock = NSLock()
    private var currentTeaching: Teaching?
    var teaching: Teaching? {
        get { teachingLock.withLock { currentTeaching } }
        set { teachingLock.withLock { currentTeaching = newValue } }
    }
    static let zoomLevels = [1.0, 1.25, 1.8, 3, 5]
    static let zoomWords = ["one", "one point two five", "one point eight", "three", "five"]

    public init(host: PluginHostHandle) {
        self.host = host
        language = host.language
        phrases = PhraseTable(directory: host.shareDirectory, language: language)
        search = SearchState(host: host, phrases: phrases)
    }

    public func start(arguments: [String]) throws(PluginError) {
        if arguments == ["--help"] || arguments == ["-h"] {
            host.print(phrases.text("help-usage"))
            return host.finish()
        }
        search.configure(settings: { [host] in host.setting($0) })
        for (id, key) in [("zoom-in", "+"), ("zoom-out", "-"), ("sounds", "t")] {
            try? host.registerCommand(id, key: key, phrases: phrases)
        }
        if arguments == ["--check-models"] {
            checkModels()
        } else if try startThings(arguments) {
            return
        } else if arguments.isEmpty {
            askForObject()
        } else if arguments == ["--text"] {
            askForText()
        } else {
            startSearch(try parse(arguments))
        }
    }

    /// Opens the engine for `request` off the main loop, then begins.
    func startSearch(_ request: SearchState.Request) {
        if case .text(let query) = request { rememberQuery(query) }
        let shareDirectory = host.shareDirectory
        let dataDirectory = host.dataDirectory
        let language = language
        loader.run { [self] in
            do {
                try search.prepare(request, share: shareDirectory, data: dataDirectory, language: language)
                host.onMain { [self] in begin(request) }
            } catch {
                let message = (error as? FindObjectError).map { $0.detection.map(said) ?? $0.message } ?? "\(error)"
                host.onMain { [self] in fail(message) }
            }
        }
    }

    /// What the arguments ask for: `--text QUERY…` or an object's name.
    func parse(_ arguments: [String]) throws(PluginError) -> SearchState.Request {
        if arguments.first == "--text" {
            switch TextSearch.validate(arguments.dropFirst().joined(separator: " ")) {
            case .success(let query): return .text(query)
            case .failure(let problem): throw PluginError(phrases.text(problem.phraseKey))
            }
        }
        // An option it does not have is refused as one (the sweep's `--frobnicate` was searched for as "cat").
        if let option = arguments.first, option.hasPrefix("-") {
            throw PluginError(phrases.text("unknown-option", ["option": option]))
        }
        let query = arguments.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty else { throw PluginError(phrases.text("usage")) }
        return try resolveObject(query)
    }

    /// The object `query` names, or the sentence saying it is unknown (with the closest names). The person's
    /// own things come first (a taught "cup" is theirs), then COCO's names, then each custom model's
    /// (find-object.md §2 and §6).
    func resolveObject(_ query: String) throws(PluginError) -> SearchState.Request {
        // A things file that cannot be read is said (with the way out), and the objects Assist knows are searched.
        if ThingFile.database.isDamaged(in: host.dataDirectory) {
            host.speak(phrases.text("things-damaged-search"), priority: .important)
        }
        if let key = Thing.key(for: query), let store = try? ThingStore(host: host) {
            var damaged: [String] = []
            let things = (try? store.all(damaged: &damaged)) ?? []
            if let thing = things.first(where: { $0.key == key }) { return .thing(thing) }
            if let words = damaged.first(where: { Thing.key(for: $0) == key }) {
                throw PluginError(phrases.text("thing-damaged", ["name": words]))
            }
        }
        let names = try? ObjectNames(directory: host.shareDirectory ?? "", language: language)
        if let names, let id = names.resolve(query) { return .object(classID: id, name: names.mainName(id)) }
        for found in CustomModel.discover(roots: CustomModel.roots(share: host.shareDirectory)) {
            guard case .success(let model) = found.result else { continue }
            let custom = ObjectNames(model: model, language: language)
            if let id = custom.resolve(query) { return .object(classID: id, name: custom.mainName(id), model: model) }
        }
        if let item = SearchState.knownGap.first(where: { $0 == Thing.key(for: query) }) {
            let plural = SearchState.pluralGap.contains(item)
            throw PluginError(phrases.text(plural ? "not-taught-plural" : "not-taught", ["item": item]))
        }
        let closest = names?.suggestions(for: query).joined(separator: ", ") ?? ""
        throw PluginError(phrases.text("not-found", ["query": query, "names": closest]))
    }

    /// `--check-models`: each custom model's state, for an admin, one line each.
    func checkModels() {
        let roots = CustomModel.roots(share: host.shareDirectory)
        let found = CustomModel.discover(roots: roots)
        if found.isEmpty {
            host.speak(phrases.text("no-custom-models", ["folders": roots.joined(separator: ", ")]))
        }
        for (id, result) in found {
            switch result {
            case .success(let model):
                host.speak(phrases.text("custom-model-ok", count: model.spec.classNames.count, ["id": id]))
            case .failure(let error): host.speak(error.message)
            }
        }
        host.finish(found.allSatisfy { (try? $0.result.get()) != nil } ? .ok : .invalid)
    }

    /// The engine is ready: say what is searched and start the pictures.
    func begin(_ request: SearchState.Request) {
        let search = self.search
        let host = self.host
        mailbox = LatestFrameWorker(host: host, name: "assist-find-object-search") { frame in
            search.stopped ? 0 : search.process(frame)
        }
        if host.firstTime("safety-notice") {
            host.speak(phrases.text("safety-notice"))
            host.speak(phrases.text("sounds-offer"))
        }
        // Paused before the engine was ready: the pictures start with resume. A camera that is refused (not
        // given, or gone) is said instead of the search, not after it.
        if !paused {
            do throws(PluginError) { try subscribe() } catch { return fail(error.message) }
        }
        switch request {
        case .object(_, let name, _): host.speak(phrases.text("looking-object", ["name": name]))
        case .thing(let thing): host.speak(phrases.text("looking-object", ["name": thing.words]))
        case .text(let query): host.speak(phrases.text("looking-text", ["query": query]))
        }
        if !paused { scheduleAutoPause() }
        // A video or a folder of pictures ran out (the host has said so): the search is over.
        host.subscribeEvents(prefix: "assist.camera.ended") { [self] _, _ in
            stop()
            host.finish()
        }
    }

    /// Text: gray pictures up to 1280×960 (small print needs them), 16 a second. Objects: colour pictures up
    /// to 640×480 (the detector's input is 416 square), every frame up to 30 a second for the follower.
    func subscribe() throws(PluginError) {
        let text = search.isTextSearch
        search.forgetFollowing()
        do {
            try host.subscribeCamera(
                format: text ? .gray8 : .bgr24, maxWidth: text ? 1280 : 640, maxHeight: text ? 960 : 480,
                maxFramesPerSecond: text || !search.follows ? 16 : 30, zoom: Self.zoomLevels[zoomIndex])
        } catch { throw PluginError(error.message) }
    }

    /// The detector's reason, in the person's language.
    func said(_ error: DetectionError) -> String { phrases.text(error.phrase, error.values) }

    func fail(_ message: String) {
        host.speak(message, priority: .important)
        host.finish(.notFound)
    }

    /// On the host's delivery thread: an object search's follower moves with every frame; the search worker
    /// takes the newest it can.
    public func handle(frame: CameraFrame) {
        if let teaching {
            teaching.worker?.offer(frame)
            return
        }
        guard !search.stopped else { return }
        if search.follows { search.follow(frame) }
        mailbox?.offer(frame)
    }

    public func pause() {
        paused = true
        search.stopped = true
        host.unsubscribeCamera()
        host.stopCues()
        cancelAutoPause()
    }

    public func resume() {
        guard paused else { return }
        paused = false
        search.stopped = false
        host.speak(phrases.text("resumed"))
        do { try subscribe() } catch { fail(error.message) }
        scheduleAutoPause()
    }

    public func stop() {
        if let timer = teaching?.timer { host.cancelTimer(timer) }
        teaching?.worker?.stop()
        teaching = nil
        touring = false
        if let tourTimer { host.cancelTimer(tourTimer) }
        tourTimer = nil
        search.stopped = true
        host.unsubscribeCamera()
        host.stopCues()
        cancelAutoPause()
        zoomIndex = 0
        loader.stop()
        mailbox?.stop()
    }

    public func handle(command: String, argument: String?) {
        switch command {
        case "zoom-in": zoom(by: 1)
        case "zoom-out": zoom(by: -1)
        case "sounds": explainSounds()
        default: break
        }
    }

    /// Steps the digital zoom: a tap at once, the new level spoken 100 ms later (the last of quick steps).
    func zoom(by step: Int) {
        let next = min(Self.zoomLevels.count - 1, max(0, zoomIndex + step))
        guard next != zoomIndex else { return }
        zoomIndex = next
        host.play(.tap, gain: 0.7)
        if !paused, mailbox != nil { try? subscribe() }
        if let zoomTimer { host.cancelTimer(zoomTimer) }
        zoomTimer = host.addTimer(milliseconds: 100, repeating: false) { [self] in
            host.cancelSpeech()
            host.speak(
                phrases.text("zoom", ["level": Self.zoomWords[zoomIndex]]), priority: .important)
        }
    }

    /// find-object.auto-pause: off, or seconds (default 120) from start or resume.
    func scheduleAutoPause() {
        cancelAutoPause()
        let setting = host.setting("find-object.auto-pause") ?? "120"
        guard let seconds = UInt32(setting), seconds > 0 else { return }
        autoPauseTimer = host.addTimer(milliseconds: seconds * 1_000, repeating: false) { [self] in
            autoPauseTimer = nil
            pause()
            // The host's Space and "resume" then go on (docs/plugin-abi.md, "A feature that pauses itself").
            host.publish("assist.find-object.paused", json: "{}")
            host.guidance(.right, intensity: 1, pan: 0)
            _ = host.addTimer(milliseconds: 450, repeating: false) { [host] in host.stopCues() }
            host.speak(phrases.text(search.isTextSearch ? "paused-text" : "paused-object"))
        }
    }

    func cancelAutoPause() {
        if let autoPauseTimer { host.cancelTimer(autoPauseTimer) }
        autoPauseTimer = nil
    }
}

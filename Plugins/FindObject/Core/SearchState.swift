import Foundation
import OCR
import ObjectDetection
import PluginAPI
import PluginKit

/// The search as the frame thread runs it: the engine, the tracker and what was last played and said.
/// `stopped` is set from the main loop; everything else is used only on the frame thread (and by `prepare`
/// on the loader thread before the first frame).
// because: `stopped` is guarded by `lock`; the rest is confined to one thread at a time, as described
final class SearchState: @unchecked Sendable {
    enum Request: Sendable {
        /// A class of COCO's model, or of `model` when it is a custom one.
        case object(classID: Int, name: String, model: CustomModel? = nil)
        case text(String)
    }

    enum Feedback: String { case both, tones, speech }

    /// The original's items that no model can find yet (find-object.md §6).
    static let knownGap = [
        "cap", "door handle", "glasses", "glove", "hand dryer", "hat", "keys", "knitted hat", "light switch",
        "power outlet", "screwdriver", "tap", "toilet paper", "wallet", "white cane",
    ]

    private let host: PluginHostHandle
    private let phrases: PhraseTable
    private let lock = NSLock()
    private var isStopped = false
    var stopped: Bool {
        get { lock.withLock { isStopped } }
        set { lock.withLock { isStopped = newValue } }
    }

    private(set) var request: Request?
    private var detector: ObjectDetector?
    private var engine: TesseractEngine?
    private var tracker = Tracker()
    private var throttle = Throttle()
    private var thermal = ThermalZones()
    private var patternFilter = RepeatFilter()
    private var phraseFilter = RepeatFilter()
    private var feedback = Feedback.both
    private var clockDirections = false
    private var fieldOfView = 60.0
    private var matchMode = TextSearch.Mode.exact
    private var sparseText = false
    private var wasGuiding = false
    private var lastSeen = 0.0
    private var lostSaid = true
    private var lastHour: (hour: Int, time: Double)?
    private var lastPrinted = ""
    /// When the user last heard from the search (a cue, a direction, "lost"); 0 before the first frame.
    private var lastHeard = 0.0
    /// After this long with nothing found and nothing said, "Still looking" and a hint: 18 s, so that with a
    /// frame searched every second or two the silence stays within 20 s.
    static let stillLookingSeconds = 18.0

    init(host: PluginHostHandle, phrases: PhraseTable) {
        self.host = host
        self.phrases = phrases
    }

    var isTextSearch: Bool {
        if case .text = request { return true }
        return false
    }

    private var targetName: String {
        switch request {
        case .object(_, let name, _): return name
        case .text(let query): return query
        case nil: return ""
        }
    }

    func configure(settings: (String) -> String?) {
        feedback = settings("find-object.feedback").flatMap(Feedback.init) ?? .both
        clockDirections = settings("find-object.directions") == "clock"
        fieldOfView = settings("camera.hfov-degrees").flatMap(Double.init) ?? 60
        matchMode = settings("find-text.match").flatMap(TextSearch.Mode.init) ?? .exact
        sparseText = settings("find-text.psm") == "11"
    }

    /// Opens the engine for `request` (loader thread): the checked model, or tesseract for the language.
    func prepare(_ request: Request, share: String?, data: String?, language: String) throws {
        self.request = request
        switch request {
        case .object(_, _, let custom?):
            // Checked when it was found; opened as it is.
            do { detector = try ObjectDetector(spec: custom.spec) } catch {
                throw FindObjectError(message: error.message)
            }
        case .object:
            let cache = data.map { URL(fileURLWithPath: $0).appendingPathComponent("model-checked.txt") }
            if let data { try? FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true) }
            do {
                detector = try ObjectDetector(directory: try ModelFiles.locate(share: share, data: data, cache: cache))
            } catch { throw FindObjectError(message: error.message) }
        case .text:
            tracker = Tracker(missPenalty: 2)
            throttle = Throttle(capMilliseconds: 500)
            let languages = ["ru": "rus+eng", "zh": "chi_sim+eng"][language] ?? "eng"
            do { engine = try TesseractEngine(languages: languages) } catch {
                throw FindObjectError(message: (error as? OCRError)?.message ?? "Text recognition cannot start.")
            }
        }
    }

    /// One frame: find the target, track it, guide. Returns the back-off delay in milliseconds.
    func process(_ frame: CameraFrame) -> Double {
        let now = ProcessInfo.processInfo.systemUptime
        let started = DispatchTime.now().uptimeNanoseconds
        let seen = locate(frame)
        tracker.update(seen)
        if seen != nil { lastSeen = now }
        guide(now: now, captured: frame.timestamp)
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        return throttle.delay(afterProcessing: milliseconds, heat: thermal.pressure(at: now))
    }

    private func locate(_ frame: CameraFrame) -> Tracker.Point? {
        let (pixels, width, height, stride) = (frame.pixels, frame.width, frame.height, frame.stride)
        switch request {
        case .object(let classID, _, _):
            guard let detector, frame.format == .bgr24 else { return nil }
            let found = detector.detect(bgr: pixels, width: width, height: height, stride: stride, onlyClass: classID)
            let nearest = found.detections.min {
                Self.distance($0.centreX, $0.centreY) < Self.distance($1.centreX, $1.centreY)
            }
            return nearest.map { Tracker.Point(x: $0.centreX, y: $0.centreY) }
        case .text(let query):
            guard let engine, frame.format == .gray8 else { return nil }
            let lines = engine.recognize(
                gray: pixels, width: width, height: height, stride: stride, mode: sparseText ? .sparse : .auto,
                minimumLineHeight: 0.016)
            let matches = lines.compactMap { line -> Tracker.Point? in
                guard let range = TextSearch.match(query, in: line.text, mode: matchMode) else { return nil }
                // OCR boxes have their origin at the bottom left; guidance's y grows downwards.
                return Tracker.Point(x: TextSearch.targetX(range: range, in: line), y: 1 - line.box.midY)
            }
            return matches.min { Self.distance($0.x, $0.y) < Self.distance($1.x, $1.y) }
        case nil:
            return nil
        }
    }

    /// Plays and says what the tracker's prediction calls for; `captured` (CLOCK_MONOTONIC ns) gives the
    /// frame-to-cue latency reported with each guidance event.
    private func guide(now: Double, captured: UInt64) {
        // Stopped or paused while this frame was searched: nothing more is played or said for it.
        guard !stopped else {
            lastHeard = 0
            return
        }
        if lastHeard == 0 { lastHeard = now }
        guard tracker.isGuiding, let point = tracker.predicted else {
            if wasGuiding { host.stopCues() }
            wasGuiding = false
            if tracker.conviction == 0, !lostSaid, now - lastSeen >= 1 {
                lostSaid = true
                lastHeard = now
                host.play(.lost)
                host.speak(phrases.text("lost", ["name": targetName]), priority: .message)
                lastPrinted = ""
                host.publish("assist.find-object.lost", json: "{}")
            } else if now - lastHeard >= Self.stillLookingSeconds, !host.isSpeaking {
                lastHeard = now
                let key = isTextSearch ? "still-looking-text" : "still-looking"
                host.speak(phrases.text(key, ["name": targetName]), priority: .message)
            }
            return
        }
        lastHeard = now
        if !wasGuiding, lostSaid {
            host.play(.found)
            lastHour = nil
        }
        wasGuiding = true
        lostSaid = false
        let decision = GuidanceDecision(x: point.x, y: point.y)
        if feedback != .speech,
            patternFilter.allows("\(decision.pattern)", at: now) || decision.pattern == ASSIST_CUE_CONTINUOUS
        {
            host.guidance(
                GuidancePattern(rawValue: decision.pattern) ?? .centred, intensity: decision.intensity,
                pan: decision.pan)
            var clock = timespec()
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let nowNs = UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec)
            let latency = captured > 0 && nowNs > captured ? Double(nowNs - captured) / 1e6 : 0
            host.publish(
                "assist.find-object.guidance",
                json: String(
                    format:
                        #"{"direction":"%@","pattern":%d,"intensity":%.3f,"pan":%.3f,"x":%.3f,"y":%.3f,"latency_ms":%.1f}"#,
                    decision.direction.rawValue, decision.pattern, decision.intensity, decision.pan, point.x, point.y,
                    latency))
        }
        // Phrases only while speech is idle; a phrase printed already is not printed again until another comes.
        guard feedback != .tones, !host.isSpeaking, let phrase = phrase(for: decision, x: point.x, now: now),
            phraseFilter.allows(phrase, at: now)
        else { return }
        host.speak(phrase, priority: .progress, printed: phrase != lastPrinted)
        lastPrinted = phrase
    }

    private func phrase(for decision: GuidanceDecision, x: Double, now: Double) -> String? {
        let centred = phrases.text(isTextSearch ? "text-centered" : "object-centered")
        guard clockDirections, decision.direction != .centered else {
            return decision.phrase({ phrases.text($0) }, centred: centred)
        }
        let hour = GuidanceDecision.clockHour(x: x, fieldOfView: fieldOfView)
        if let lastHour, lastHour.hour == hour || now - lastHour.time < 2 { return nil }
        lastHour = (hour, now)
        return phrases.text("clock", ["name": targetName, "hour": "\(hour)"])
    }

    private static func distance(_ x: Double, _ y: Double) -> Double { (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5) }
}

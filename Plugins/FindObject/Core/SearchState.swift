import Foundation
import OCR
import ObjectDetection
import PluginAPI
import PluginKit

/// The search as the frame threads run it: the engine, the tracker and what was last played and said.
///
/// A text search runs on the search worker alone: each recognised frame is tracked and guided. An object
/// search runs on two threads: the search worker detects in the newest frame it can take (until the target is
/// found, one detection after another; then one every `Throttle.followingInterval`) and hands each result over
/// (`handedOver`); the host's delivery thread, on every frame, moves the follower
/// (optical flow, a few milliseconds), takes the newest result to correct it, and guides, so cues follow a
/// moving hand at the camera's rate rather than at the detector's (issue 37).
/// `stopped` and the hand-over are guarded by `lock`; the detector is the worker's; the tracker, the follower
/// and what was played and said belong to the thread that guides (and to `prepare` on the loader thread
/// before the first frame).
// because: `stopped`, `handedOver` and `forget` are guarded by `lock`; the rest is confined as described
final class SearchState: @unchecked Sendable {
    enum Request: Sendable {
        /// A class of COCO's model, or of `model` when it is a custom one.
        case object(classID: Int, name: String, model: CustomModel? = nil)
        /// A thing the person taught.
        case thing(Thing)
        case text(String)
    }

    enum Feedback: String { case both, tones, speech }

    /// The original's items that no model finds until the person teaches theirs (find-object.md §6).
    static let knownGap = [
        "cap", "door handle", "glasses", "glove", "hand dryer", "hat", "keys", "knitted hat", "light switch",
        "power outlet", "screwdriver", "tap", "toilet paper", "wallet", "white cane",
    ]
    static let pluralGap: Set = ["glasses", "keys"]

    private let host: PluginHostHandle
    private let phrases: PhraseTable
    private let lock = NSLock()
    private var isStopped = false
    var stopped: Bool {
        get { lock.withLock { isStopped } }
        set { lock.withLock { isStopped = newValue } }
    }
    /// The newest detection not yet taken by the delivery thread: the nearest box (nil: not seen) and the
    /// frame's capture time. Guarded by `lock`.
    private var handedOver: (box: Detection?, captured: UInt64)?
    /// Set when the pictures change under the follower (pause, resume, zoom); guarded by `lock`.
    private var forget = false
    /// The follower of an object search (nil for text, or without the detector library's follower), and where
    /// it put the target in the last frames (capture time, centre), for a late detection to be compared with.
    private var follower: ObjectFollower?
    private var followed: [(captured: UInt64, x: Double, y: Double)] = []
    private var followedBox: Detection?

    private(set) var request: Request?
    private var detector: ObjectDetector?
    /// The embedder: a taught thing's search needs it; an object search uses it, when installed, to keep one
    /// instance as the target (`targetLook`, the worker's) rather than hop to whichever is nearest the middle.
    private var embedder: ObjectEmbedder?
    private var targetLook: [Float]?
    private var searchesWithoutTarget = 0
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
    /// The guidance given for the last picture the target was in, whose words a jittering box keeps.
    private var lastDecision: GuidanceDecision?
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
        case .thing(let thing): return thing.words
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
                throw FindObjectError(detection: error)
            }
            embedder = Self.optionalEmbedder(share: share, data: data)
            follower = ObjectFollower()
        case .thing:
            do {
                // The detector only proposes where things are, of any kind: a 320-pixel input is enough and
                // costs 60 % of the 416 an object search uses.
                var spec = try Self.cocoSpec(share: share, data: data)
                spec.inputSize = 320
                detector = try ObjectDetector(spec: spec)
                embedder = try Self.openEmbedder(share: share, data: data)
            } catch { throw FindObjectError(detection: error) }
            follower = ObjectFollower()
        case .object:
            do { detector = try ObjectDetector(spec: try Self.cocoSpec(share: share, data: data)) } catch {
                throw FindObjectError(detection: error)
            }
            embedder = Self.optionalEmbedder(share: share, data: data)
            follower = ObjectFollower()
        case .text:
            tracker = Tracker(missPenalty: 2)
            throttle = Throttle(capMilliseconds: 500)
            let languages = ["ru": "rus+eng", "zh": "chi_sim+eng", "es": "spa+eng"][language] ?? "eng"
            do { engine = try TesseractEngine(languages: languages) } catch {
                throw FindObjectError(message: (error as? OCRError)?.message ?? "Text recognition cannot start.")
            }
        }
    }

    /// COCO's detector, checked (a check remembered in the plugin's data folder, made if missing).
    private static func cocoSpec(share: String?, data: String?) throws(DetectionError) -> ModelSpec {
        let cache = data.map { URL(fileURLWithPath: $0).appendingPathComponent("model-checked.txt") }
        if let data { try? FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true) }
        return try ModelSpec.coco(folder: try ModelFiles.locate(share: share, data: data, cache: cache))
    }

    /// The embedder, checked (a check remembered in the plugin's data folder); for teaching and for a taught
    /// thing's search.
    static func openEmbedder(share: String?, data: String?) throws(DetectionError) -> ObjectEmbedder {
        let cache = data.map { URL(fileURLWithPath: $0).appendingPathComponent("things-model-checked.txt") }
        return try ObjectEmbedder(path: try ObjectEmbedder.locate(share: share, data: data, cache: cache))
    }

    /// The embedder when it is installed and sound; an object search goes on without it (nearest the middle).
    private static func optionalEmbedder(share: String?, data: String?) -> ObjectEmbedder? {
        try? openEmbedder(share: share, data: data)
    }

    /// True when an object search has a follower: the delivery thread guides (`follow`), the worker detects.
    var follows: Bool { follower != nil }

    /// One frame on the search worker: find the target; for a text search also track it and guide, for an
    /// object search with a follower hand the result over. Returns the back-off delay in milliseconds.
    func process(_ frame: CameraFrame) -> Double {
        let now = ProcessInfo.processInfo.systemUptime
        let started = DispatchTime.now().uptimeNanoseconds
        var followedTarget = false
        if follows {
            let box = nearestObject(frame)
            lock.withLock { handedOver = (box, frame.timestamp) }
            followedTarget = box != nil
        } else {
            let seen = locate(frame)
            guidedSize = nil
            tracker.update(seen)
            if seen != nil { lastSeen = now }
            guide(now: now, frame: frame, at: tracker.isGuiding ? tracker.predicted : nil, from: "detector")
        }
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        let delay = throttle.delay(afterProcessing: milliseconds, heat: thermal.pressure(at: now))
        // Until the target is found, detections follow each other.
        return followedTarget ? Throttle.whileFollowing(afterProcessing: milliseconds, backOff: delay) : delay
    }

    /// Every frame of an object search, on the host's delivery thread: the follower moves with it, the newest
    /// detection corrects the follower (by how far the detection is from where the follower had the target in
    /// the frame it was made from) and the conviction, and the cues follow.
    func follow(_ frame: CameraFrame) {
        guard let follower, frame.format == .bgr24 else { return }
        let (taken, forgetting, isStopped) = lock.withLock {
            defer {
                handedOver = nil
                forget = false
            }
            return (handedOver, forget, self.isStopped)
        }
        if forgetting {
            follower.stop()
            followed.removeAll()
            followedBox = nil
        }
        // A detection handed over before the pictures changed describes the old ones.
        let detected = forgetting ? nil : taken
        guard !isStopped else { return }
        let (pixels, width, height, stride) = (frame.pixels, frame.width, frame.height, frame.stride)
        let now = ProcessInfo.processInfo.systemUptime
        followedBox = follower.step(bgr: pixels, width: width, height: height, stride: stride)
        if let detected {
            tracker.update(detected.box.map { Tracker.Point(x: $0.centreX, y: $0.centreY) })
            if var box = detected.box {
                lastSeen = now
                if let current = followedBox, let then = followed.last(where: { $0.captured <= detected.captured }) {
                    box.x = current.centreX + (box.centreX - then.x) - box.width / 2
                    box.y = current.centreY + (box.centreY - then.y) - box.height / 2
                }
                followedBox =
                    follower.start(bgr: pixels, width: width, height: height, stride: stride, box: box)
                    ? box : nil
            } else if tracker.conviction == 0 {
                follower.stop()
                followedBox = nil
            }
        }
        if let followedBox {
            followed.append((frame.timestamp, followedBox.centreX, followedBox.centreY))
            if followed.count > 64 { followed.removeFirst(followed.count - 64) }
        }
        let point = followedBox.map { Tracker.Point(x: min(1, max(0, $0.centreX)), y: min(1, max(0, $0.centreY))) }
        guidedSize = followedBox.map { ($0.width, $0.height) }
        guide(
            now: now, frame: frame, at: tracker.isGuiding ? point ?? tracker.predicted : nil,
            from: detected?.box != nil ? "detector" : point != nil ? "follower" : "tracker")
    }

    /// The pictures change under the follower (pause, resume, zoom): it starts again from the next detection.
    func forgetFollowing() { lock.withLock { forget = true } }

    /// The detection of the target nearest the centre, in a BGR24 frame of an object search; for a taught
    /// thing, the region most like it.
    private func nearestObject(_ frame: CameraFrame) -> Detection? {
        if case .thing(let thing) = request { return taughtThing(thing, in: frame) }
        guard case .object(let classID, _, _) = request, let detector, frame.format == .bgr24 else { return nil }
        let found = detector.detect(
            bgr: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride, onlyClass: classID)
        let nearest = found.detections.sorted {
            Self.distance($0.centreX, $0.centreY) < Self.distance($1.centreX, $1.centreY)
        }
        guard let embedder else { return nearest.first }
        return sameInstance(Array(nearest.prefix(6)), in: frame, embedder: embedder)
    }

    /// Of the detections (nearest the middle first), the one that looks like the target: the first search
    /// takes the nearest and remembers how it looks; later ones take the most alike when it is alike enough
    /// (0.75) and let the look drift slowly with it (a fifth each time). When none is, the target is not
    /// seen, rather than another of its kind taken: in a crowd the sounds stay with one person. After eight
    /// searches without it, the nearest is taken again.
    private func sameInstance(_ candidates: [Detection], in frame: CameraFrame, embedder: ObjectEmbedder) -> Detection?
    {
        guard !candidates.isEmpty else {
            searchesWithoutTarget += 1
            return nil
        }
        let regions = candidates.map { Region(x: $0.x, y: $0.y, width: $0.width, height: $0.height).clamped }
        let looks = embedder.embed(
            bgr: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride, regions: regions)
        guard looks.count == candidates.count else { return candidates.first }
        guard let target = targetLook, searchesWithoutTarget < 8 else {
            targetLook = looks[0]
            searchesWithoutTarget = 0
            return candidates[0]
        }
        let scored = looks.map { Double(Thing.dot(target, $0)) }
        guard let best = scored.indices.max(by: { scored[$0] < scored[$1] }), scored[best] >= 0.75 else {
            searchesWithoutTarget += 1
            return nil
        }
        var drifted = zip(target, looks[best]).map { 0.8 * $0 + 0.2 * $1 }
        let norm = drifted.reduce(0) { $0 + $1 * $1 }.squareRoot()
        if norm > 0 { drifted = drifted.map { $0 / norm } }
        targetLook = drifted
        searchesWithoutTarget = 0
        return candidates[best]
    }

    /// The region of a BGR24 frame most like `thing`, above its threshold (`ThingSearch`).
    /// Each searched frame is reported (`assist.find-object.searched`: the frame, the best region's centre and
    /// similarity when one reached the threshold, the milliseconds it took) for benchmarks and tests.
    private func taughtThing(_ thing: Thing, in frame: CameraFrame) -> Detection? {
        let started = DispatchTime.now().uptimeNanoseconds
        var closest = 0.0
        let found = matchThing(thing, in: frame, closest: &closest)
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        host.publish(
            "assist.find-object.searched",
            json: found.map {
                String(
                    format: #"{"frame":%llu,"found":true,"x":%.3f,"y":%.3f,"score":%.3f,"ms":%.1f}"#, frame.sequence,
                    $0.centreX, $0.centreY, $0.score, milliseconds)
            }
                ?? String(
                    format: #"{"frame":%llu,"found":false,"score":%.3f,"ms":%.1f}"#, frame.sequence, closest,
                    milliseconds))
        return found
    }

    /// The detector's boxes and the windows are first compared with the thing coarsely (one pass of the
    /// embedder over the whole picture); the five most alike (three windows apart from each other, two boxes)
    /// are embedded closely and checked against the threshold; the best is looked at closer still.
    /// `closest` gets the best similarity seen, found or not.
    private func matchThing(_ thing: Thing, in frame: CameraFrame, closest: inout Double) -> Detection? {
        guard let detector, let embedder, frame.format == .bgr24, frame.height > 0 else { return nil }
        let (pixels, width, height, stride) = (frame.pixels, frame.width, frame.height, frame.stride)
        let found = detector.detect(bgr: pixels, width: width, height: height, stride: stride, maximum: 8)
        let boxes = ThingSearch.proposals(detections: found.detections)
        let windows = ThingSearch.windows(aspect: Double(width) / Double(height))
        let coarse = embedder.coarse(
            bgr: pixels, width: width, height: height, stride: stride, regions: boxes + windows)
        guard coarse.count == boxes.count + windows.count else { return nil }
        let scored = zip(boxes + windows, coarse).enumerated().map {
            (region: $1.0, score: thing.similarity($1.1), isBox: $0 < boxes.count)
        }.sorted { $0.score > $1.score }
        var chosen: [Region] = Array(scored.filter(\.isBox).prefix(2).map(\.region))
        for candidate in scored where !candidate.isBox && chosen.count < 5 {
            if chosen.allSatisfy({ $0.overlap(candidate.region) < 0.5 }) { chosen.append(candidate.region) }
        }
        let close = embedder.embed(bgr: pixels, width: width, height: height, stride: stride, regions: chosen)
        closest = close.map { thing.similarity($0) }.max() ?? 0
        guard var best = ThingSearch.best(thing: thing, regions: chosen, embeddings: close) else { return nil }
        // A closer look inside the best region puts the cue on the thing rather than on a window around it.
        let inside = ThingSearch.inside(best.region)
        let closer = embedder.embed(bgr: pixels, width: width, height: height, stride: stride, regions: inside)
        if let refined = ThingSearch.best(
            thing: thing, regions: [best.region] + inside,
            embeddings: [close[chosen.firstIndex(of: best.region) ?? 0]] + closer)
        {
            best = refined
        }
        let region = best.region
        return Detection(
            x: region.x, y: region.y, width: region.width, height: region.height, score: best.score, classID: -1)
    }

    private func locate(_ frame: CameraFrame) -> Tracker.Point? {
        let (pixels, width, height, stride) = (frame.pixels, frame.width, frame.height, frame.stride)
        switch request {
        case .object, .thing:
            return nearestObject(frame).map { Tracker.Point(x: $0.centreX, y: $0.centreY) }
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

    /// Plays and says what guiding to `target` calls for (nil: not guiding); the frame's capture time gives the
    /// frame-to-cue latency reported with each guidance event, and its sequence number and where the position
    /// came `from` (a detection in this frame, the follower, or the tracker's prediction) are reported with it.
    /// The size of the box being followed, as fractions of the picture, for the guidance event (the view draws
    /// it); nil when only a point is known (a text search).
    private var guidedSize: (width: Double, height: Double)?

    private func guide(now: Double, frame: CameraFrame, at target: Tracker.Point?, from: String) {
        let captured = frame.timestamp
        // Stopped or paused while this frame was searched: nothing more is played or said for it.
        guard !stopped else {
            lastHeard = 0
            return
        }
        if lastHeard == 0 { lastHeard = now }
        guard let point = target else {
            if wasGuiding { host.stopCues() }
            wasGuiding = false
            lastDecision = nil
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
        let decision = GuidanceDecision(x: point.x, y: point.y, previous: lastDecision)
        lastDecision = decision
        // The same pattern with the same pan and intensity (to a twentieth) within 0.15 s is dropped; a target
        // that moves changes them, and the cue's next cycle takes the newest.
        let cue =
            "\(decision.pattern) \(Int((decision.pan * 20).rounded())) \(Int((decision.intensity * 20).rounded()))"
        if feedback != .speech, patternFilter.allows(cue, at: now) || decision.pattern == ASSIST_CUE_CONTINUOUS {
            host.guidance(
                GuidancePattern(rawValue: decision.pattern) ?? .centred, intensity: decision.intensity,
                pan: decision.pan)
            var clock = timespec()
            clock_gettime(CLOCK_MONOTONIC, &clock)
            let nowNs = UInt64(clock.tv_sec) * 1_000_000_000 + UInt64(clock.tv_nsec)
            let latency = captured > 0 && nowNs > captured ? Double(nowNs - captured) / 1e6 : 0
            let size = guidedSize.map { String(format: #","w":%.3f,"h":%.3f"#, $0.width, $0.height) } ?? ""
            host.publish(
                "assist.find-object.guidance",
                json: String(
                    format:
                        #"{"direction":"%@","pattern":%d,"intensity":%.3f,"pan":%.3f,"x":%.3f,"y":%.3f%@,"latency_ms":%.1f,"frame":%llu,"from":"%@"}"#,
                    decision.direction.rawValue, decision.pattern, decision.intensity, decision.pan, point.x, point.y,
                    size, latency, frame.sequence, from))
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

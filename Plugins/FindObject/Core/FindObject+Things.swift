import Foundation
import ObjectDetection
import PluginAPI
import PluginKit

/// Teaching find-object a person's own things and managing them (docs/find-object.md, "Your own things"):
/// `teach NAME` from the camera, `--video FILE` or `--from-collect-videos LABEL`, `things`, `forget NAME [--yes]`,
/// `rename OLD NEW`.
extension FindObject {
    /// Seconds of camera teaching, and how many views a second are taken (from the camera or a video).
    static let teachingSeconds = 10.0
    static let viewsPerSecond = 4.0
    /// Views taken from a video before they are taken half as often, and again after as many more.
    static let videoViewsBeforeThinning = 120

    /// The things subcommands; false when `arguments` are not one of them.
    func startThings(_ arguments: [String]) throws(PluginError) -> Bool {
        guard let command = arguments.first else { return false }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "teach": try teach(rest)
        case "things":
            if rest == ["--start-again"] { return try startAgain() }
            guard rest.isEmpty else { throw PluginError(phrases.text("things-usage")) }
            listThings()
        case "forget":
            let yes = rest.contains("--yes")
            let name = rest.filter { $0 != "--yes" }.joined(separator: " ")
            guard !name.isEmpty else { throw PluginError(phrases.text("things-usage")) }
            forgetThing(name, confirmed: yes)
        case "rename":
            guard rest.count == 2 else { throw PluginError(phrases.text("rename-usage")) }
            renameThing(rest[0], to: rest[1])
        default: return false
        }
        return true
    }

    func thingStore() throws(PluginError) -> ThingStore {
        do { return try ThingStore(host: host) } catch {
            throw PluginError(unreadableThings(error))
        }
    }

    // MARK: teaching

    /// Where a thing is taught from: the camera, a video file, or the training clips collect-videos filmed.
    enum TeachingSource {
        case camera
        /// The camera, collect-videos' clips offered and declined.
        case filming
        case video(String)
        case collected(CollectedClips)
    }

    /// `teach [NAME] [--video FILE | --from-collect-videos LABEL [--yes]] [--replace]`: asks for the name when
    /// none is given (collect-videos' label when it is the source).
    func teach(_ arguments: [String]) throws(PluginError) {
        var words: [String] = []
        var video: String?
        var label: String?
        var replace = false
        var yes = false
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--video", "--from-collect-videos":
                guard index + 1 < arguments.count else { throw PluginError(phrases.text("teach-usage")) }
                if arguments[index] == "--video" { video = arguments[index + 1] } else { label = arguments[index + 1] }
                index += 1
            case "--replace": replace = true
            case "--yes": yes = true
            case let option where option.hasPrefix("--"): throw PluginError(phrases.text("teach-usage"))
            default: words.append(arguments[index])
            }
            index += 1
        }
        guard video == nil || label == nil else { throw PluginError(phrases.text("teach-usage")) }
        var name = words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        var source = TeachingSource.camera
        if let video {
            try checkVideo(video)
            source = .video(video)
        }
        if let label {
            let clips = try collectedClips(label)
            source = .collected(clips)
            if name.isEmpty { name = clips.label }
            guard yes else {
                let asked = phrases.text(
                    "collected-ask", count: clips.paths.count, ["name": name, "label": clips.label])
                return host.confirm(asked, defaultYes: false, timeoutMilliseconds: 30_000) { [self] allowed in
                    guard allowed else {
                        host.speak(phrases.text("collected-declined"))
                        return host.finish(.cancelled)
                    }
                    do throws(PluginError) { try teach(named: name, from: source, replace: replace) } catch {
                        fail(error.message, status: .invalid)
                    }
                }
            }
        }
        if name.isEmpty {
            host.askText(phrases.text("ask-thing-name")) { [self] answer in
                guard let answer, !answer.isEmpty else { return host.finish(.cancelled) }
                do throws(PluginError) { try teach(named: answer, from: source, replace: replace) } catch {
                    fail(error.message, status: .invalid)
                }
            }
            return
        }
        try teach(named: name, from: source, replace: replace)
    }

    /// A file that is not there or not readable is said before anything else is asked.
    func checkVideo(_ path: String) throws(PluginError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else { throw PluginError(phrases.text("video-missing", ["path": path])) }
    }

    /// collect-videos' training clips of `label` on this device, or the sentence that says why there are none.
    func collectedClips(_ label: String) throws(PluginError) -> CollectedClips {
        guard let data = host.dataDirectory else { throw PluginError(phrases.text("collected-none")) }
        switch CollectedClips.find(label, data: data) {
        case .success(let clips): return clips
        case .failure(.nothingFilmed): throw PluginError(phrases.text("collected-none"))
        case .failure(.unreadable(let reason)):
            throw PluginError(phrases.text("collected-unreadable", ["reason": reason]))
        case .failure(.unknown(let labels)):
            throw PluginError(
                phrases.text("collected-unknown", ["label": label, "names": labels.joined(separator: ", ")]))
        case .failure(.noClips(let found)): throw PluginError(phrases.text("collected-no-clips", ["label": found]))
        case .failure(.gone(let found)): throw PluginError(phrases.text("collected-gone", ["label": found]))
        }
    }

    /// collect-videos' training clips of the thing called `name` (or `key`, without "my"), if it has any here.
    func offeredClips(_ name: String, key: String) -> CollectedClips? {
        guard let data = host.dataDirectory else { return nil }
        for label in [name, key] {
            if case .success(let clips) = CollectedClips.find(label, data: data) {
                return clips
            }
        }
        return nil
    }

    func teach(named name: String, from source: TeachingSource, replace: Bool) throws(PluginError) {
        if let problem = Thing.problem(with: name) {
            throw PluginError(phrases.text(problem, ["name": NameKey.cleaned(name)]))
        }
        guard let key = Thing.key(for: name) else { throw PluginError(phrases.text("thing-name-empty")) }
        // About to film a thing collect-videos has training videos of: those are offered first.
        if case .camera = source, let clips = offeredClips(name, key: key) {
            let offer = phrases.text("collected-offer", count: clips.paths.count, ["label": clips.label])
            return host.confirm(offer, defaultYes: true, timeoutMilliseconds: 30_000) { [self] yes in
                do throws(PluginError) {
                    try teach(named: name, from: yes ? .collected(clips) : .filming, replace: replace)
                } catch {
                    fail(error.message, status: .invalid)
                }
            }
        }
        let store = try thingStore()
        let existing: String?
        do { existing = try store.exists(key) } catch { throw PluginError(unreadableThings(error)) }
        let go = { [self] in
            if let names = try? ObjectNames(directory: host.shareDirectory ?? "", language: language),
                names.exactly(key) != nil
            {
                host.speak(phrases.text("thing-is-also-object", ["name": name]))
            }
            switch source {
            case .camera, .filming: teachFromCamera(key: key, words: name)
            case .video(let path):
                host.speak(phrases.text("teaching-video", ["name": name]))
                teachFromVideos([path], key: key, words: name, collected: nil)
            case .collected(let clips):
                host.speak(phrases.text("teaching-collected", count: clips.paths.count, ["name": name]))
                teachFromVideos(clips.paths, key: key, words: name, collected: clips.label)
            }
        }
        guard let existing, !replace else { return go() }
        host.confirm(phrases.text("thing-replace", ["name": existing]), defaultYes: false, timeoutMilliseconds: 15_000)
        {
            [self] yes in
            guard yes else {
                host.speak(phrases.text("thing-kept", ["name": existing]))
                return host.finish(.cancelled)
            }
            go()
        }
    }

    /// Opens the embedder (checked) on the loader thread; `body` runs there with it.
    func withEmbedder(_ body: @escaping (ObjectEmbedder) -> Void) {
        let share = host.shareDirectory
        let data = host.dataDirectory
        loader.run { [self] in
            do throws(DetectionError) {
                body(try SearchState.openEmbedder(share: share, data: data))
            } catch {
                host.onMain { [self] in fail(said(error), status: .notFound) }
            }
        }
    }

    /// Reads the videos on the loader thread, about four views a second. Of collect-videos' clips (`collected`
    /// names their thing), one that cannot be read is passed over while another can.
    func teachFromVideos(_ paths: [String], key: String, words: String, collected: String?) {
        withEmbedder { [self] embedder in
            let teacher = Teacher(embedder: embedder)
            var duration = 0.0
            var read = 0
            var told = Date()
            // Assist's video reader itself missing or broken: said as such, not as videos that cannot be read.
            var readerProblem: DetectionError?
            for path in paths {
                let video: VideoReader
                do throws(DetectionError) { video = try VideoReader(path: path) } catch {
                    if error.phrase != "not-a-video" { readerProblem = readerProblem ?? error }
                    continue
                }
                var every = max(1, Int((video.framesPerSecond / Self.viewsPerSecond).rounded()))
                var frames = 0
                var taken = 0
                var last = 0.0
                while let seconds = video.next({ pixels, width, height, stride, seconds -> Double in
                    if frames % every == 0 {
                        teacher.add(bgr: pixels, width: width, height: height, stride: stride)
                        taken += 1
                        // A long video: views ever further apart once enough are taken, so that ten minutes
                        // cost about what a minute does (each view is embedded, tens of milliseconds).
                        if taken % Self.videoViewsBeforeThinning == 0 { every *= 2 }
                    }
                    return seconds
                }) {
                    frames += 1
                    last = seconds
                    // How far it got, every 10 seconds of a long read (issue 73: 113 s without a word).
                    if Date().timeIntervalSince(told) >= 10 {
                        told = Date()
                        let said = phrases.text(
                            "video-progress", ["seconds": String(Int(duration + seconds)), "name": words])
                        host.onMain { [self] in host.speak(said, priority: .progress) }
                    }
                }
                guard frames > 0 else { continue }
                read += 1
                duration += video.framesPerSecond > 0 ? Double(frames) / video.framesPerSecond : last
            }
            guard read > 0 else {
                if let readerProblem {
                    return host.onMain { [self] in fail(said(readerProblem), status: .notFound) }
                }
                let sentence =
                    collected.map { phrases.text("collected-clips-unreadable", ["label": $0]) }
                    ?? phrases.text("video-unreadable", ["path": paths.first ?? ""])
                return host.onMain { [self] in fail(sentence, status: .invalid) }
            }
            guard duration >= 3 else {
                return host.onMain { [self] in
                    fail(
                        phrases.text("video-too-short", count: max(1, Int(duration.rounded())), ["name": words]),
                        status: .invalid)
                }
            }
            let result = teacher.finish(key: key, words: words, source: collected == nil ? "video" : "collect-videos")
            let calibration = teacher.calibration
            host.onMain { [self] in learned(result, words: words, fromCamera: false, calibration: calibration) }
        }
    }

    /// Films for ten seconds from the camera, saying what helps, then learns.
    func teachFromCamera(key: String, words: String) {
        withEmbedder { [self] embedder in
            let teaching = Teaching(teacher: Teacher(embedder: embedder))
            // Embedding takes tens of milliseconds a view: off the host's delivery thread, on the newest picture.
            teaching.worker = LatestFrameWorker(host: host, name: "assist-find-object-teach") { [teaching] frame in
                teaching.add(frame)
                return 0
            }
            host.onMain { [self] in
                self.teaching = teaching
                host.speak(phrases.text("teaching-camera", ["name": words]))
                do {
                    try host.subscribeCamera(
                        format: .bgr24, maxWidth: 640, maxHeight: 480, maxFramesPerSecond: Self.viewsPerSecond)
                } catch {
                    self.teaching = nil
                    return fail(Self.sentence(error), status: .notFound)
                }
                var second = 0
                teaching.timer = host.addTimer(milliseconds: 1_000, repeating: true) { [self] in
                    second += 1
                    guideTeaching(teaching, second: second, words: words)
                    guard Double(second) >= Self.teachingSeconds else { return }
                    if let timer = teaching.timer { host.cancelTimer(timer) }
                    host.unsubscribeCamera()
                    self.teaching = nil
                    teaching.worker?.stop()
                    let (result, calibration) = teaching.finish(key: key, words: words)
                    learned(result, words: words, fromCamera: true, calibration: calibration)
                }
            }
        }
    }

    /// One second's word while filming: the lens covered, too far, or how many good views so far.
    func guideTeaching(_ teaching: Teaching, second: Int, words: String) {
        let recent = teaching.recent()
        if recent.nothing >= 3 {
            host.speak(phrases.text("teach-nothing-seen"), priority: .message)
        } else if recent.small >= 3 {
            host.speak(phrases.text("teach-closer"), priority: .message)
        } else if recent.still >= 3, second % 3 == 0 {
            host.speak(phrases.text("teach-turn"), priority: .message)
        } else if second % 3 == 0 {
            host.speak(phrases.text("teach-views", count: teaching.goodViews), priority: .progress)
        }
    }

    /// Saves a thing learned, or says why not; finishes.
    func learned(
        _ result: Result<Thing, Teacher.Problem>, words: String, fromCamera: Bool,
        calibration: (alike: Double, nearest: Double)
    ) {
        switch result {
        case .failure(.nothingSeen):
            fail(
                phrases.text(fromCamera ? "teach-nothing-seen" : "video-nothing-seen", ["name": words]),
                status: .invalid)
        case .failure(.onlyGrain):
            fail(phrases.text("teach-only-grain", ["name": words]), status: .invalid)
        case .failure(.tooFewViews(let count)):
            fail(phrases.text("teach-too-few", count: count, ["name": words]), status: .invalid)
        case .success(var thing):
            thing.source = fromCamera ? "camera" : thing.source
            do {
                try thingStore().save(thing)
            } catch {
                return fail(
                    phrases.text("thing-not-saved", ["name": words, "reason": Self.sentence(error)]), status: .io)
            }
            host.publish(
                "assist.find-object.taught",
                json: String(
                    format: #"{"views":%d,"threshold":%.3f,"alike":%.3f,"background":%.3f}"#, thing.prototypes.count,
                    thing.threshold, calibration.alike, calibration.nearest))
            Self.offerNames(host: host)
            host.speak(phrases.text("taught", count: thing.prototypes.count, ["name": words]))
            host.finish(.ok)
        }
    }

    /// The sentence an error carries.
    static func sentence(_ error: any Error) -> String {
        if let error = error as? PluginError { return error.message }
        if let status = error as? PluginStatus { return status.message }
        return "\(error)"
    }

    func fail(_ message: String, status: PluginStatus) {
        host.speak(message, priority: .important)
        host.finish(status)
    }

    // MARK: the list, forgetting and renaming

    func listThings() {
        do {
            var damaged: [String] = []
            let things = try thingStore().all(damaged: &damaged)
            if things.isEmpty && damaged.isEmpty { host.speak(phrases.text("no-things")) }
            for thing in things {
                host.speak(phrases.text("thing-line", count: thing.prototypes.count, ["name": thing.words]))
            }
            for words in damaged { host.speak(phrases.text("thing-damaged", ["name": words])) }
            host.finish(.ok)
        } catch {
            fail(Self.sentence(error), status: .io)
        }
    }

    func forgetThing(_ name: String, confirmed: Bool) {
        do {
            let store = try thingStore()
            guard let key = Thing.key(for: name), let words = try store.exists(key) else {
                return fail(unknownThing(name, store: store), status: .notFound)
            }
            let forget = { [self] in
                do {
                    _ = try store.forget(key)
                    host.speak(phrases.text("thing-forgotten", ["name": words]))
                    host.finish(.ok)
                } catch { fail(Self.sentence(error), status: .io) }
            }
            if confirmed { return forget() }
            host.confirm(
                phrases.text("thing-forget-ask", ["name": words]), defaultYes: false, timeoutMilliseconds: 15_000
            ) { [self] yes in
                guard yes else {
                    host.speak(phrases.text("thing-kept", ["name": words]))
                    return host.finish(.cancelled)
                }
                forget()
            }
        } catch {
            fail(Self.sentence(error), status: .io)
        }
    }

    func renameThing(_ old: String, to new: String) {
        do {
            let store = try thingStore()
            guard let key = Thing.key(for: old), let words = try store.exists(key) else {
                return fail(unknownThing(old, store: store), status: .notFound)
            }
            if let problem = Thing.problem(with: new) {
                return fail(phrases.text(problem, ["name": NameKey.cleaned(new)]), status: .invalid)
            }
            guard let newKey = Thing.key(for: new) else {
                return fail(phrases.text("thing-name-empty"), status: .invalid)
            }
            if newKey != key, let taken = try store.exists(newKey) {
                return fail(phrases.text("thing-name-taken", ["name": taken]), status: .invalid)
            }
            let name = NameKey.cleaned(new)
            try store.rename(key, to: name, newKey: newKey)
            Self.offerNames(host: host)
            host.speak(phrases.text("thing-renamed", ["old": words, "name": name]))
            // As teaching says it: a name the detector knows now finds the person's own thing.
            if let names = try? ObjectNames(directory: host.shareDirectory ?? "", language: language),
                names.exactly(newKey) != nil
            {
                host.speak(phrases.text("thing-is-also-object", ["name": name]))
            }
            host.finish(.ok)
        } catch {
            fail(Self.sentence(error), status: .io)
        }
    }

    /// "No thing called X", with what is taught.
    func unknownThing(_ name: String, store: ThingStore) -> String {
        let taught = ((try? store.all()) ?? []).map(\.words)
        return taught.isEmpty
            ? phrases.text("thing-unknown-none", ["name": name])
            : phrases.text("thing-unknown", ["name": name, "names": taught.joined(separator: ", ")])
    }
}

/// Camera teaching in progress: the teacher fed on its worker with the newest picture, what the last views
/// were like read on the main loop, guarded by `lock`.
// because: `teacher` and `seen` are guarded by `lock`; `timer` and `worker` are set on the main loop before the
// first picture and read there (the worker's own methods are thread-safe)
final class Teaching: @unchecked Sendable {
    private let lock = NSLock()
    private let teacher: Teacher
    private var seen: [Teacher.Seen] = []
    var timer: UInt64?
    var worker: LatestFrameWorker?

    init(teacher: Teacher) { self.teacher = teacher }

    func add(_ frame: CameraFrame) {
        guard frame.format == .bgr24 else { return }
        lock.withLock {
            seen.append(teacher.add(bgr: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride))
        }
    }

    /// Of the last four views: how many showed nothing, how many had the thing small, how many nothing moved.
    func recent() -> (nothing: Int, small: Int, still: Int) {
        lock.withLock {
            let last = seen.suffix(4)
            return (
                last.filter { $0 == .nothing }.count,
                last.filter { if case .view(let region) = $0 { return region.area < 0.04 } else { return false } }
                    .count,
                last.filter { $0 == .view(Teacher.centre) }.count
            )
        }
    }

    var goodViews: Int { lock.withLock { teacher.views.count } }

    func finish(key: String, words: String) -> (Result<Thing, Teacher.Problem>, (alike: Double, nearest: Double)) {
        lock.withLock { (teacher.finish(key: key, words: words, source: "camera"), teacher.calibration) }
    }
}

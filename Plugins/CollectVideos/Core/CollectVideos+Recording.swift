import CMediaInfo
import CVideoEncoder
import Foundation
import PluginAPI
import PluginKit

/// Filming a slot (spec §3.15–3.20): frames from the host camera (already cropped to the centred square and
/// at most 1080 a side by the camera service), H.264 in fragmented MP4, auto-stop at 20 s (testing) or 30 s
/// (training), a pip every 5 s and a longer one at the desired length. A clip left by a crash is recovered at
/// the next start when at least 1 s of it plays.
extension CollectVideos {
    static let slots = ["S": 2, "T": 5]

    /// A slot as `record` and `video delete` name it: `LABEL --kind testing|training [--slot K]`, K from 1. The
    /// label (the words that are not flags), the kind (`S` or `T`) and the slot from 0, if given.
    func slotArguments(_ arguments: [String]) throws(PluginError) -> (label: String, kind: String, slot: Int?) {
        let kindWord = Self.value(after: "--kind", in: arguments) ?? ""
        guard let kind = ["testing": "S", "training": "T"][kindWord] else {
            throw PluginError(phrases.text("kind-usage"))
        }
        var slot: Int?
        if arguments.contains("--slot") {
            let count = Self.slots[kind] ?? 0
            guard let number = Self.number(after: "--slot", in: arguments), number.rounded() == number,
                (1...Double(count)).contains(number)
            else {
                throw PluginError(phrases.text("slot-usage-" + kind, ["count": String(count)]))
            }
            slot = Int(number) - 1
        }
        var words: [String] = []
        var skip = false
        for word in arguments {
            if skip { skip = false; continue }
            if ["--kind", "--slot", "--seconds"].contains(word) { skip = true; continue }
            if word != "--yes" { words.append(word) }
        }
        return (words.joined(separator: " "), kind, slot)
    }

    /// `record LABEL --kind testing|training [--slot K] [--seconds S]`.
    func record(_ arguments: [String]) throws(PluginError) {
        guard let store else { return }
        let (label, kind, wanted) = try slotArguments(arguments)
        let longest: Double = kind == "S" ? 20 : 30
        if arguments.contains("--seconds") {
            guard let seconds = Self.number(after: "--seconds", in: arguments), seconds.isFinite,
                (1...longest).contains(seconds)
            else {
                throw PluginError(phrases.text("seconds-usage-" + kind, ["longest": String(Int(longest))]))
            }
        }
        let count = Self.slots[kind] ?? 0
        do {
            guard let thing = try store.thing(labelled: label) else {
                throw PluginError(phrases.text("no-such-thing", ["label": label]))
            }
            let filled = Set(try store.videos(of: thing.id).filter { $0.kind == kind }.map(\.slot))
            var slot: Int
            if let wanted {
                slot = wanted
            } else if let free = (0..<count).first(where: { !filled.contains($0) }) {
                slot = free
            } else {
                throw PluginError(
                    phrases.text("all-kind-recorded-" + kind, ["total": String(count), "label": thing.label]))
            }
            let seconds = Self.number(after: "--seconds", in: arguments) ?? longest
            try startRecording(thing: thing, kind: kind, slot: slot, maxSeconds: seconds)
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError(phrases.text("recording-unavailable-because", ["reason": "\(error)"]))
        }
    }

    /// Room asked for before filming: libx264 at 1080 a side makes about 450 kB a second (bench/collect-videos.sh).
    static let bytesPerSecond: Int64 = 600_000
    /// Kept free while filming and let go before the clip is saved, so a disk filled meanwhile still has room
    /// for the database to record the clip.
    static let spareBytes = 256 * 1024

    private var spareURL: URL? { host.dataDirectory.map { URL(fileURLWithPath: $0).appendingPathComponent("spare") } }

    func startRecording(thing: OrbitStore.Thing, kind: String, slot: Int, maxSeconds: Double) throws {
        guard let store else { return }
        // Refused now rather than half-way: the disk (and the quota) must hold the longest clip.
        do { try host.reserveMedia(bytes: Int64(maxSeconds) * Self.bytesPerSecond) } catch {
            throw PluginError(
                phrases.text(
                    "storage-full-needs",
                    [
                        "seconds": String(Int(maxSeconds)),
                        "megabytes": String(Int(maxSeconds) * Int(Self.bytesPerSecond) / 1_000_000 + 1),
                    ]))
        }
        if let spareURL,
            !FileManager.default.createFile(
                atPath: spareURL.path, contents: Data(count: Self.spareBytes), attributes: [.posixPermissions: 0o600])
        {
            throw PluginError(phrases.text("storage-full"))
        }
        let filename = "videos/\(UUID().uuidString.lowercased()).mp4"
        let path = try host.createMediaFile(filename)
        try store.beginRecording(thing: thing.id, kind: kind, slot: slot, filename: filename)
        let session = RecordingSession(path: path)
        recording = RecordingState(
            thing: thing, kind: kind, slot: slot, filename: filename, session: session, maxSeconds: maxSeconds)
        do {
            try host.subscribeCamera(format: .bgr24, maxWidth: 1080, maxHeight: 1080, square: true)
        } catch {
            recording = nil
            discardRecording(filename)
            if let spareURL { try? FileManager.default.removeItem(at: spareURL) }
            throw PluginError(phrases.text("camera-unavailable"))
        }
        host.play(.rise)
        // Escape or "stop" while filming asks before it leaves; no goes on filming.
        _ = host.setConfirmation(command: "stop", question: phrases.text("stop-filming-ask"))
        // The first frame must come within 2 s; the clip's time counts from it (`filmingBegan`).
        host.addTimer(milliseconds: 2000, repeating: false) { [weak self] in
            guard let self, let state = recording, state.session.frames == 0 else { return }
            stopRecording(reason: .noFrames)
        }
        // A camera unplugged (or a source that ended) mid-recording: no frame for 2 s ends it, keeping the clip.
        // Each whole second is told to the low-vision view, which shows the time over the square viewfinder.
        var shown = -1
        showRecordingOnView(seconds: 0, of: maxSeconds)
        recording?.watchdog = host.addTimer(milliseconds: 500, repeating: true) { [weak self] in
            guard let self, let state = recording else { return }
            let seconds = state.began.map { Int(ProcessInfo.processInfo.systemUptime - $0) } ?? 0
            if seconds != shown {
                shown = seconds
                showRecordingOnView(seconds: seconds, of: state.maxSeconds)
            }
            guard state.session.frames > 0, state.session.secondsSinceLastFrame > 2 else { return }
            stopRecording(reason: .cameraLost)
        }
    }

    /// The clip's first frame is written: its time counts from now (a camera a second slow to start, on a busy
    /// machine, made a 2-second clip 1.6 s long); then pips every 5 s, the desired length, the end. [main]
    private func filmingBegan(_ session: RecordingSession) {
        guard let state = recording, state.session === session, state.began == nil else { return }
        recording?.began = ProcessInfo.processInfo.systemUptime
        let desired = state.kind == "S" ? 15.0 : 25.0
        var second = 5.0
        while second < state.maxSeconds {
            let at = second
            host.addTimer(milliseconds: UInt32(at * 1000), repeating: false) { [weak self] in
                guard self?.recording?.session === session else { return }
                self?.host.play(at == desired ? .stable : .tap, gain: at == desired ? 1 : 0.6)
            }
            second += 5
        }
        host.addTimer(milliseconds: UInt32(state.maxSeconds * 1000), repeating: false) { [weak self] in
            guard self?.recording?.session === session else { return }
            self?.stopRecording(reason: .autoStop)
        }
    }

    enum StopReason { case autoStop, user, noFrames, writeFailed, cameraLost }

    /// Tells the low-vision view how long this clip has been filmed (docs/view.md); a `.view.` event, never kept.
    private func showRecordingOnView(seconds: Int, of maxSeconds: Double) {
        host.publish(
            "assist.collect-videos.view.recording",
            json: #"{"recording":true,"seconds":\#(seconds),"max":\#(Int(maxSeconds)),"square":true}"#)
    }

    /// A frame on the camera's thread: the first opens the file at its size, each is encoded.
    public func handle(frame: CameraFrame) {
        guard let session = recording?.session else { return }
        let first = session.frames == 0
        if session.add(frame) == false {
            host.onMain { [weak self] in self?.stopRecording(reason: .writeFailed) }
        } else if first {
            host.onMain { [weak self] in self?.filmingBegan(session) }
        }
        // The camera check: a problem with the view is said at once, after its own earcon.
        if let problem = session.checkView(frame) {
            host.onMain { [weak self] in
                guard let self, recording != nil else { return }
                host.play(.lost)
                say(phrases.text("view-" + problem.key))
            }
        }
    }

    /// Saves what was recorded and says so; `finishing` ends the run (not when the host is stopping us).
    func stopRecording(reason: StopReason, finishing: Bool = true) {
        guard let state = recording, store != nil else { return }
        recording = nil
        host.publish("assist.collect-videos.view.recording", json: #"{"recording":false}"#)
        _ = host.setConfirmation(command: "stop", question: nil)
        if let watchdog = state.watchdog { host.cancelTimer(watchdog) }
        host.unsubscribeCamera()
        let seconds = state.session.finish()
        if let spareURL { try? FileManager.default.removeItem(at: spareURL) }
        host.play(.fall)
        guard reason != .noFrames, seconds >= 1 else {
            discardRecording(state.filename)
            say(
                phrases.text(
                    reason == .noFrames || reason == .cameraLost ? "camera-unavailable" : "recording-unavailable"))
            if interactive { afterRecording(state.thing, finishing: finishing) } else if finishing { host.finish(.io) }
            return
        }
        // Stopped early in the menus, under the study's shortest: kept, filmed again or discarded, as asked.
        let shortest = configuration.minSeconds
        if interactive && finishing && reason == .user && seconds < shortest {
            let whole = max(1, Int(seconds.rounded(.down)))
            return host.askChoice(
                phrases.text("clip-short", count: whole, ["shortest": String(Int(shortest))]),
                choices: ["menu-keep", "menu-record-again", "menu-discard"].map { phrases.text($0) }
            ) { [weak self] index in
                guard let self else { return }
                switch index {
                case 0: keepClip(state, seconds: seconds, reason: reason, finishing: finishing)
                default:
                    discardRecording(state.filename)
                    host.unregisterCommand("stop-recording")
                    if index == 1 { return recordInteractively(state.thing, kind: state.kind, slot: state.slot) }
                    say(phrases.text("discarded"))
                    thingMenu(state.thing)
                }
            }
        }
        keepClip(state, seconds: seconds, reason: reason, finishing: finishing)
    }

    /// A recording that is not kept: its row and its file go.
    private func discardRecording(_ filename: String) {
        try? store?.dropRecording()
        try? host.deleteMedia(filename)
    }

    /// The clip becomes its slot's (an older one there is deleted) and is said saved.
    private func keepClip(_ state: RecordingState, seconds: Double, reason: StopReason, finishing: Bool) {
        guard let store else { return }
        let what = slotName(state.kind, state.slot)
        do {
            if let old = try store.saveRecording(
                thing: state.thing.id, kind: state.kind, slot: state.slot, filename: state.filename)
            {
                deleteClip(old)
            }
        } catch {
            say(phrases.text("video-not-saved", ["reason": error.message]))
            if finishing { host.finish(.io) }
            return
        }
        let whole = Int(seconds.rounded())
        let key =
            reason == .writeFailed
            ? "storage-full-stopped" : reason == .cameraLost ? "camera-lost-stopped" : "stopped-at"
        say(phrases.text(key, count: whole, ["video": what]))
        pump()
        afterRecording(state.thing, finishing: finishing)
    }

    /// Back to the thing's slots in the menus, or the end of a command-line run.
    private func afterRecording(_ thing: OrbitStore.Thing, finishing: Bool) {
        host.unregisterCommand("stop-recording")
        if interactive && finishing { thingMenu(thing) } else if finishing { host.finish() }
    }

    /// A clip a crash left behind: kept when at least 1 s of it plays ("Recovered Mug, training video 2"),
    /// else removed. At every start.
    func recoverUnfinishedRecording() {
        guard let store, let left = try? store.unfinishedRecording(), let thing = try? store.thing(id: left.thing),
            let folder = host.dataDirectory
        else {
            try? store?.dropRecording()
            return
        }
        var info = assist_media_info()
        let path = folder + "/media/" + left.filename
        let plays = assist_media_probe(path, &info) == ASSIST_MEDIA_INFO_OK ? info.duration : 0
        guard plays >= 1 else {
            try? store.dropRecording()
            try? host.deleteMedia(left.filename)
            return
        }
        do {
            if let old = try store.saveRecording(
                thing: left.thing, kind: left.kind, slot: left.slot, filename: left.filename)
            {
                deleteClip(old)
            }
            say(phrases.text("recovered-" + left.kind, ["label": thing.label, "number": String(left.slot + 1)]))
        } catch {
            host.log(.error, "a recovered clip could not be saved: \(error.message)")
        }
    }

}

/// What a recording in progress needs on [main].
struct RecordingState {
    var thing: OrbitStore.Thing
    var kind: String
    var slot: Int
    var filename: String
    var session: RecordingSession
    var maxSeconds: Double
    /// The timer that notices frames stopping.
    var watchdog: UInt64?
    /// When the first frame was written (the system's uptime): the clip's time counts from then.
    var began: Double?
}

/// The encoder and its counts, shared by the camera's thread (frames) and [main] (stop).
final class RecordingSession: @unchecked Sendable {  // because: every member is guarded by `lock`
    private let lock = NSLock()
    private let path: String
    private var writer: OpaquePointer?
    private var first: UInt64?
    private var last: UInt64 = 0
    private var count = 0
    private var failed = false
    private var closed = false

    init(path: String) { self.path = path }

    private var lastArrival = DispatchTime.now().uptimeNanoseconds

    var frames: Int { lock.withLock { count } }

    /// Seconds since the last frame arrived (since the start before the first).
    var secondsSinceLastFrame: Double {
        Double(DispatchTime.now().uptimeNanoseconds - lock.withLock { lastArrival }) / 1e9
    }

    /// Encodes one frame; false once writing failed.
    func add(_ frame: CameraFrame) -> Bool {
        lock.withLock {
            guard !closed, !failed, frame.format == .bgr24 else { return !failed }
            let width = frame.width & ~1
            let height = frame.height & ~1
            if writer == nil {
                var reason = [CChar](repeating: 0, count: 128)
                writer = assist_video_open(path, Int32(width), Int32(height), "veryfast", &reason, reason.count)
                if writer == nil {
                    failed = true
                    return false
                }
            }
            let stamp = frame.timestamp
            if first == nil { first = stamp }
            if assist_video_add(writer, frame.pixels, frame.stride, Int64((stamp - (first ?? stamp)) / 1000)) < 0 {
                failed = true
                return false
            }
            last = stamp
            lastArrival = DispatchTime.now().uptimeNanoseconds
            count += 1
            return true
        }
    }

    private var watch = ViewWatch()
    private var checked = 0

    /// Every 5th frame's view checked (`ViewLook`); the problem to say now, if any.
    func checkView(_ frame: CameraFrame) -> ViewProblem? {
        let due = lock.withLock {
            checked += 1
            return checked % 5 == 1
        }
        guard due, frame.format == .bgr24 else { return nil }
        let look = ViewLook.of(bgr: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        return lock.withLock { watch.check(look?.problem, at: seconds) }
    }

    /// Closes the file; the seconds recorded.
    func finish() -> Double {
        lock.withLock {
            closed = true
            if let writer { _ = assist_video_close(writer) }
            writer = nil
            guard let first, count > 1 else { return count == 1 ? 0.04 : 0 }
            return Double(last - first) / 1e9
        }
    }
}

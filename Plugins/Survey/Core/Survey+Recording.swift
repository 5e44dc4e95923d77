import Foundation
import PluginKit

/// A take recorded and waiting for the participant: keep it, play it, or record again.
struct PendingTake {
    var item: String
    /// Relative to the media folder.
    var path: String
    var seconds: Double
    var rateHz: Int
    var level: TakeLevel
}

/// Reads the microphone into a WAV file on a thread of its own until stopped, the limit, or the end of the
/// source. Started and stopped on [main]; the result comes back on [main].
// because: `stopping`, `cancelled`, `closed` and `result` are guarded by `lock`; the rest is set before the
// thread starts
final class Recorder: @unchecked Sendable {
    struct Result {
        var seconds: Double
        var level: TakeLevel
        var reachedLimit: Bool
        var failure: String?
    }

    private let stream: AudioInputStream
    private let writer: TakeWriter
    private let maxFrames: Int
    private let lock = NSLock()
    private var stopping = false
    private var cancelled = false
    private var closed = false
    private let ended = DispatchSemaphore(value: 0)
    private var result: Result?
    /// Monotonic seconds when the microphone was opened, and when its first samples were kept, for the
    /// `assist.survey.take` event (the benchmark reads them).
    let openedAt = ProcessInfo.processInfo.systemUptime
    private(set) var firstSampleAt: Double?

    var rateHz: Int { writer.rateHz }

    init(stream: AudioInputStream, writer: TakeWriter, maxSeconds: Double) {
        self.stream = stream
        self.writer = writer
        self.maxFrames = Int(maxSeconds * Double(writer.rateHz))
    }

    /// Starts reading; `done` runs on [main] through `host.onMain`.
    func start(host: PluginHostHandle, done: @escaping (Result) -> Void) {
        nonisolated(unsafe) let done = done  // called on [main] only, through host.onMain
        let thread = Thread { [self] in
            let outcome = run()
            let wasCancelled = lock.withLock {
                result = outcome
                return cancelled
            }
            ended.signal()
            if !wasCancelled { host.onMain { done(outcome) } }
        }
        thread.name = "survey-recorder"
        thread.start()
    }

    func stop() { lock.withLock { stopping = true } }

    /// Stops, waits for the file to be complete and closes the stream (leaving the survey during a take);
    /// the `done` handler is not called. Nil when the thread did not end in time. [main]
    func cancel() -> Result? {
        lock.withLock {
            stopping = true
            cancelled = true
        }
        guard ended.wait(timeout: .now() + 3) == .success else { return nil }
        close()
        return lock.withLock { result }
    }

    /// Closes the microphone once. [main]
    func close() {
        let first = lock.withLock {
            defer { closed = true }
            return !closed
        }
        if first { stream.close() }
    }

    var isStopping: Bool { lock.withLock { stopping } }

    private func run() -> Result {
        let chunk = max(1, writer.rateHz / 20)  // 50 ms
        var samples = [Int16](repeating: 0, count: chunk * writer.channels)
        var failure: String?
        var reachedLimit = false
        while !isStopping {
            let wanted = min(chunk, maxFrames - writer.frames)
            if wanted <= 0 {
                reachedLimit = true
                break
            }
            if wanted < chunk { samples = [Int16](repeating: 0, count: wanted * writer.channels) }
            do {
                let got = try stream.read(into: &samples)
                if got == 0 { break }
                if firstSampleAt == nil { firstSampleAt = ProcessInfo.processInfo.systemUptime }
                try writer.append(samples[0..<(got * writer.channels)])
            } catch let error as PluginStatus {
                failure = error.message
                break
            } catch {
                failure = "disk"
                break
            }
        }
        do { try writer.finish() } catch { failure = failure ?? "disk" }
        return Result(seconds: writer.seconds, level: writer.level, reachedLimit: reachedLimit, failure: failure)
    }
}

extension Survey {
    var sampleRate: Int { settings.sampleRate }

    func keptTake(for item: SurveyItem) -> SurveyStore.Recording? {
        guard let definition, let store else { return nil }
        return (try? store.draftRecordings(definition.id))?.first { $0.task == item.id }
    }

    /// Space on a recording item: the task was said; now the countdown, the start tone, and the take.
    func startTake() {
        guard let flow, let definition, flow.current.kind == .recording, recorder == nil else { return }
        let item = flow.current
        if pendingTake != nil { discardPendingTake() }
        let rate = sampleRate
        do {
            try host.reserveMedia(bytes: Int64(item.maxSeconds * Double(rate) * 2) + 4_096)
        } catch {
            host.play(.error)
            host.say(phrases.text("disk-full"), priority: .important)
            return
        }
        host.cancelSpeech()
        host.speak(
            phrases.text("countdown"), priority: .important,
            onDone: { [weak self] _, finished in
                guard let self, finished, self.flow?.current.id == item.id, mode == .asking else { return }
                host.play(.rise)
                toneRequestedAt = ProcessInfo.processInfo.systemUptime
                // The microphone opens as the start tone ends, so the tone is not in the take.
                host.addTimer(milliseconds: 180, repeating: false) { [weak self] in
                    self?.openMicrophone(item: item, definition: definition, rate: rate)
                }
            })
    }

    private func openMicrophone(item: SurveyItem, definition: SurveyDefinition, rate: Int) {
        guard flow?.current.id == item.id, mode == .asking, recorder == nil else { return }
        let stream: AudioInputStream
        do {
            stream = try host.openAudioInput(rateHz: rate, channels: 1)
        } catch {
            host.log(.warning, "the microphone could not be opened: \(error.message)")
            host.play(.error)
            host.say(phrases.text("mic-unavailable"), priority: .important)
            return
        }
        let name = "drafts/\(definition.id)/\(item.file ?? item.id)-\(Int(now() * 1000)).wav"
        let writer: TakeWriter
        do {
            let path = try host.createMediaFile(name)
            writer = try TakeWriter(path: path, rateHz: rate, channels: 1)
        } catch {
            stream.close()
            host.play(.error)
            host.say(phrases.text("disk-full"), priority: .important)
            return
        }
        let recorder = Recorder(stream: stream, writer: writer, maxSeconds: item.maxSeconds)
        self.recorder = recorder
        host.publish("assist.voice.suspend", json: #"{"reason":"recording"}"#)
        recorder.start(host: host) { [weak self, weak recorder] result in
            recorder?.close()
            if let self, let recorder { publishTake(recorder, result: result, item: item) }
            self?.takeEnded(result, item: item, name: name, rate: rate)
        }
        pendingName = name
    }

    /// `assist.survey.take`: the item, the take's length and, in monotonic seconds, when the start tone was
    /// asked for, when the microphone opened and when its first samples were kept.
    private func publishTake(_ recorder: Recorder, result: Recorder.Result, item: SurveyItem) {
        var fields = [
            "\"item\":\(Covid19SoundsProtocol.quoted(item.id))", "\"seconds\":\(result.seconds)",
            "\"mic_opened_s\":\(recorder.openedAt)",
        ]
        if let tone = toneRequestedAt { fields.append("\"tone_requested_s\":\(tone)") }
        if let first = recorder.firstSampleAt { fields.append("\"first_sample_s\":\(first)") }
        host.publish("assist.survey.take", json: "{" + fields.joined(separator: ",") + "}")
    }

    private func takeEnded(_ result: Recorder.Result, item: SurveyItem, name: String, rate: Int) {
        recorder = nil
        host.publish("assist.voice.resume", json: #"{"reason":"recording"}"#)
        if let failure = result.failure {
            host.log(.warning, "the take stopped: \(failure)")
            host.play(.error)
            try? host.deleteMedia(name)
            host.say(phrases.text(failure == "disk" ? "disk-full" : "mic-unavailable"), priority: .important)
            return
        }
        host.play(result.reachedLimit ? .end : .fall)
        var lines: [String] = []
        if result.reachedLimit {
            lines.append(phrases.text("stopped-at", ["seconds": DefinitionLoader.number(item.maxSeconds)]))
        }
        guard result.seconds >= item.minSeconds else {
            try? host.deleteMedia(name)
            lines.append(phrases.text("take-too-short"))
            host.say(lines.joined(separator: " "))
            return
        }
        let take = PendingTake(item: item.id, path: name, seconds: result.seconds, rateHz: rate, level: result.level)
        guard mode == .asking, flow?.current.id == item.id else {
            // The participant left during the take: a long-enough take is kept as accepted.
            pendingTake = take
            acceptTake()
            saveDraft()
            return
        }
        pendingTake = take
        lines.append(phrases.text("take-done", ["seconds": Self.seconds(result.seconds)]))
        if result.level.isSilent { lines.append(phrases.text("take-silent")) }
        if result.level.isClipped { lines.append(phrases.text("take-clipped")) }
        host.say(lines.joined(separator: " "))
    }

    /// Enter after a take: it replaces the earlier accepted one, whose file is deleted only now. False when
    /// it could not be kept (a full, read-only or busy database): the take stays waiting, its file untouched,
    /// and the participant hears why and that Enter tries again.
    @discardableResult
    func acceptTake() -> Bool {
        guard let take = pendingTake, let definition, let store else { return true }
        let recording = SurveyStore.Recording(
            task: take.item, path: take.path, durationMs: Int(take.seconds * 1000), sampleRate: take.rateHz,
            channels: 1, format: "wav")
        do {
            if let earlier = try store.acceptTake(recording, definitionID: definition.id) {
                try? host.deleteMedia(earlier.path)
            }
        } catch {
            host.log(.warning, "the take \(take.path) could not be kept: \(error.message)")
            host.play(.error)
            host.say(phrases.text("take-not-kept", ["reason": error.message]), priority: .important)
            return false
        }
        pendingTake = nil
        flow?.setValue(definition.item(take.item)?.file.map { $0 + ".wav" } ?? take.path, for: take.item)
        return true
    }

    func discardPendingTake() {
        guard let take = pendingTake else { return }
        pendingTake = nil
        try? host.deleteMedia(take.path)
    }

    func recordAgain() {
        guard mode == .asking, flow?.current.kind == .recording else { return }
        discardPendingTake()
        startTake()
    }

    /// P: plays the take waiting to be kept, else the kept one.
    func playTake() {
        guard mode == .asking, let flow, flow.current.kind == .recording else { return }
        let path = pendingTake?.path ?? keptTake(for: flow.current)?.path
        guard let path else {
            host.say(phrases.text("no-take"))
            return
        }
        do {
            try host.playSound(file: mediaPath(path))
        } catch {
            host.say(error.message)
        }
    }

    /// Leaving during a take: the file is completed, and kept as accepted when long enough. [main]
    func finishTakeOnStop() {
        guard let recorder, let item = flow?.current, let name = pendingName else { return }
        self.recorder = nil
        guard let result = recorder.cancel(), result.failure == nil, result.seconds >= item.minSeconds else {
            try? host.deleteMedia(name)
            return
        }
        pendingTake = PendingTake(
            item: item.id, path: name, seconds: result.seconds, rateHz: recorder.rateHz, level: result.level)
        acceptTake()
    }
}

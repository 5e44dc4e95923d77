import Foundation
import PluginAPI

#if canImport(Glibc)
    import Glibc
#endif

/// A Swift closure handed through a C `void *user`.
final class ClosureBox<Arguments> {
    let call: (Arguments) -> Void
    init(_ call: @escaping (Arguments) -> Void) { self.call = call }
}

/// Speech callbacks for one utterance; released when it ends.
final class SpeechCallbackBox {
    let onWord: ((UInt64, Int) -> Void)?
    let onDone: (UInt64, Bool) -> Void
    init(onWord: ((UInt64, Int) -> Void)?, onDone: @escaping (UInt64, Bool) -> Void) {
        self.onWord = onWord
        self.onDone = onDone
    }
}

/// A timer's closure, with the host whose timer it is.
final class TimerBox {
    let host: UnsafePointer<assist_host>
    let body: () -> Void
    init(host: UnsafePointer<assist_host>, body: @escaping () -> Void) {
        self.host = host
        self.body = body
    }
}

/// Timers' closures, kept until the timer fires for good or is cancelled. A timer's id is its host's: one plugin
/// library may serve two hosts in one process (the app's sessions in a test process), each with its own main
/// thread and its own ids, so a closure is kept under its host and id, behind a lock. (Kept by id alone, one
/// host's cancel released the other's repeating timer, which then fired on freed memory.)
enum TimerRegistry {
    private struct Key: Hashable {
        let host: UnsafePointer<assist_host>
        let id: UInt64
    }
    private static let lock = NSLock()
    nonisolated(unsafe) private static var boxes: [Key: Unmanaged<TimerBox>] = [:]

    static func keep(_ box: Unmanaged<TimerBox>, host: UnsafePointer<assist_host>, id: UInt64) {
        lock.withLock { boxes[Key(host: host, id: id)] = box }
    }

    /// The closure kept for `id`, no longer kept.
    static func take(host: UnsafePointer<assist_host>, id: UInt64) -> Unmanaged<TimerBox>? {
        lock.withLock { boxes.removeValue(forKey: Key(host: host, id: id)) }
    }
}

extension PluginHostHandle {
    // MARK: assist.speech/1

    /// Speaks `text`; `onDone` runs once on [main] with true for finished, false for cancelled; `onWord` gets
    /// each word's character offset. Returns the utterance id, nil when nothing was queued. `printed` false
    /// leaves the printing to the plugin; `status` prints it where the host prints its own lines (on standard
    /// error while standard output holds a data command's data). Wraps `assist_speech_service.speak`. Any thread.
    @discardableResult
    public func speak(
        _ text: String, priority: SpeechPriority = .message, language: String? = nil, wordsPerMinute: Int = 0,
        printed: Bool = true, status: Bool = false, onWord: ((UInt64, Int) -> Void)? = nil,
        onDone: @escaping (UInt64, Bool) -> Void = { _, _ in }
    ) -> UInt64? {
        guard let speech = tables.speech,
            let speak = speech.pointee.speak
        else { return nil }
        var options = assist_speech_options()
        options.struct_size = UInt32(MemoryLayout<assist_speech_options>.size)
        options.priority = priority.rawValue
        options.words_per_minute = Int32(wordsPerMinute)
        options.flags = !printed ? ASSIST_SPEECH_NO_PRINT : status ? ASSIST_SPEECH_STATUS : 0
        let box = Unmanaged.passRetained(SpeechCallbackBox(onWord: onWord, onDone: onDone))
        var id: UInt64 = 0
        let status: Int32 = (language ?? "").withCString { languagePointer in
            options.language = language == nil ? nil : languagePointer
            return speak(
                raw, text, &options,
                { user, utterance, outcome in
                    guard let user else { return }
                    let box = Unmanaged<SpeechCallbackBox>.fromOpaque(user)
                    box.takeUnretainedValue().onDone(utterance, outcome == ASSIST_SPEECH_FINISHED)
                    box.release()
                },
                { user, utterance, characterOffset, _, _ in
                    guard let user else { return }
                    Unmanaged<SpeechCallbackBox>.fromOpaque(user).takeUnretainedValue().onWord?(
                        utterance, Int(characterOffset))
                }, box.toOpaque(), &id)
        }
        guard status == ASSIST_OK else {
            box.release()
            return nil
        }
        return id
    }

    /// Prints `text` as plain lines without speaking it. Wraps `assist_speech_service.print`. Any thread.
    public func print(_ text: String) {
        _ = tables.speech?.pointee.print?(raw, text)
    }

    /// Stops one of this plugin's utterances. Wraps `assist_speech_service.stop`. Any thread.
    public func stopSpeech(_ id: UInt64) {
        _ = tables.speech?.pointee.stop?(raw, id)
    }

    /// Stops all of this plugin's speech. Wraps `assist_speech_service.cancel_mine`. Any thread.
    public func cancelSpeech() {
        _ = tables.speech?.pointee.cancel_mine?(raw)
    }

    // MARK: assist.cues/1

    /// Plays an earcon once, at `gain` (0-1) of the cue volume, panned -1 (left) to 1 (right). Wraps
    /// `assist_cues_service.play`. Any thread.
    ///
    ///     host.play(.found, pan: -0.5)
    public func play(_ earcon: Earcon, gain: Double = 1, pan: Double = 0) {
        _ = tables.cues?.pointee.play?(raw, earcon.rawValue, gain, pan)
    }

    /// Plays a guidance pattern until the next call or `stopCues`; one pending slot, so a newer call
    /// replaces an older one. Wraps `assist_cues_service.guidance`. Any thread.
    ///
    ///     host.guidance(.left, intensity: 0.8, pan: -1)
    public func guidance(_ pattern: GuidancePattern, intensity: Double, pan: Double, pitchHz: Double = 0) {
        _ = tables.cues?.pointee.guidance?(raw, pattern.rawValue, intensity, pan, pitchHz)
    }

    /// Ends guidance. Wraps `assist_cues_service.stop`. Any thread.
    public func stopCues() {
        _ = tables.cues?.pointee.stop?(raw)
    }

    // MARK: assist.camera/1

    /// Subscribes to frames (they arrive at `PluginFeature.handle(frame:)`); throws the host's sentence when
    /// the camera cannot open. Wraps `assist_camera_service.subscribe`. [main]
    public func subscribeCamera(
        fourcc: UInt32, maxWidth: Int = 0, maxHeight: Int = 0, maxFramesPerSecond: Double = 0, zoom: Double = 1,
        square: Bool = false
    ) throws(PluginStatus) {
        guard let subscribe = tables.camera?.pointee.subscribe else {
            throw PluginStatus(ASSIST_E_UNSUPPORTED, message: "This host has no camera service.")
        }
        var request = assist_camera_request()
        request.struct_size = UInt32(MemoryLayout<assist_camera_request>.size)
        request.fourcc = fourcc
        request.max_width = UInt32(maxWidth)
        request.max_height = UInt32(maxHeight)
        request.max_fps = maxFramesPerSecond
        request.zoom = zoom
        request.flags = square ? ASSIST_CAMERA_SQUARE : 0
        var error: UnsafeMutablePointer<CChar>?
        try PluginStatus.check(subscribe(raw, &request, &error), error, otherwise: "The camera cannot be opened.")
    }

    /// Stops frames. Wraps `assist_camera_service.unsubscribe`. [main]
    public func unsubscribeCamera() {
        _ = tables.camera?.pointee.unsubscribe?(raw)
    }

    /// Keeps a frame beyond `handle(frame:)`; nil over the budget of 4. Wraps `retain`. [frame]
    public func retainFrame(_ frame: UnsafePointer<assist_frame>) -> UnsafePointer<assist_frame>? {
        tables.camera?.pointee.retain?(raw, frame)
    }

    /// Gives back a retained frame. Wraps `release`. Any thread.
    public func releaseFrame(_ frame: UnsafePointer<assist_frame>) {
        tables.camera?.pointee.release?(raw, frame)
    }

    /// Reads a camera control ("focus", "exposure", "zoom"). Wraps `control`. Any thread.
    public func cameraControl(_ name: String) -> (value: Int64, minimum: Int64, maximum: Int64)? {
        guard let control = tables.camera?.pointee.control else {
            return nil
        }
        var value: Int64 = 0
        var minimum: Int64 = 0
        var maximum: Int64 = 0
        guard control(raw, name, &value, &minimum, &maximum) == ASSIST_OK else { return nil }
        return (value, minimum, maximum)
    }

    // MARK: assist.clock/1 and assist.worker/1

    /// Calls `body` on [main] after `milliseconds`, once or repeatedly; returns the timer id. Wraps
    /// `timer_add`. [main]
    @discardableResult
    public func addTimer(milliseconds: UInt32, repeating: Bool, _ body: @escaping () -> Void) -> UInt64? {
        guard let clock = tables.clock,
            let add = clock.pointee.timer_add
        else { return nil }
        let box = Unmanaged.passRetained(TimerBox(host: raw, body: body))
        var id: UInt64 = 0
        let callback: assist_timer_cb =
            repeating
            ? { user, _ in user.map { Unmanaged<TimerBox>.fromOpaque($0).takeUnretainedValue().body() } }
            : { user, timer in
                guard let user else { return }
                let box = Unmanaged<TimerBox>.fromOpaque(user)
                _ = TimerRegistry.take(host: box.takeUnretainedValue().host, id: timer)
                box.takeUnretainedValue().body()
                box.release()
            }
        guard add(raw, milliseconds, repeating, callback, box.toOpaque(), &id) == ASSIST_OK else {
            box.release()
            return nil
        }
        TimerRegistry.keep(box, host: raw, id: id)
        return id
    }

    /// Cancels a timer from `addTimer`. Wraps `timer_cancel`. [main]
    public func cancelTimer(_ id: UInt64) {
        _ = tables.clock?.pointee.timer_cancel?(raw, id)
        TimerRegistry.take(host: raw, id: id)?.release()
    }

    /// Runs `body` on [main] soon. Wraps `assist_worker_service.post_main`. Any thread.
    public func onMain(_ body: @escaping () -> Void) {
        guard let worker = tables.worker,
            let post = worker.pointee.post_main
        else { return }
        let box = Unmanaged.passRetained(ClosureBox<Void> { _ in body() })
        let status = post(
            raw,
            { user in
                guard let user else { return }
                let box = Unmanaged<ClosureBox<Void>>.fromOpaque(user)
                box.takeUnretainedValue().call(())
                box.release()
            }, box.toOpaque())
        if status != ASSIST_OK { box.release() }
    }

    // MARK: assist.settings/1 and assist.session/1

    /// A string setting, or nil. Wraps `get_string`. Any thread.
    public func setting(_ key: String) -> String? {
        guard let get = tables.settings?.pointee.get_string
        else { return nil }
        var buffer = [CChar](repeating: 0, count: 1_024)
        guard get(raw, key, &buffer, buffer.count, nil) == ASSIST_OK else { return nil }
        return String(cBuffer: buffer)
    }

    /// A boolean setting, or `fallback`. Wraps `get_bool`. Any thread.
    public func setting(_ key: String, default fallback: Bool) -> Bool {
        guard let get = tables.settings?.pointee.get_bool
        else { return fallback }
        var value = fallback
        return get(raw, key, &value) == ASSIST_OK ? value : fallback
    }

    /// Saves a string setting in the plugin's own namespace (kept across starts); throws the host's refusal
    /// (another namespace, a value the setting does not take). Wraps `set_string`. [main]
    public func setSetting(_ key: String, _ value: String) throws(PluginStatus) {
        guard let set = tables.settings?.pointee.set_string else { throw PluginStatus.unsupported }
        try PluginStatus.check(set(raw, key, value))
    }

    /// The plugin's private data folder (created 0700). Wraps `data_dir`. Any thread.
    public var dataDirectory: String? {
        guard let session = tables.session,
            let text = session.pointee.data_dir?(raw)
        else { return nil }
        return String(cString: text)
    }

    /// True the first time this plugin asks with `key` for this user, false ever after: a marker file (0600)
    /// in its data folder. For what is said once, such as a safety notice at first use. False when there is
    /// no data folder, so nothing is said again and again where it cannot be remembered. Any thread.
    public func firstTime(_ key: String) -> Bool {
        guard let folder = dataDirectory, !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
        else { return false }
        let marker = folder + "/.said-" + key
        let descriptor = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// The plugin's cache folder (created 0700): media moved there with `moveMediaToCache` may be purged when
    /// space is needed. Wraps `cache_dir`. Any thread.
    public var cacheDirectory: String? {
        guard let session = tables.session,
            let text = session.pointee.cache_dir?(raw)
        else { return nil }
        return String(cString: text)
    }
}

extension PluginHostHandle {
    /// True while any speech is sounding, this plugin's or not. Wraps `assist_speech_service.is_speaking`.
    /// Any thread.
    public var isSpeaking: Bool {
        tables.speech?.pointee.is_speaking?(raw) ?? false
    }

    /// Publishes an event with a JSON payload. Wraps `assist_events_service.publish`. Any thread.
    public func publish(_ name: String, json: String) {
        _ = tables.events?.pointee.publish?(raw, name, json)
    }

    /// Calls `handler` on [main] with each event whose name starts with `prefix` and its JSON payload. The
    /// subscription lasts as long as the plugin (the host ends it when the plugin stops). Wraps
    /// `assist_events_service.subscribe`. [main]
    public func subscribeEvents(prefix: String, _ handler: @escaping (String, String) -> Void) {
        guard let subscribe = tables.events?.pointee.subscribe
        else { return }
        // The box lives as long as the subscription, which lives as long as the plugin.
        let box = Unmanaged.passRetained(EventHandlerBox(handler)).toOpaque()
        _ = subscribe(
            raw, prefix,
            { user, name, json in
                guard let user, let name, let json else { return }
                Unmanaged<EventHandlerBox>.fromOpaque(user).takeUnretainedValue().handler(
                    String(cString: name), String(cString: json))
            }, box, nil)
    }
}

/// Keeps an event handler alive for the C callback.
private final class EventHandlerBox {
    let handler: (String, String) -> Void
    init(_ handler: @escaping (String, String) -> Void) { self.handler = handler }
}

extension String {
    /// The text in a C buffer the host filled, up to its first NUL. (The host's own is Runtime's
    /// `String(nulTerminated:)`; plugins do not link the host's modules, so PluginKit keeps this one.)
    init(cBuffer buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

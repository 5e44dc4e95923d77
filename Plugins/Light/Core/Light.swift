import Foundation
import OCR
import PluginAPI
import PluginKit

/// The light meter (light.md): a steady tone whose pitch follows how bright the middle of the picture is,
/// changed with every frame, and on `w` or "how bright" the level in words and whether a light is in view.
/// `--image PHOTO` says the same of a photo and ends. Frames are measured on the host's delivery thread; the
/// newest reading is kept for the main loop behind a lock.
public final class Light: PluginFeature {
    let host: PluginHostHandle
    let phrases: PhraseTable
    private let lock = NSLock()
    private var newest: Brightness?
    private var watch = LevelWatch()
    private var running = false

    public init(host: PluginHostHandle) {
        self.host = host
        phrases = PhraseTable(directory: host.shareDirectory, language: host.language)
    }

    public func start(arguments: [String]) throws(PluginError) {
        switch try PhotoArgument.parse(arguments, phrases: phrases) {
        case .help:
            host.print(phrases.text("help-usage"))
            return host.finish()
        case .photo(let path):
            return measurePhoto(path)
        case .camera:
            break
        }
        try? host.registerCommand("level", key: "w", phrases: phrases)
        if host.firstTime("intro") { host.say(phrases.text("intro")) } else { host.say(phrases.text("intro-short")) }
        try subscribe()
        // A folder of pictures or a video given as the camera ran out (the host has said so): the end.
        host.subscribeEvents(prefix: "assist.camera.ended") { [self] _, _ in
            stop()
            host.finish()
        }
    }

    /// Grey pictures are all a meter needs: small, and as often as the camera gives them.
    func subscribe() throws(PluginError) {
        do {
            try host.subscribeCamera(format: .gray8, maxWidth: 320, maxHeight: 240, maxFramesPerSecond: 30)
        } catch { throw PluginError(error.message) }
        lock.withLock { running = true }
    }

    /// `--image PHOTO`: the level of a photo, said and printed, then the end.
    func measurePhoto(_ path: String) {
        do {
            let picture = try TesseractEngine.loadGray(URL(fileURLWithPath: path), largestSide: 1_280)
            let reading = picture.pixels.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map {
                    Brightness(grey: $0, width: picture.width, height: picture.height, stride: picture.width)
                }
            }
            guard let reading else { throw OCRError.badImage(path) }
            host.say(sentence(for: reading))
            host.finish()
        } catch {
            host.say("\(error)", priority: .important)
            host.finish(.invalid)
        }
    }

    /// On the delivery thread: the tone follows every frame.
    public func handle(frame: CameraFrame) {
        guard frame.format == .gray8 else { return }
        let reading = Brightness(grey: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride)
        let seconds = Double(frame.timestamp) / 1e9
        let changed: Brightness.Level? = lock.withLock {
            guard running else { return nil }
            newest = reading
            return watch.settle(reading.level, at: seconds)
        }
        host.guidance(.tone, intensity: 0.6, pan: 0, pitchHz: reading.pitchHz)
        if let changed, host.setting("light.say-changes") == "on" {
            host.onMain { [self] in host.say(phrases.text("level." + changed.rawValue), priority: .message) }
        }
    }

    /// The level in words, with the share of the scale, and a light in view if there is one.
    func sentence(for reading: Brightness) -> String {
        var text = phrases.text(
            "reading", ["level": phrases.text("level." + reading.level.rawValue), "percent": String(reading.percent)])
        if let side = reading.lightSource { text += " " + phrases.text("source." + side.rawValue) }
        return text
    }

    public func handle(command: String, argument: String?) {
        guard command == "level" else { return }
        guard let reading = lock.withLock({ newest }) else { return host.say(phrases.text("no-picture")) }
        host.say(sentence(for: reading), priority: .important)
    }

    public func pause() {
        lock.withLock { running = false }
        host.unsubscribeCamera()
        host.stopCues()
    }

    public func resume() {
        do throws(PluginError) { try subscribe() } catch {
            host.say(error.message, priority: .important)
            host.finish(.io)
        }
    }

    public func stop() {
        lock.withLock { running = false }
        host.unsubscribeCamera()
        host.stopCues()
    }
}

/// When a level is worth saying (light.say-changes): a new level that has held for a second, never the one
/// last said, never the first (the start has its own sentence).
struct LevelWatch {
    private var said: Brightness.Level?
    private var candidate: (level: Brightness.Level, since: Double)?
    static let holdSeconds = 1.0

    /// The level to say now, if any, for a frame at `seconds`.
    mutating func settle(_ level: Brightness.Level, at seconds: Double) -> Brightness.Level? {
        guard let last = said else {
            said = level
            return nil
        }
        guard level != last else {
            candidate = nil
            return nil
        }
        guard let held = candidate, held.level == level else {
            candidate = (level, seconds)
            return nil
        }
        guard seconds - held.since >= Self.holdSeconds else { return nil }
        said = level
        candidate = nil
        return level
    }
}

import Foundation
import OCR
import PluginAPI
import PluginKit

/// The colour reader (colour.md): the colour where the camera points, said when it settles on a new one;
/// Enter or "more" a finer name, `p` the main colours of the whole picture, `c` a white paper's calibration.
/// `--image PHOTO` names a photo's middle and ends. Frames are read on the host's delivery thread; the newest
/// reading is kept for the main loop behind a lock.
public final class Colour: PluginFeature {
    let host: PluginHostHandle
    let phrases: PhraseTable
    private let lock = NSLock()
    private var newest: ColourReading?
    private var newestPalette: [(BasicColour, Int)] = []
    private var wantsPalette = false
    private var settle = NameSettling()
    private var running = false
    private var lastUtterance: UInt64?
    /// The middle's linear light, for calibration.
    private var newestWhite: (Double, Double, Double)?
    /// The balance in use: read from the settings on the main loop at start and set by calibration.
    private var balanceNow: WhiteBalance = .automatic

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
            return namePhoto(path)
        case .camera:
            break
        }
        for (id, key) in [("more", "enter"), ("palette", "p"), ("calibrate", "c")] {
            try? host.registerCommand(id, key: key, phrases: phrases)
        }
        if let problem = balanceProblem { host.say(problem, priority: .important) }
        let balance = balance
        lock.withLock { balanceNow = balance }
        host.say(phrases.text(host.firstTime("intro") ? "intro" : "intro-short"))
        try subscribe()
        host.subscribeEvents(prefix: "assist.camera.ended") { [self] _, _ in
            stop()
            host.finish()
        }
    }

    /// Colour pictures, small: the middle box and the surround are all that is read.
    func subscribe() throws(PluginError) {
        do {
            try host.subscribeCamera(format: .bgr24, maxWidth: 640, maxHeight: 480, maxFramesPerSecond: 10)
        } catch { throw PluginError(error.message) }
        lock.withLock { running = true }
    }

    /// colour.white-balance, and the calibration colour.white ("R G B" gains) when it is "calibrated".
    var balance: WhiteBalance {
        switch host.setting("colour.white-balance") ?? "automatic" {
        case "camera": return .camera
        case "calibrated":
            guard let gains = Self.gains(host.setting("colour.white")) else { return .automatic }
            return .calibrated(red: gains[0], green: gains[1], blue: gains[2])
        default: return .automatic
        }
    }

    /// What is wrong with the saved calibration, said once at start; nil when nothing is.
    var balanceProblem: String? {
        guard host.setting("colour.white-balance") == "calibrated" else { return nil }
        guard let saved = host.setting("colour.white"), !saved.isEmpty else {
            return phrases.text("calibration-missing")
        }
        return Self.gains(saved) == nil ? phrases.text("calibration-damaged") : nil
    }

    /// Three gains, each 0.2…5, from "R G B".
    static func gains(_ text: String?) -> [Double]? {
        guard let parts = text?.split(separator: " ").compactMap({ Double($0) }), parts.count == 3,
            parts.allSatisfy({ $0.isFinite && (0.2...5).contains($0) })
        else { return nil }
        return parts
    }

    /// `--image PHOTO`: the middle's colour, with the finer name, said and printed, then the end.
    func namePhoto(_ path: String) {
        do {
            let photo = try TesseractEngine.loadColour(URL(fileURLWithPath: path), largestSide: 1_280)
            let balance = balance
            let reading = photo.pixels.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map {
                    ColourReading(
                        ColourPicture(
                            pixels: $0, width: photo.width, height: photo.height, stride: photo.width * 3, order: .rgb),
                        balance: balance)
                }
            }
            guard let reading else { throw OCRError.badImage(path) }
            host.say(
                reading.tooDark
                    ? phrases.text("too-dark")
                    : phrases.text(
                        "named-with-fine",
                        ["name": phrases.text(reading.name.key), "fine": phrases.text(reading.fineKey).lowercased()]))
            host.finish(reading.tooDark ? .notFound : .ok)
        } catch {
            host.say("\(error)", priority: .important)
            host.finish(.invalid)
        }
    }

    /// On the delivery thread: read the middle; a name that has held for three frames and is new is said.
    public func handle(frame: CameraFrame) {
        guard frame.format == .bgr24 else { return }
        let picture = ColourPicture(
            pixels: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride, order: .bgr)
        let balance = lock.withLock { running ? self.balanceNow : nil }
        guard let balance else { return }
        let reading = ColourReading(picture, balance: balance)
        let palette = lock.withLock { wantsPalette } ? Palette.shares(picture, balance: balance) : nil
        let toSay: String? = lock.withLock {
            newest = reading
            newestWhite = (reading.middle[0], reading.middle[1], reading.middle[2])
            if let palette {
                newestPalette = palette
                wantsPalette = false
            }
            return settle.settle(reading.tooDark ? "too-dark" : reading.name.key)
        }
        if let palette { host.onMain { [self] in sayPalette(palette) } }
        if let toSay { host.onMain { [self] in sayName(toSay) } }
    }

    func sayName(_ key: String) {
        if let lastUtterance { host.stopSpeech(lastUtterance) }
        lastUtterance = host.speak(phrases.text(key))
    }

    func sayPalette(_ shares: [(BasicColour, Int)]) {
        guard !shares.isEmpty else { return host.say(phrases.text("no-picture")) }
        let parts = shares.map {
            phrases.text(
                "share", ["name": phrases.text("basic." + $0.0.rawValue).lowercased(), "percent": String($0.1)])
        }
        host.say(
            phrases.text("palette", ["shares": parts.joined(separator: phrases.text("and"))]), priority: .important)
    }

    public func handle(command: String, argument: String?) {
        switch command {
        case "more":
            guard let reading = lock.withLock({ newest }) else { return host.say(phrases.text("no-picture")) }
            host.say(
                reading.tooDark ? phrases.text("too-dark") : phrases.text(reading.fineKey), priority: .important)
        case "palette":
            lock.withLock { wantsPalette = true }
        case "calibrate":
            calibrate()
        default:
            break
        }
    }

    /// `c`: the middle is a white paper; its tint becomes the calibration, kept as settings.
    func calibrate() {
        guard let white = lock.withLock({ newestWhite }) else { return host.say(phrases.text("no-picture")) }
        guard case .calibrated(let red, let green, let blue) = WhiteBalance.calibration(white: white) else {
            return host.say(phrases.text("calibration-refused"), priority: .important)
        }
        let gains = [red, green, blue].map { String(format: "%.4f", $0) }.joined(separator: " ")
        do {
            try host.setSetting("colour.white", gains)
            try host.setSetting("colour.white-balance", "calibrated")
        } catch {
            return host.say(phrases.text("calibration-not-saved"), priority: .important)
        }
        lock.withLock {
            balanceNow = .calibrated(red: red, green: green, blue: blue)
            settle = NameSettling()
        }
        host.play(.success)
        host.say(phrases.text("calibrated"), priority: .important)
    }

    public func pause() {
        lock.withLock { running = false }
        host.unsubscribeCamera()
    }

    public func resume() {
        lock.withLock { settle = NameSettling() }
        do throws(PluginError) { try subscribe() } catch {
            host.say(error.message, priority: .important)
            host.finish(.io)
        }
    }

    public func stop() {
        lock.withLock { running = false }
        host.unsubscribeCamera()
    }
}

/// When a name is worth saying: it has held for three frames in a row and differs from the last one said.
struct NameSettling {
    private var said: String?
    private var candidate: (key: String, frames: Int)?
    static let frames = 3

    mutating func settle(_ key: String) -> String? {
        guard key != said else {
            candidate = nil
            return nil
        }
        let frames = candidate?.key == key ? (candidate?.frames ?? 0) + 1 : 1
        candidate = (key, frames)
        guard frames >= Self.frames else { return nil }
        said = key
        candidate = nil
        return key
    }
}

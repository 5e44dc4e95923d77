import Foundation
import OCR
import PluginAPI
import PluginKit

/// Frame-thread state: whether frames are wanted, the stability detector, and whether a candidate is with
/// the worker.
final class CaptureState: @unchecked Sendable {  // because: every member is used under `lock`
    struct Values {
        /// read-text was stopped: the worker's recognition and a document's pages end at the next check.
        var stopped = false
        var capturing = false
        var busy = false
        var stability = StabilityDetector()
        /// A settling picture being recognised early, until its recognition ends.
        var early: ReadingOutput?
        /// A document is being asked for or opened from the camera (o): the camera's recognition ends at its
        /// next check and what it read is dropped.
        var leavingCamera = false
    }

    private let lock = NSLock()
    private var values = Values()

    func withLock<T>(_ body: (inout Values) -> T) -> T {
        lock.withLock { body(&values) }
    }
}

/// A copied camera frame waiting in the selection pool.
struct GrayImage: Sendable {
    var pixels: [UInt8]
    var width: Int
    var height: Int

    /// A copy, not a retained frame: candidates wait for seconds and recognition takes a while, longer than a
    /// camera frame should be held (plugin-abi.md §5). Copying 2 MB takes well under a millisecond.
    init(copying frame: CameraFrame) {
        pixels = frame.copyPixels()
        width = frame.width
        height = frame.height
    }
}

/// Gray pixels the worker recognises: a copied camera frame or a decoded photo.
struct GrayPicture {
    var pixels: UnsafeRawPointer
    var width: Int
    var height: Int
    var stride: Int
}

extension GrayBuffer {
    /// Runs `body` with a borrowed view of the pixels; nil only for an empty buffer.
    func withPicture<T>(_ body: (GrayPicture) -> T) -> T? {
        pixels.withUnsafeBytes { bytes in
            bytes.baseAddress.map { body(GrayPicture(pixels: $0, width: width, height: height, stride: width)) }
        }
    }
}

extension ReadText {
    // MARK: Camera (main loop)

    func startCapture() throws(PluginError) {
        do {
            try host.subscribeCamera(format: .gray8, maxWidth: 1920, maxFramesPerSecond: 16)
        } catch { throw PluginError(error.message) }
        let now = DispatchTime.now().uptimeNanoseconds
        capture.withLock { state in
            state.capturing = true
            state.busy = false
            state.stability = StabilityDetector()
            state.stability.rearm(at: now)
            state.early?.drop()
            state.early = nil
        }
        // Focus and exposure settle on their own on V4L2; poll them where the camera has them.
        if controlTimer == nil, host.cameraControl("focus") != nil || host.cameraControl("exposure") != nil {
            controlTimer = host.addTimer(milliseconds: 50, repeating: true) { [weak self] in self?.pollControls() }
        }
    }

    func pollControls() {
        for name in ["focus", "exposure"] {
            guard let reading = host.cameraControl(name) else { continue }
            capture.withLock { $0.stability.controlReading(name, value: reading.value, step: 1) }
        }
    }

    func stopCapture() {
        capture.withLock { $0.capturing = false }
        if let controlTimer { host.cancelTimer(controlTimer) }
        controlTimer = nil
        host.unsubscribeCamera()
    }

    /// Re-arms the stability wait after a candidate or a vetoed result.
    func rearm() {
        guard !leavingCamera else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        capture.withLock { state in
            state.busy = false
            state.stability.rearm(at: now)
        }
    }

    // MARK: Frames (camera delivery thread)

    public func handle(frame: CameraFrame) {
        guard frame.format == .gray8 else { return }
        let thumbnail = StabilityDetector.thumbnail(
            luma: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride)
        enum Step {
            case nothing, chosen, keptEarly, early(ReadingOutput)
        }
        let step = capture.withLock { state -> Step in
            guard state.capturing, !state.busy else { return .nothing }
            let fired = state.stability.add(thumbnail: thumbnail, at: frame.timestamp)
            // The camera moved since the early read's picture: what it read is not this picture's.
            if state.stability.matchingPairs == 0, state.early?.drop() == .holding {
                host.log(.info, "the camera moved: the early reading is dropped")
            }
            if fired {
                state.busy = true
                // Every pair since the early read's picture matched: it is the picture the wait chose.
                if let early = state.early, early.confirm() { return .keptEarly }
                return .chosen
            }
            guard Self.earlyStart, state.early == nil, state.stability.isSettling else { return .nothing }
            let early = ReadingOutput(host: host) { [weak self] accepted in self?.settleEarly(accepted: accepted) }
            state.early = early
            return .early(early)
        }
        switch step {
        case .nothing:
            return
        case .keptEarly:
            play(.stable)
        case .early(let early):
            let candidate = GrayImage(copying: frame)
            worker.run { [self] in readEarly(candidate, early) }
        case .chosen:
            let candidate = GrayImage(copying: frame)
            play(.stable)
            worker.run { [self] in select(candidate) }
        }
    }

    /// False only for the benchmark's baseline (`ASSIST_READ_TEXT_NO_EARLY_START=1`, bench/read-text.sh).
    static let earlyStart = ProcessInfo.processInfo.environment["ASSIST_READ_TEXT_NO_EARLY_START"] != "1"

    /// An early read's recognition ended and the wait kept it (main loop).
    func settleEarly(accepted: Bool) {
        if !accepted { restartCapture() }
    }

    // MARK: Worker thread

    /// A settling picture, recognised while the stability wait goes on (issue 37): only the first candidate
    /// since the last reading and only one sharp enough to be chosen at once, as the wait's own would be; what
    /// it reads is held until the wait keeps it, and it stops at its next chunk when the camera moves.
    func readEarly(_ candidate: GrayImage, _ early: ReadingOutput) {
        defer { capture.withLock { state in if state.early === early { state.early = nil } } }
        guard !early.isDropped else { return }
        let sharpCount = Self.sharpCount(candidate)
        guard selector.isEmpty, Double(sharpCount) >= selector.requirement else {
            // The wait may have chosen this very picture meanwhile: then it is offered as the wait's own.
            if early.drop() == .open { select(candidate, sharpCount: sharpCount) }
            return
        }
        host.log(.info, "recognising a \(candidate.width)x\(candidate.height) frame early, while the picture settles")
        // Held like the words: the camera stops only once the wait has kept this picture.
        early.post { [self] in stopCaptureForReading() }
        output = early
        defer { output = nil }
        early.finish(accepted: recognize(frame: candidate))
    }

    /// Recognises a copied camera frame; false when the veto asks for another picture.
    func recognize(frame: GrayImage) -> Bool {
        frame.pixels.withUnsafeBytes { bytes in
            bytes.baseAddress.map {
                recognize(
                    GrayPicture(pixels: $0, width: frame.width, height: frame.height, stride: frame.width),
                    isPhoto: false)
            } ?? true
        }
    }

    static func sharpCount(_ candidate: GrayImage) -> Int {
        candidate.pixels.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map {
                SharpnessGrid.compute(
                    luma: $0, width: candidate.width, height: candidate.height, stride: candidate.width
                ).sharpCount
            }
        } ?? 0
    }

    /// Scores a candidate and either recognises the best one or asks for another steady picture.
    func select(_ candidate: GrayImage, sharpCount: Int? = nil) {
        switch selector.offer(candidate, sharpCount: sharpCount ?? Self.sharpCount(candidate)) {
        case .wait:
            host.onMain { [self] in rearm() }
        case .recognize(let best, _):
            host.log(.info, "recognising a \(best.width)x\(best.height) frame")
            host.onMain { [self] in stopCaptureForReading() }
            let accepted = recognize(frame: best)
            _ = selector.reset()
            if !accepted { host.onMain { [self] in restartCapture() } }
        }
    }

    /// Reads a photo the user already has (read-text.md §1, still image).
    func readPhoto(_ url: URL) {
        worker.run { [self] in
            let photo: (width: Int, height: Int, pixels: [UInt8])
            do {
                photo = try TesseractEngine.loadGray(url)
            } catch {
                // Given as a document (--file, o), what it really is says so against a PDF too.
                let document = options.file.flatMap { FileKind.named($0, expected: "a picture or a PDF") }
                let message =
                    document.map { "\(url.path) \($0)." } ?? (error as? OCRError)?.message
                    ?? "The picture cannot be read."
                host.onMain { [self] in fail(message) }
                return
            }
            photo.pixels.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                let grid = SharpnessGrid.compute(
                    luma: base.assumingMemoryBound(to: UInt8.self), width: photo.width, height: photo.height,
                    stride: photo.width)
                if grid.looksBlurry {
                    host.onMain { [self] in status(phrases.text("blurry")) }
                }
                _ = recognize(
                    GrayPicture(pixels: base, width: photo.width, height: photo.height, stride: photo.width),
                    isPhoto: true)
            }
        }
    }

    /// Sends `body` to the main loop, or holds it with an early read's words (worker).
    func post(_ body: @escaping () -> Void) {
        if let output { output.post(body) } else { host.onMain(body) }
    }

    /// Recognises `picture` and hands the items to the navigator; false when the veto asks for another
    /// picture (camera only: a photo is read with a warning instead).
    func recognize(_ picture: GrayPicture, isPhoto: Bool) -> Bool {
        guard engine != nil else { return true }
        // Geometry first (issue 14): the page flattened and its lines level, so lines stay whole.
        let geometry = PageGeometry.straighten(
            gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride)
        host.log(
            .debug,
            "geometry: page \(geometry.flattened ? "flattened" : "not found"), turned \(geometry.turnedDegrees)°"
                + (geometry.pagePartlyOutside ? ", part of the page is outside the picture" : ""))
        if geometry.pagePartlyOutside {
            post { [self] in
                host.play(.error, gain: 0.6)
                status(phrases.text("page-cut"))
            }
        }
        guard let straight = geometry.picture else { return recognizeLevel(picture, isPhoto: isPhoto) }
        return straight.withPicture { recognizeLevel($0, isPhoto: isPhoto) } ?? true
    }

    /// Recognises a picture whose page is flat and whose lines are level. When the first lines fail the
    /// confidence veto, the text may be upside down or on its side: tesseract's orientation detection is asked
    /// once, and a turned page is read the right way up.
    func recognizeLevel(_ picture: GrayPicture, isPhoto: Bool, orientationChecked: Bool = false) -> Bool {
        guard let engine else { return true }
        if !options.streaming {
            let observations = engine.recognize(
                gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride,
                minimumLineHeight: ReadTextParameters.leastLineHeight(pictureHeight: picture.height))
            // A photographed page: its tables are found, as the streamed reading finds them, but not its headings.
            let page = ScannedPage(
                width: picture.width, height: picture.height, headings: false, tableIntro: tableIntro)
            let result = pipeline.process(observations, scanned: page)
            let doubtful =
                result.vetoed
                || StreamingRecognizer.looksSideways(
                    observations.map(\.box), width: picture.width, height: picture.height)
            if doubtful && !observations.isEmpty && !orientationChecked,
                let turned = readTurned(picture, isPhoto: isPhoto, engine: engine)
            {
                return turned
            }
            if result.vetoed && !isPhoto && !observations.isEmpty { return false }
            let tooSmall = result.items.isEmpty && textTooSmall(picture, engine: engine)
            let number = result.items.isEmpty ? 0 : numberPictureForView()
            post { [self] in
                if result.vetoed && isPhoto && !observations.isEmpty { status(phrases.text("uncertain")) }
                deliver(result.items, columns: result.columns, complete: true, tooSmall: tooSmall)
            }
            if number > 0 { showPictureOnView(picture, number: number) }
            return true
        }
        return recognizeStreaming(picture, isPhoto: isPhoto, engine: engine, orientationChecked: orientationChecked)
    }

    /// Reads the picture turned the right way up when tesseract is sure it is not (saying so first); nil when
    /// it is upright or tesseract cannot tell.
    func readTurned(_ picture: GrayPicture, isPhoto: Bool, engine: TesseractEngine) -> Bool? {
        guard
            let found = engine.orientation(
                gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride),
            found.clockwiseTurn != 0, found.confidence >= PageGeometry.leastOrientationConfidence,
            let turned = PageGeometry.turned(
                gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride,
                quarters: found.clockwiseTurn / 90)
        else { return nil }
        host.log(.debug, "orientation: turned \(found.clockwiseTurn)°, confidence \(found.confidence)")
        post { [self] in status(phrases.text(found.clockwiseTurn == 180 ? "upside-down" : "sideways")) }
        return turned.withPicture { recognizeLevel($0, isPhoto: isPhoto, orientationChecked: true) }
    }

    /// Streaming (read-text.md §11): see `StreamingRecognizer`. The first block's veto runs for photos too until
    /// the orientation has been checked, so nothing read upside down is ever spoken.
    func recognizeStreaming(_ picture: GrayPicture, isPhoto: Bool, engine: TesseractEngine, orientationChecked: Bool)
        -> Bool
    {
        var started = false
        let summary = StreamingRecognizer(pipeline: pipeline, tableIntro: tableIntro).run(
            engine: engine, gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride,
            vetoFirstBlock: !isPhoto || !orientationChecked, stopWhenSideways: !orientationChecked,
            shouldStop: { [self] in stopped || leavingCamera || output?.isDropped == true }
        ) { items, columns in
            let first = !started
            started = true
            let number = first ? numberPictureForView() : 0
            post { [self] in
                if first { navigator?.columns = columns }
                appendStreamed(items, first: first)
            }
            if number > 0 { showPictureOnView(picture, number: number) }
        }
        if summary.readWhole { host.log(.debug, "streaming: the page may hold a table; read whole from there") }
        // An early read the camera moved away from: nothing more is worked out for it.
        if output?.isDropped == true { return true }
        if summary.vetoed || summary.sideways {
            if !orientationChecked, let turned = readTurned(picture, isPhoto: isPhoto, engine: engine) { return turned }
            if summary.sideways {
                return recognizeStreaming(picture, isPhoto: isPhoto, engine: engine, orientationChecked: true)
            }
            // A photo is read all the same, with a warning at the end; the camera waits for a better picture.
            guard isPhoto else { return false }
            return recognizeStreaming(picture, isPhoto: true, engine: engine, orientationChecked: true)
        }
        let vetoedAtEnd =
            !summary.observations.isEmpty && ConfidenceVeto.rejects(summary.observations.map(\.confidence))
        let tooSmall = !started && (summary.tooSmall || textTooSmall(picture, engine: engine))
        post { [self] in
            if vetoedAtEnd && isPhoto { status(phrases.text("uncertain")) }
            if started { navigator?.finishStreaming() } else { noText(tooSmall: tooSmall) }
        }
        return true
    }

    /// True when layout analysis finds lines of text once the picture is enlarged three times, lines it could
    /// not tell from noise at their real size: print too small to read from this far. Only asked when nothing
    /// was read.
    func textTooSmall(_ picture: GrayPicture, engine: TesseractEngine) -> Bool {
        guard picture.width * picture.height <= 4_000_000,
            let enlarged = PageGeometry.scaled(
                gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride, factor: 3)
        else { return false }
        let lines = enlarged.withPicture { enlarged in
            engine.layoutLines(
                gray: enlarged.pixels, width: enlarged.width, height: enlarged.height, stride: enlarged.stride)
        }
        return (lines?.count ?? 0) >= 3
    }

    // MARK: Main loop

    func stopCaptureForReading() {
        guard options.image == nil, options.file == nil else { return }
        stopCapture()
    }

    func restartCapture() {
        guard !stopped, !leavingCamera else { return }
        host.log(.info, "the result was vetoed; waiting for another picture")
        try? startCapture()
    }

    func deliver(_ items: [ReadingItem], columns: Int, complete: Bool, tooSmall: Bool = false) {
        guard !stopped, !leavingCamera, let navigator else { return }
        guard !items.isEmpty else {
            noText(tooSmall: tooSmall)
            return
        }
        if options.transcript { host.print(items.map { $0.printed ?? $0.text }.joined(separator: "\n")) }
        navigator.columns = columns
        navigator.load(items, complete: complete)
        navigator.start()
    }

    /// Hands recognised items to the navigator: a picture's in order, a document's `page` (from 1) where it stands
    /// among the pages read (they may come out of order, `DocumentPageOrder`).
    func appendStreamed(_ items: [ReadingItem], first: Bool, page: Int? = nil) {
        guard !stopped, !leavingCamera, let navigator else { return }
        if options.transcript, !items.isEmpty {
            // A document's pages are parted by a form feed, as a printer's text is.
            if let page = items.first?.page, page > 0, transcriptPage > 0, page != transcriptPage {
                host.print("\u{0C}")
            }
            if let page = items.last?.page { transcriptPage = page }
            host.print(items.map { $0.printed ?? $0.text }.joined(separator: "\n"))
        }
        if first { navigator.load([], complete: false) }
        if let page { navigator.add(items, page: page) } else { navigator.append(items) }
    }
}

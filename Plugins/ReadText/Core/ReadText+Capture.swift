import Foundation
import OCR
import PluginAPI
import PluginKit

/// Frame-thread state: whether frames are wanted, the stability detector, and whether a candidate is with
/// the worker.
final class CaptureState: @unchecked Sendable {  // because: every member is used under `lock`
    struct Values {
        var capturing = false
        var busy = false
        var stability = StabilityDetector()
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
}

/// Gray pixels the worker recognises: a copied camera frame or a decoded photo.
struct GrayPicture {
    var pixels: UnsafeRawPointer
    var width: Int
    var height: Int
    var stride: Int
}

extension ReadText {
    // MARK: Camera (main loop)

    func startCapture() throws(PluginError) {
        try host.subscribeCamera(fourcc: ASSIST_FOURCC_GRAY8, maxWidth: 1920, maxFramesPerSecond: 16)
        let now = DispatchTime.now().uptimeNanoseconds
        capture.withLock { state in
            state.capturing = true
            state.busy = false
            state.stability = StabilityDetector()
            state.stability.rearm(at: now)
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
        let now = DispatchTime.now().uptimeNanoseconds
        capture.withLock { state in
            state.busy = false
            state.stability.rearm(at: now)
        }
    }

    // MARK: Frames (camera delivery thread)

    public func handle(frame: UnsafePointer<assist_frame>) {
        let header = frame.pointee
        guard header.fourcc == ASSIST_FOURCC_GRAY8, let plane = header.plane.0 else { return }
        let thumbnail = StabilityDetector.thumbnail(
            luma: plane, width: Int(header.width), height: Int(header.height), stride: Int(header.stride.0))
        let stable = capture.withLock { state -> Bool in
            guard state.capturing, !state.busy else { return false }
            guard state.stability.add(thumbnail: thumbnail, at: header.timestamp_ns) else { return false }
            state.busy = true
            return true
        }
        guard stable else { return }
        // A copy, not a retained frame: candidates wait for seconds and recognition takes a while, longer than
        // a camera frame should be held (plugin-abi.md §5). Copying 2 MB takes well under a millisecond.
        let width = Int(header.width)
        let height = Int(header.height)
        let stride = Int(header.stride.0)
        var pixels = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeMutableBytes { target in
            guard let base = target.baseAddress else { return }
            for row in 0..<height { (base + row * width).copyMemory(from: plane + row * stride, byteCount: width) }
        }
        play(.stable)
        let candidate = GrayImage(pixels: pixels, width: width, height: height)
        worker.run { [self] in select(candidate) }
    }

    // MARK: Worker thread

    /// Scores a candidate and either recognises the best one or asks for another steady picture.
    func select(_ candidate: GrayImage) {
        let grid = candidate.pixels.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map {
                SharpnessGrid.compute(
                    luma: $0, width: candidate.width, height: candidate.height, stride: candidate.width)
            }
        }
        switch selector.offer(candidate, sharpCount: grid?.sharpCount ?? 0) {
        case .wait:
            host.onMain { [self] in rearm() }
        case .recognize(let best, _):
            host.log(ASSIST_LOG_INFO, "recognising a \(best.width)x\(best.height) frame")
            host.onMain { [self] in stopCaptureForReading() }
            let accepted = best.pixels.withUnsafeBytes { bytes in
                bytes.baseAddress.map {
                    recognize(
                        GrayPicture(pixels: $0, width: best.width, height: best.height, stride: best.width),
                        isPhoto: false)
                } ?? true
            }
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
                let message = (error as? OCRError)?.message ?? "The picture cannot be read."
                host.onMain { [self] in fail(message) }
                return
            }
            photo.pixels.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                let grid = SharpnessGrid.compute(
                    luma: base.assumingMemoryBound(to: UInt8.self), width: photo.width, height: photo.height,
                    stride: photo.width)
                if grid.looksBlurry {
                    host.onMain { [self] in host.speak(phrases.text("blurry")) }
                }
                _ = recognize(
                    GrayPicture(pixels: base, width: photo.width, height: photo.height, stride: photo.width),
                    isPhoto: true)
            }
        }
    }

    /// Recognises `picture` and hands the items to the navigator; false when the veto asks for another
    /// picture (camera only: a photo is read with a warning instead).
    func recognize(_ picture: GrayPicture, isPhoto: Bool) -> Bool {
        guard let engine else { return true }
        if !options.streaming {
            let observations = engine.recognize(
                gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride)
            let result = pipeline.process(observations)
            if result.vetoed && !isPhoto && !observations.isEmpty { return false }
            host.onMain { [self] in
                if result.vetoed && isPhoto && !observations.isEmpty { host.speak(phrases.text("uncertain")) }
                deliver(result.items, columns: result.columns, complete: true)
            }
            return true
        }
        return recognizeStreaming(picture, isPhoto: isPhoto, engine: engine)
    }

    /// Streaming (read-text.md §11): see `StreamingRecognizer`.
    func recognizeStreaming(_ picture: GrayPicture, isPhoto: Bool, engine: TesseractEngine) -> Bool {
        var started = false
        let summary = StreamingRecognizer(pipeline: pipeline).run(
            engine: engine, gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride,
            vetoFirstBlock: !isPhoto, shouldStop: { stopped }
        ) { items, columns in
            let first = !started
            started = true
            host.onMain { [self] in
                if first { navigator?.columns = columns }
                appendStreamed(items, first: first)
            }
        }
        if summary.vetoed { return false }
        let vetoedAtEnd =
            !summary.observations.isEmpty && ConfidenceVeto.rejects(summary.observations.map(\.confidence))
        host.onMain { [self] in
            if vetoedAtEnd && isPhoto { host.speak(phrases.text("uncertain")) }
            if started { navigator?.finishStreaming() } else { noText() }
        }
        return true
    }

    // MARK: Main loop

    func stopCaptureForReading() {
        guard options.image == nil else { return }
        stopCapture()
    }

    func restartCapture() {
        guard !stopped else { return }
        host.log(ASSIST_LOG_INFO, "the result was vetoed; waiting for another picture")
        try? startCapture()
    }

    func deliver(_ items: [ReadingItem], columns: Int, complete: Bool) {
        guard !stopped, let navigator else { return }
        guard !items.isEmpty else {
            noText()
            return
        }
        if options.transcript { host.print(items.map(\.text).joined(separator: "\n")) }
        navigator.columns = columns
        navigator.load(items, complete: complete)
        navigator.start()
    }

    func appendStreamed(_ items: [ReadingItem], first: Bool) {
        guard !stopped, let navigator else { return }
        if options.transcript { host.print(items.map(\.text).joined(separator: "\n")) }
        if first { navigator.load([], complete: false) }
        navigator.append(items)
    }
}

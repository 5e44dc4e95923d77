import Foundation

/// A source of recorded sound: the microphone, or a WAV file standing in for it (`--mic wav:PATH`).
package protocol AudioInput: AnyObject {
    /// What `read` returns.
    var format: AudioFormat { get }
    /// Names the source for messages.
    var name: String { get }
    /// Up to `frames` interleaved frames; blocks until they arrive. Empty at the end of a file. One thread.
    func read(frames: Int) throws -> [Int16]
    /// When the last frame `read` returned was recorded (monotonic seconds, `ProcessInfo.systemUptime`), for
    /// a source that runs in time (a microphone, a paced file); nil for a file read as fast as it goes. The
    /// echo canceller lines the microphone up with what the speakers played by it.
    var lastReadEndsAt: Double? { get }
}

/// Where `--mic` points: the ALSA device or a WAV file.
package enum AudioInputSpec: Equatable, Sendable {
    case alsa(String)
    case wav(URL)
    /// A WAV file delivered at its own pace, as a microphone would (`live:PATH`): reads block until the sound
    /// has "happened", so a take can be stopped or killed halfway and a benchmark sees real timing.
    case live(URL)

    /// Reads `alsa`, `alsa:DEVICE`, `wav:PATH` or `live:PATH`; nil for anything else.
    package init?(_ option: String) {
        if option == "alsa" || option == "default" {
            self = .alsa("default")
        } else if option.hasPrefix("alsa:"), option.count > 5 {
            self = .alsa(String(option.dropFirst(5)))
        } else if option.hasPrefix("wav:"), option.count > 4 {
            self = .wav(URL(fileURLWithPath: String(option.dropFirst(4))))
        } else if option.hasPrefix("live:"), option.count > 5 {
            self = .live(URL(fileURLWithPath: String(option.dropFirst(5))))
        } else {
            return nil
        }
    }

    /// Opens the source delivering `format` (16 kHz mono for recognition; 16 or 44.1 kHz for recordings).
    package func open(format: AudioFormat) throws -> AudioInput {
        switch self {
        case .alsa(let device): return try AlsaInput(deviceName: device, format: format)
        case .wav(let url): return try WavFileInput(url: url, format: format)
        case .live(let url): return try WavFileInput(url: url, format: format, paced: true)
        }
    }
}

/// A WAV file played into the host as if it were a microphone, converted to the wanted format a block at a time:
/// what it holds in memory does not grow with the file (two hours of one held 790 MB when it was read whole).
package final class WavFileInput: AudioInput {
    package let format: AudioFormat
    package let name: String
    package let url: URL
    private let file: FileHandle
    private let layout: WavLayout
    /// The source's rate to `format`'s; nil when they are the same.
    private let resampling: AudioConverter.Resampling?
    /// Frames of `format` the file makes, and those read so far.
    package let frameCount: Int
    private var position = 0
    private let paced: Bool
    /// When the first read asked, for pacing.
    private var started: Double?

    /// Opens `url` (its header read, its sound not yet) to deliver it in `format`; `paced` delivers it no faster
    /// than it plays.
    package init(url: URL, format: AudioFormat, paced: Bool = false) throws {
        let (file, size) = try WavFile.open(url)
        self.file = file
        layout = try WavLayout.read(path: url.path, size: size) { offset, count in
            try file.seek(toOffset: UInt64(offset))
            return [UInt8](try file.read(upToCount: count) ?? Data())
        }
        let sourceRate = layout.format.sampleRateHz
        resampling =
            sourceRate == format.sampleRateHz
            ? nil
            : AudioConverter.Resampling(fromHz: sourceRate, toHz: format.sampleRateHz)
        frameCount = resampling?.outputCount(layout.frameCount) ?? layout.frameCount
        self.format = format
        self.name = "the file \(url.path)"
        self.url = url
        self.paced = paced
    }

    deinit { try? file.close() }

    package func read(frames: Int) throws -> [Int16] {
        let wanted = position..<min(frameCount, position + frames)
        defer { position = wanted.upperBound }
        if paced {
            let now = ProcessInfo.processInfo.systemUptime
            let start = started ?? now
            started = start
            let due = start + Double(wanted.upperBound) / Double(format.sampleRateHz)
            if due > now { Thread.sleep(forTimeInterval: due - now) }
        }
        guard !wanted.isEmpty else { return [] }
        guard let resampling else {
            return AudioConverter.remix(try sourceFrames(wanted), from: layout.format.channels, to: format.channels)
        }
        let reached = resampling.inputs(for: wanted, frames: layout.frameCount)
        let mono = AudioConverter.remix(try sourceFrames(reached), from: layout.format.channels, to: format.channels)
        let channels = format.channels
        let count = mono.count / channels
        var out = [Int16](repeating: 0, count: wanted.count * channels)
        for channel in 0..<channels {
            let plane = (0..<count).map { Float(mono[$0 * channels + channel]) }
            let converted = resampling.outputs(
                wanted, from: plane[...], firstFrame: reached.lowerBound, frames: layout.frameCount)
            for (frame, value) in converted.enumerated() {
                out[frame * channels + channel] = Int16(max(-32_768, min(32_767, value.rounded())))
            }
        }
        return out
    }

    /// The source's frames `range`, interleaved 16-bit.
    private func sourceFrames(_ range: Range<Int>) throws -> [Int16] {
        try file.seek(toOffset: UInt64(layout.dataOffset + range.lowerBound * layout.bytesPerFrame))
        let bytes = [UInt8](try file.read(upToCount: range.count * layout.bytesPerFrame) ?? Data())
        return layout.decode(bytes[...])
    }

    /// A paced file's frames are "recorded" on their schedule from the first read, however late they are read.
    package var lastReadEndsAt: Double? {
        guard paced, let started else { return nil }
        return started + Double(position) / Double(format.sampleRateHz)
    }
}

/// The microphone through ALSA; ALSA's plug layer converts the card's rate and channels to `format`.
package final class AlsaInput: AudioInput {
    private let device: AlsaDevice

    /// Opens the ALSA capture device `deviceName` with about 100 ms of buffer.
    package init(deviceName: String, format: AudioFormat) throws {
        device = try AlsaDevice(name: deviceName, capture: true, format: format, latencySeconds: 0.1)
    }

    package var format: AudioFormat { device.format }
    package var name: String { "the microphone \(device.name)" }
    package func read(frames: Int) throws -> [Int16] { try device.read(frames: frames) }
    /// What the card has recorded and not yet given is later than the last frame read.
    package var lastReadEndsAt: Double? {
        ProcessInfo.processInfo.systemUptime - Double(device.delayFrames() ?? 0) / Double(device.format.sampleRateHz)
    }
}

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

/// A WAV file played into the host as if it were a microphone, converted to the wanted format.
package final class WavFileInput: AudioInput {
    package let format: AudioFormat
    package let name: String
    private let samples: [Int16]
    private var position = 0
    private let paced: Bool
    /// When the first read asked, for pacing.
    private var started: Double?

    /// Reads `url` whole and converts it to `format`; `paced` delivers it no faster than it plays.
    package init(url: URL, format: AudioFormat, paced: Bool = false) throws {
        let file = try WavFile.read(url)
        self.samples = AudioConverter.convert(file.samples, from: file.format, to: format)
        self.format = format
        self.name = "the file \(url.path)"
        self.paced = paced
    }

    package func read(frames: Int) throws -> [Int16] {
        let end = min(samples.count, position + frames * format.channels)
        defer { position = end }
        if paced {
            let now = ProcessInfo.processInfo.systemUptime
            let start = started ?? now
            started = start
            let due = start + Double(end / format.channels) / Double(format.sampleRateHz)
            if due > now { Thread.sleep(forTimeInterval: due - now) }
        }
        return Array(samples[position..<end])
    }

    /// A paced file's frames are "recorded" on their schedule from the first read, however late they are read.
    package var lastReadEndsAt: Double? {
        guard paced, let started else { return nil }
        return started + Double(position / format.channels) / Double(format.sampleRateHz)
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

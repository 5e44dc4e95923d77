/// The shape of 16-bit interleaved PCM: how many frames a second and how many channels per frame.
package struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    package var sampleRateHz: Int
    package var channels: Int

    package init(sampleRateHz: Int, channels: Int) {
        self.sampleRateHz = sampleRateHz
        self.channels = channels
    }

    /// The host's playback format: espeak-ng's native rate, so speech needs no resampling, in stereo for pan.
    package static let playback = AudioFormat(sampleRateHz: 22_050, channels: 2)
    /// What speech recognition reads: 16 kHz mono.
    package static let recognition = AudioFormat(sampleRateHz: 16_000, channels: 1)

    /// Bytes in one frame of 16-bit samples.
    package var bytesPerFrame: Int { channels * 2 }

    /// Frames in `seconds` of sound, rounded to the nearest frame.
    package func frames(seconds: Double) -> Int { Int((seconds * Double(sampleRateHz)).rounded()) }

    package var description: String { "\(sampleRateHz) Hz, \(channels == 1 ? "mono" : "\(channels) channels")" }
}

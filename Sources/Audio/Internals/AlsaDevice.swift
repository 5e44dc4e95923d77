internal import CALSA
import Foundation

/// One open ALSA PCM (`snd_pcm_t`), for playback or capture of 16-bit interleaved frames. Owns the handle
/// and closes it in `deinit`. Used by one thread at a time.
final class AlsaDevice {
    private let pcm: OpaquePointer
    let name: String
    let format: AudioFormat

    /// Opens `name` ("default", "hw:1", "plughw:0,0", "file:FILE=x.raw,FORMAT=raw") with ALSA's own rate and
    /// channel conversion allowed, and about `latencySeconds` of buffer. Wraps `snd_pcm_open` and
    /// `snd_pcm_set_params`.
    init(name: String, capture: Bool, format: AudioFormat, latencySeconds: Double) throws {
        assist_alsa_quiet_errors()
        var handle: OpaquePointer?
        let stream = capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        var status = snd_pcm_open(&handle, name, stream, 0)
        guard status >= 0, let handle else {
            throw AudioError.noDevice(name, capture: capture, cause: Self.describe(status))
        }
        status = snd_pcm_set_params(
            handle, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, UInt32(format.channels),
            UInt32(format.sampleRateHz), 1, UInt32(latencySeconds * 1e6))
        guard status >= 0 else {
            snd_pcm_close(handle)
            throw AudioError.noDevice(name, capture: capture, cause: Self.describe(status))
        }
        pcm = handle
        self.name = name
        self.format = format
    }

    deinit {
        snd_pcm_close(pcm)
    }

    /// Plays all of `samples`, recovering from underruns and suspends. Wraps `snd_pcm_writei` and
    /// `snd_pcm_recover`; throws `deviceLost` when the device is gone.
    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard let base = samples.baseAddress else { return }
        var done = 0
        let total = samples.count / format.channels
        while done < total {
            let written = snd_pcm_writei(pcm, base + done * format.channels, snd_pcm_uframes_t(total - done))
            if written >= 0 {
                done += Int(written)
                continue
            }
            let recovered = snd_pcm_recover(pcm, Int32(written), 1)
            if recovered < 0 { throw AudioError.deviceLost(name, cause: Self.describe(recovered)) }
        }
    }

    /// Reads up to `frames` frames, blocking until some arrive; fewer only at an error. Wraps `snd_pcm_readi`.
    func read(frames: Int) throws -> [Int16] {
        var buffer = [Int16](repeating: 0, count: frames * format.channels)
        var done = 0
        while done < frames {
            let got = buffer.withUnsafeMutableBufferPointer { pointer -> Int in
                guard let base = pointer.baseAddress else { return 0 }
                return snd_pcm_readi(pcm, base + done * format.channels, snd_pcm_uframes_t(frames - done))
            }
            if got > 0 {
                done += got
            } else if got == 0 || snd_pcm_recover(pcm, Int32(got), 1) < 0 {
                if done > 0 { break }
                throw AudioError.deviceLost(name, cause: Self.describe(Int32(got)))
            }
        }
        return Array(buffer.prefix(done * format.channels))
    }

    /// Frames written and not yet heard (`snd_pcm_delay`); nil when the device cannot say.
    func delayFrames() -> Int? {
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &frames) == 0 ? max(0, Int(frames)) : nil
    }

    /// Lets queued frames play out, then readies the device for the next write. Wraps `snd_pcm_drain` and
    /// `snd_pcm_prepare`.
    func drain() {
        snd_pcm_drain(pcm)
        snd_pcm_prepare(pcm)
    }

    private static func describe(_ status: Int32) -> String {
        snd_strerror(status).map { String(cString: $0) } ?? "error \(status)"
    }

    private static func describe(_ status: Int) -> String { describe(Int32(clamping: status)) }
}

/// The sound card as a mixer sink. Nothing else in the host calls ALSA for playback.
// because: used only on the mixer thread
package final class AlsaSink: AudioSink, @unchecked Sendable {
    private let device: AlsaDevice

    /// Opens the ALSA device `deviceName` for `AudioFormat.playback` with a 40 ms buffer (low latency for cues).
    package init(deviceName: String = "default") throws {
        device = try AlsaDevice(name: deviceName, capture: false, format: .playback, latencySeconds: 0.04)
    }

    package var name: String { "the sound device \(device.name)" }
    package func write(_ samples: UnsafeBufferPointer<Int16>) throws { try device.write(samples) }
    package func idle() { device.drain() }
    package var latencySeconds: Double {
        Double(device.delayFrames() ?? 0) / Double(AudioFormat.playback.sampleRateHz)
    }
}

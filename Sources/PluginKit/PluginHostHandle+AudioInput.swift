import PluginAPI

/// An open recording stream from the microphone (or the file given with `--mic wav:PATH`): 16-bit
/// interleaved PCM. Read it on a worker thread; close it on [main] when no read is in progress.
///
///     let stream = try host.openAudioInput(rateHz: 44_100)
///     worker.run {
///         var samples = [Int16](repeating: 0, count: 4_410)
///         while let frames = try? stream.read(into: &samples), frames > 0 { take(samples.prefix(frames)) }
///         host.onMain { stream.close() }
///     }
public final class AudioInputStream: @unchecked Sendable {  // because: the ABI allows reads from one worker
    private let host: PluginHostHandle
    private var stream: OpaquePointer?
    public let rateHz: Int
    public let channels: Int

    init(host: PluginHostHandle, stream: OpaquePointer, rateHz: Int, channels: Int) {
        self.host = host
        self.stream = stream
        self.rateHz = rateHz
        self.channels = channels
    }

    /// Reads up to `samples.count / channels` frames into `samples`, blocking until they arrive; returns the
    /// frames read, 0 at the end of a file. Never on [main]. Wraps `assist_audio_in_service.read`. [worker]
    public func read(into samples: inout [Int16]) throws(PluginStatus) -> Int {
        guard let stream, let read = host.tables.audioIn?.pointee.read else { throw PluginStatus.invalid }
        var got: UInt32 = 0
        let frames = UInt32(samples.count / channels)
        let status = samples.withUnsafeMutableBufferPointer { buffer in
            read(host.raw, stream, buffer.baseAddress, frames, &got)
        }
        try PluginStatus.check(status)
        return Int(got)
    }

    /// Closes the stream; reading after this throws `.invalid`. Wraps `assist_audio_in_service.close`. [main]
    public func close() {
        guard let stream else { return }
        host.tables.audioIn?.pointee.close?(host.raw, stream)
        self.stream = nil
    }
}

extension PluginHostHandle {
    /// Opens the microphone at `rateHz` (16000 for recognition, 16000 or 44100 for recordings) with 1 or 2
    /// `channels`. Throws `.busy` when this plugin already has a stream, `.io` with the reason when there is no
    /// microphone. Wraps `assist_audio_in_service.open`. [main]
    public func openAudioInput(rateHz: Int, channels: Int = 1) throws(PluginStatus) -> AudioInputStream {
        guard let open = tables.audioIn?.pointee.open else { throw PluginStatus.unsupported }
        var stream: OpaquePointer?
        var error: UnsafeMutablePointer<CChar>?
        try PluginStatus.check(open(raw, UInt32(rateHz), UInt32(channels), &stream, &error), error)
        guard let stream else { throw PluginStatus.internal }
        return AudioInputStream(host: self, stream: stream, rateHz: rateHz, channels: channels)
    }
}

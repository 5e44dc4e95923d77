import Foundation

/// Writes 16-bit PCM to a WAV file. The header's sizes are brought up to date at least every quarter second
/// of sound and on `flush`, so the file stays playable even if the process is killed.
// because: used by one thread at a time (the mixer thread, or the recording command)
package final class WavWriter: @unchecked Sendable {
    private let handle: FileHandle
    private var dataBytes = 0
    private var bytesSinceHeader = 0
    /// The file written.
    package let url: URL
    /// The sample rate and channel count in the header.
    package let format: AudioFormat

    /// Creates (or truncates) `url`, making its folder if needed.
    package init(url: URL, format: AudioFormat) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            // A recording of a voice, or of everything read aloud: the owner's alone.
            guard
                FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            else {
                throw CocoaError(.fileWriteNoPermission)
            }
            handle = try FileHandle(forWritingTo: url)
        } catch {
            throw AudioError.io(url.path, cause: "the folder is missing or not writable")
        }
        self.url = url
        self.format = format
        try writeHeader()
    }

    deinit {
        try? flush()
        try? handle.close()
    }

    /// Appends interleaved samples (a whole number of frames).
    package func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        guard !samples.isEmpty else { return }
        do {
            try handle.seekToEnd()
            try handle.write(contentsOf: UnsafeRawBufferPointer(samples))
        } catch {
            throw AudioError.io(url.path, cause: "the disk may be full")
        }
        dataBytes += samples.count * 2
        bytesSinceHeader += samples.count * 2
        if bytesSinceHeader >= format.sampleRateHz * format.bytesPerFrame / 4 { try writeHeader() }
    }

    /// Appends interleaved samples.
    package func write(_ samples: [Int16]) throws {
        try samples.withUnsafeBufferPointer { try write($0) }
    }

    /// Brings the header's sizes up to date.
    package func flush() throws {
        if bytesSinceHeader > 0 { try writeHeader() }
    }

    private func writeHeader() throws {
        bytesSinceHeader = 0
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + dataBytes))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))  // PCM
        append(UInt16(format.channels))
        append(UInt32(format.sampleRateHz))
        append(UInt32(format.sampleRateHz * format.bytesPerFrame))
        append(UInt16(format.bytesPerFrame))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(dataBytes))
        do {
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: data)
        } catch {
            throw AudioError.io(url.path, cause: "the disk may be full")
        }
    }
}

import Foundation

/// Writes 16-bit mono PCM to a WAV file, keeping the header's sizes right after every write so the file is
/// valid even if the process is killed.
package final class WavFileSink: @unchecked Sendable {  // because: used only on the speech thread
    private let handle: FileHandle
    private let sampleRateHz: Int
    private var dataBytes = 0
    /// The file written.
    package let url: URL

    /// Creates (or truncates) `url` with a WAV header for `sampleRateHz`.
    package init(url: URL, sampleRateHz: Int) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: url.path, contents: nil)
        handle = try FileHandle(forWritingTo: url)
        self.url = url
        self.sampleRateHz = sampleRateHz
        try handle.write(contentsOf: header())
    }

    deinit {
        try? handle.close()
    }

    /// Appends samples and rewrites the header sizes.
    package func write(_ samples: [Int16]) throws {
        guard !samples.isEmpty else { return }
        let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
        dataBytes += data.count
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: header())
    }

    private func header() -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + dataBytes))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))  // PCM
        append(UInt16(1))  // mono
        append(UInt32(sampleRateHz))
        append(UInt32(sampleRateHz * 2))
        append(UInt16(2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(dataBytes))
        return data
    }
}

import Foundation

/// A whole WAV file read into memory as 16-bit interleaved samples.
package struct WavFile: Sendable {
    package var format: AudioFormat
    package var samples: [Int16]

    package init(format: AudioFormat, samples: [Int16]) {
        self.format = format
        self.samples = samples
    }

    /// Frames in the file.
    package var frameCount: Int { samples.count / max(1, format.channels) }
    /// Length in seconds.
    package var durationSeconds: Double { Double(frameCount) / Double(format.sampleRateHz) }

    /// Reads PCM (8, 16, 24 or 32-bit integer) or 32-bit float WAV, including WAVE_FORMAT_EXTENSIBLE.
    package static func read(_ url: URL) throws -> WavFile {
        guard let data = try? Data(contentsOf: url, options: .mappedIfSafe) else {
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
            throw AudioError.badFile(
                url.path,
                reason: !exists
                    ? "it does not exist" : isFolder.boolValue ? "it is a folder, not a WAV file" : "it cannot be read")
        }
        return try parse(data, path: url.path)
    }

    /// Opens `url` for reading: the handle and the file's size, or why it cannot be read.
    package static func open(_ url: URL) throws -> (FileHandle, Int) {
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
        guard exists, !isFolder.boolValue, let handle = try? FileHandle(forReadingFrom: url),
            let end = try? handle.seekToEnd()
        else {
            throw AudioError.badFile(
                url.path,
                reason: !exists
                    ? "it does not exist" : isFolder.boolValue ? "it is a folder, not a WAV file" : "it cannot be read")
        }
        return (handle, Int(end))
    }

    /// Parses WAV bytes; `path` names the file in messages.
    package static func parse(_ data: Data, path: String) throws -> WavFile {
        let layout = try WavLayout.read(path: path, size: data.count) { offset, count in
            [UInt8](data[data.startIndex + offset..<data.startIndex + min(data.count, offset + count)])
        }
        let body = [UInt8](
            data[data.startIndex + layout.dataOffset..<data.startIndex + layout.dataOffset + layout.dataBytes])
        return WavFile(format: layout.format, samples: layout.decode(body[...]))
    }
}

/// Where a WAV file's sound lies and how it is coded, read from its chunks' headers alone: a file of any length
/// is read a block at a time (`WavFileInput`).
package struct WavLayout: Sendable {
    package var format: AudioFormat
    /// 1: PCM, 3: float.
    var tag: Int
    var bytesPerSample: Int
    /// Where the sound starts in the file, and its length in bytes (whole frames, as far as the file goes).
    package var dataOffset: Int
    package var dataBytes: Int
    package var bytesPerFrame: Int { bytesPerSample * format.channels }
    package var frameCount: Int { dataBytes / bytesPerFrame }

    /// Reads the chunk headers of a file of `size` bytes through `bytes` (offset, count: up to that many bytes);
    /// `path` names the file in messages.
    package static func read(path: String, size: Int, bytes: (Int, Int) throws -> [UInt8]) throws -> WavLayout {
        let riff = try bytes(0, 12)
        guard riff.count == 12, riff[0..<4] == Array("RIFF".utf8)[...], riff[8..<12] == Array("WAVE".utf8)[...] else {
            throw AudioError.badFile(path, reason: "it is not a WAV file")
        }
        func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
        func u32(_ b: [UInt8], _ at: Int) -> Int { u16(b, at) | u16(b, at + 2) << 16 }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= size {
            let header = try bytes(offset, 8)
            guard header.count == 8 else { break }
            let id = String(decoding: header[0..<4], as: UTF8.self)
            let chunkSize = u32(header, 4)
            let body = offset + 8
            if id == "fmt ", chunkSize >= 16, body + 16 <= size {
                let fields = try bytes(body, min(chunkSize, 26))
                guard fields.count >= 16 else { break }
                var tag = u16(fields, 0)
                if tag == 0xFFFE, fields.count >= 26 { tag = u16(fields, 24) }
                format = (tag, u16(fields, 2), u32(fields, 4), u16(fields, 14))
            } else if id == "data" {
                guard let format else { throw AudioError.badFile(path, reason: "the data comes before the format") }
                guard (1...8).contains(format.channels), (1_000...384_000).contains(format.rate) else {
                    throw AudioError.badFile(path, reason: "its format header is damaged")
                }
                let bytesPerSample = format.bits / 8
                guard format.tag == 1 && [1, 2, 3, 4].contains(bytesPerSample) || format.tag == 3 && format.bits == 32
                else { throw AudioError.badFile(path, reason: "only PCM and 32-bit float WAV files are supported") }
                let available = max(0, min(size, body + chunkSize) - body)
                let frameBytes = bytesPerSample * format.channels
                return WavLayout(
                    format: AudioFormat(sampleRateHz: format.rate, channels: format.channels), tag: format.tag,
                    bytesPerSample: bytesPerSample, dataOffset: body, dataBytes: available / frameBytes * frameBytes)
            }
            offset = body + chunkSize + (chunkSize & 1)
        }
        throw AudioError.badFile(path, reason: "it has no sound data")
    }

    /// The interleaved 16-bit samples of `body`, whole frames of sound as this layout codes them.
    package func decode(_ body: ArraySlice<UInt8>) -> [Int16] {
        let count = body.count / bytesPerSample / format.channels * format.channels
        let format = (tag: tag, channels: format.channels)
        var samples = [Int16](repeating: 0, count: count)
        body.withUnsafeBytes { raw in
            for index in 0..<count {
                let at = index * bytesPerSample
                switch (format.tag, bytesPerSample) {
                case (3, _):
                    let value = Float(bitPattern: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian)
                    samples[index] = Int16(max(-1, min(1, value.isFinite ? value : 0)) * 32_767)
                case (_, 1): samples[index] = (Int16(raw[at]) - 128) << 8
                case (_, 2): samples[index] = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self))
                case (_, 3): samples[index] = Int16(bitPattern: UInt16(raw[at + 1]) | UInt16(raw[at + 2]) << 8)
                default:
                    samples[index] = Int16(
                        truncatingIfNeeded: Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self))
                            >> 16)
                }
            }
        }
        return samples
    }
}

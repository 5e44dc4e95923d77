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

    /// Parses WAV bytes; `path` names the file in messages.
    package static func parse(_ data: Data, path: String) throws -> WavFile {
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard bytes.count >= 12, bytes[0..<4] == Array("RIFF".utf8)[...], bytes[8..<12] == Array("WAVE".utf8)[...]
        else { throw AudioError.badFile(path, reason: "it is not a WAV file") }
        var offset = 12
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt ", size >= 16, body + 16 <= bytes.count {
                var tag = u16(body)
                if tag == 0xFFFE, size >= 26, body + 26 <= bytes.count { tag = u16(body + 24) }
                format = (tag, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let format else { throw AudioError.badFile(path, reason: "the data comes before the format") }
                let end = min(bytes.count, body + size)
                return try decode(bytes[body..<end], format: format, path: path)
            }
            offset = body + size + (size & 1)
        }
        throw AudioError.badFile(path, reason: "it has no sound data")
    }

    private static func decode(
        _ body: ArraySlice<UInt8>, format: (tag: Int, channels: Int, rate: Int, bits: Int), path: String
    ) throws -> WavFile {
        guard (1...8).contains(format.channels), (1_000...384_000).contains(format.rate) else {
            throw AudioError.badFile(path, reason: "its format header is damaged")
        }
        let bytesPerSample = format.bits / 8
        guard format.tag == 1 && [1, 2, 3, 4].contains(bytesPerSample) || format.tag == 3 && format.bits == 32 else {
            throw AudioError.badFile(path, reason: "only PCM and 32-bit float WAV files are supported")
        }
        let count = body.count / bytesPerSample / format.channels * format.channels
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
        return WavFile(format: AudioFormat(sampleRateHz: format.rate, channels: format.channels), samples: samples)
    }
}

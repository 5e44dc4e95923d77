import Foundation

/// A WAV file written while recording: 16-bit PCM, header first with placeholder sizes, samples appended,
/// sizes filled in when closed. A crash mid-take leaves a file whose header says 0 bytes; it is never accepted.
public final class TakeWriter {
    private let handle: FileHandle
    public let rateHz: Int
    public let channels: Int
    public private(set) var frames = 0
    /// The level of what was written so far.
    public private(set) var level = TakeLevel()

    public init(path: String, rateHz: Int, channels: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw CocoaError(.fileWriteUnknown) }
        self.handle = handle
        self.rateHz = rateHz
        self.channels = channels
        try handle.write(contentsOf: Self.header(rateHz: rateHz, channels: channels, dataBytes: 0))
    }

    public var seconds: Double { Double(frames) / Double(rateHz) }

    public func append(_ samples: ArraySlice<Int16>) throws {
        level.add(samples)
        frames += samples.count / channels
        let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        try handle.write(contentsOf: data)
    }

    /// Writes the real sizes and closes the file.
    public func finish() throws {
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: Self.header(rateHz: rateHz, channels: channels, dataBytes: frames * channels * 2))
        try handle.synchronize()
        try handle.close()
    }

    static func header(rateHz: Int, channels: Int, dataBytes: Int) -> Data {
        var data = Data()
        func u32(_ value: Int) {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) }
        }
        func u16(_ value: Int) {
            withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        u32(36 + dataBytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)
        u16(channels)
        u32(rateHz)
        u32(rateHz * channels * 2)
        u16(channels * 2)
        u16(16)
        data.append(contentsOf: Array("data".utf8))
        u32(dataBytes)
        return data
    }
}

/// Loudness figures of a take, gathered as it is written: enough to warn about silence and clipping before
/// the participant accepts it (spec §9).
public struct TakeLevel: Sendable, Equatable {
    public private(set) var count = 0
    public private(set) var peak: Int32 = 0
    public private(set) var sumOfSquares: Double = 0
    public private(set) var clipped = 0

    public init() {}

    public mutating func add(_ samples: ArraySlice<Int16>) {
        for sample in samples {
            let magnitude = abs(Int32(sample))
            peak = max(peak, magnitude)
            sumOfSquares += Double(magnitude) * Double(magnitude)
            if magnitude >= 32_700 { clipped += 1 }
        }
        count += samples.count
    }

    /// RMS level in dB below full scale (−∞ for digital silence).
    public var rmsDecibels: Double {
        guard count > 0, sumOfSquares > 0 else { return -.infinity }
        return 20 * log10((sumOfSquares / Double(count)).squareRoot() / 32_768)
    }

    /// Nothing a microphone in a quiet room would not also pick up: RMS under −55 dBFS and peak under −40 dBFS.
    public var isSilent: Bool { rmsDecibels < -55 && Double(peak) < 32_768 * 0.01 }

    /// More than 0.1 % of samples at full scale: the participant was too close or too loud.
    public var isClipped: Bool { count > 0 && Double(clipped) / Double(count) > 0.001 }
}

/// The participant's typed location (spec §3.14): "lat,lon" or "lat,lon,accuracy_m".
public enum LocationText {
    /// "52.2,0.12,65.0", or nil when the text is not two or three numbers in range.
    public static func parse(_ text: String, defaultAccuracy: Double) -> String? {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 || parts.count == 3 else { return nil }
        let numbers = parts.compactMap(Double.init)
        guard numbers.count == parts.count, numbers.allSatisfy(\.isFinite), abs(numbers[0]) <= 90,
            abs(numbers[1]) <= 180
        else { return nil }
        let accuracy = parts.count == 3 ? numbers[2] : defaultAccuracy
        guard accuracy >= 0 else { return nil }
        return "\(format(numbers[0])),\(format(numbers[1])),\(format(accuracy, minimumDecimals: 1))"
    }

    private static func format(_ value: Double, minimumDecimals: Int = 0) -> String {
        var text = String(value)
        if text.hasSuffix(".0"), minimumDecimals == 0 { text.removeLast(2) }
        return text
    }
}

/// When a new session may start (spec §3.19).
public enum Eligibility {
    public static func isEligible(lastCompleted: Double?, now: Double, after seconds: Double) -> Bool {
        guard let lastCompleted else { return true }
        if lastCompleted > now { return true }  // the clock went back
        return now - lastCompleted > seconds
    }

    /// A reminder is due when the participant is eligible and the last one is at least `spacing` old.
    public static func reminderDue(
        lastCompleted: Double?, lastReminded: Double?, now: Double, after seconds: Double, spacing: Double
    ) -> Bool {
        guard isEligible(lastCompleted: lastCompleted, now: now, after: seconds) else { return false }
        guard let lastReminded, lastReminded <= now else { return true }
        return now - lastReminded >= spacing
    }
}

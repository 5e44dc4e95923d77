import Audio
import Foundation

/// How a microphone sounds over the last seconds: one warning when it gives only silence (a level that does not
/// move, at zero or stuck away from it), clips, or sits far from zero (a DC offset, which the loudness of speech is
/// then measured on).
package struct SoundLevel {
    /// What is wrong with the microphone; `key` is its sentence in the host's phrases (`voice.mic-silent`).
    package enum Warning: String, Sendable {
        case silent, clipping, offset

        package var key: String { "voice.mic-\(rawValue)" }
        /// The sentence in English, for `assist listen`'s diagnostics.
        package var english: String {
            switch self {
            case .silent: "The microphone gives only silence: check that it is plugged in and not muted."
            case .clipping: "The microphone is too loud and distorts: turn its level down (alsamixer)."
            case .offset:
                "The microphone's sound is offset from zero, as a faulty microphone or input gives: try another microphone or input."
            }
        }
    }

    private var silentFrames = 0
    private var clippedTenths = 0
    /// The tenth of a second being measured for clipping: its samples so far, and those at full scale.
    private var tenthFrames = 0
    private var tenthClipped = 0
    private var saidSilence = false
    private var saidClipping = false
    private var saidOffset = false
    /// The second being measured for an offset: its samples' sum and count; and the seconds in a row whose mean
    /// was far from zero.
    private var secondSum = 0
    private var secondFrames = 0
    private var offsetSeconds = 0

    /// A second's mean further from zero than this (about 6 % of full scale) is an offset: a microphone's own
    /// is well under 1 %.
    static let offsetLimit = 2_000

    package init() {}

    /// Adds a chunk of 16 kHz mono; a warning the first time the microphone has been silent for 10 s (its
    /// samples within 8 steps of their mean, wherever that is), clipped in 10 tenths of a second (a second), or
    /// been offset from zero for 3 seconds.
    package mutating func add(_ chunk: [Int16]) -> Warning? {
        let sum = chunk.reduce(0) { $0 + Int($1) }
        let mean = chunk.isEmpty ? 0 : sum / chunk.count
        let peak = chunk.lazy.map { abs(Int($0) - mean) }.max() ?? 0
        if peak < 8 { silentFrames += chunk.count } else { silentFrames = 0 }
        secondSum += sum
        secondFrames += chunk.count
        if secondFrames >= VoiceListener.format.sampleRateHz {
            offsetSeconds = abs(secondSum / secondFrames) > Self.offsetLimit ? offsetSeconds + 1 : 0
            secondSum = 0
            secondFrames = 0
        }
        tenthClipped += chunk.lazy.filter { $0 == Int16.max || $0 == Int16.min }.count
        tenthFrames += chunk.count
        if tenthFrames >= VoiceListener.format.sampleRateHz / 10 {
            clippedTenths = tenthClipped * 200 > tenthFrames ? clippedTenths + 1 : max(0, clippedTenths - 1)
            tenthFrames = 0
            tenthClipped = 0
        }
        if silentFrames >= VoiceListener.format.sampleRateHz * 10, !saidSilence {
            saidSilence = true
            return .silent
        }
        if clippedTenths >= 10, !saidClipping {
            saidClipping = true
            return .clipping
        }
        if offsetSeconds >= 3, !saidOffset {
            saidOffset = true
            return .offset
        }
        return nil
    }
}

/// The sound voice listens to: 16 kHz mono, read in 20 ms chunks. A phrase is reported with the chunk in which
/// the recogniser finds it: in 100 ms chunks, 200 ms after the word's end (median, over Assist's reading),
/// in 20 ms chunks 130 ms, with as many commands heard; with the searches prompt over Assist's sound, a p95 of
/// 80-100 ms (docs/voice.md "Barge-in").
package enum VoiceListener {
    package static let format = AudioFormat(sampleRateHz: 16_000, channels: 1)
    package static let chunkFrames = 320

    /// A chunk of a quiet room (noise a few steps either side of zero), fed while the host speaks or at the
    /// end of a file: digital silence, which no microphone gives, upsets pocketsphinx's normalisation.
    package static let quietRoom: [Int16] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<chunkFrames).map { _ in Int16.random(in: -6...6, using: &generator) }
    }()

    /// Opens `spec` to listen to; a file standing in for the microphone must hold a word's worth of sound (one
    /// with a header only, or a sample, ended at once without a word).
    package static func open(_ spec: AudioInputSpec) throws -> AudioInput {
        let input = try spec.open(format: format)
        if let file = input as? WavFileInput, file.frameCount < format.sampleRateHz / 10 {
            throw AudioError.badFile(
                file.url.path,
                reason:
                    "it holds \(file.frameCount * 1_000 / format.sampleRateHz) ms of sound, too little to hear a word in; give a recording of a second or more"
            )
        }
        return input
    }

    /// `tenths` tenths of a second of a quiet room, fed at the end of a file.
    package static func quietRoom(tenths: Int) -> [Int16] {
        Array(repeating: quietRoom, count: tenths * format.sampleRateHz / 10 / chunkFrames).flatMap { $0 }
    }
}

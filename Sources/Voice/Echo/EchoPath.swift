import Foundation

/// What the echo canceller learnt of the room, kept from one session to the next (docs/voice.md, "The room
/// remembered"): the filter from the speakers to the microphone (speexdsp's impulse response, in its units), the
/// delay it was learnt at, and the sound devices it holds for. A new canceller is taught it before the first
/// word can be said, so that "stop" in a reading's first second is heard as well as at its twentieth. It holds
/// no sound: only how the room returns Assist's.
package struct EchoPath: Codable, Equatable, Sendable {
    /// This layout's number; a file of another is not used.
    package static let currentFormat = 1
    /// The devices of `assist listen --reference`: recordings, whose path is kept where `--echo-path` says.
    package static let recordingDevices = "recordings (assist listen --reference)"
    package var format = Self.currentFormat
    /// The canceller's frame and tail (samples at 16 kHz) when it was learnt: a filter fits only the same.
    package var frame: Int
    package var tailSamples: Int
    /// How far (10 ms blocks) the played sound was moved back for the canceller, and the delay found then.
    package var shiftBlocks: Int
    package var lagBlocks: Int?
    /// Which speakers and microphone it was learnt with: a path holds for those alone.
    package var devices: String
    /// How much of Assist's voice the canceller took out when this was kept, dB.
    package var enhancementDecibels: Double
    package var taps: [Int32]

    /// A path read from `data`, or why this canceller cannot use it with `devices`.
    package static func decode(_ data: Data, devices: String) -> Result<EchoPath, Refusal> {
        guard let path = try? JSONDecoder().decode(EchoPath.self, from: data) else { return .failure(.unreadable) }
        guard path.format == currentFormat, path.frame == EchoCanceller.frame,
            path.tailSamples == EchoCanceller.tailSamples, path.taps.count == EchoCanceller.pathTaps,
            Self.shifts.contains(path.shiftBlocks), path.lagBlocks.map(Self.lags.contains) ?? true
        else { return .failure(.otherCanceller) }
        guard path.devices == devices else { return .failure(.otherDevices(path.devices)) }
        return .success(path)
    }

    /// The delays a canceller can find and the shifts it can give the played sound for them (`lagBlocks` minus its
    /// margin): a file with any other (a damaged one) is not used, and its numbers never reach the canceller's
    /// arithmetic.
    package static let lags = DelayEstimator().lags
    package static let shifts = lags.lowerBound - margin...lags.upperBound - margin
    private static let margin = EchoCanceller.marginBlocks

    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Why a kept path is not used.
    package enum Refusal: Error, Equatable, CustomStringConvertible {
        case unreadable
        case otherCanceller
        case otherDevices(String)

        package var description: String {
            switch self {
            case .unreadable: "it cannot be read"
            case .otherCanceller: "it was learnt by another canceller"
            case .otherDevices(let devices): "it was learnt with other devices (\(devices))"
            }
        }
    }
}

import Foundation

/// A room for tests and demonstrations, `ASSIST_TEST_ROOM="DELAY_MS,LEVEL_DB,RT60_MS"` (for example
/// "300,0,300"): what the speakers played comes back into the microphone that late, that loud and with that
/// reverberation, added to what the microphone hears. The played sound is the echo canceller's own account of
/// it on the microphone's time line, so the echo follows every pause and stop of this run's playback, as a
/// real room's does (an echo recorded from another run does not: its speech keeps another pace). Only with
/// `voice.echo-cancel = "on"`. The listening thread's.
final class SimulatedRoom {
    let delaySamples: Int
    private let gain: Float
    /// The reverberation: a comb filter of `combSamples` whose feedback dies away by 60 dB in the time given.
    private let combSamples = 480
    private let feedback: Float
    /// What was played, oldest first, ending where the next chunk of the microphone begins.
    private var played: [Float] = []
    /// The echo's last `combSamples`, fed back, and where the next sample goes in it.
    private var echoTail: [Float]
    private var position = 0

    /// Reads `ASSIST_TEST_ROOM` from a session's `environment`; nil without it or when it is not three numbers
    /// (said on standard error).
    static func fromEnvironment(_ environment: [String: String]) -> SimulatedRoom? {
        guard let text = environment["ASSIST_TEST_ROOM"], !text.isEmpty else { return nil }
        let numbers = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 3, numbers[0] >= 110, numbers[0] <= 2_000, numbers[2] >= 0 else {
            FileHandle.standardError.write(
                Data(
                    "ASSIST_TEST_ROOM takes delay ms (110 to 2000), level dB and reverberation ms, like 300,0,300; not \(text).\n"
                        .utf8))
            return nil
        }
        return SimulatedRoom(delayMs: numbers[0], levelDecibels: numbers[1], rt60Ms: numbers[2])
    }

    /// The delay must exceed a chunk of the microphone (100 ms), so the echo of a chunk was played before it.
    init(delayMs: Double, levelDecibels: Double, rt60Ms: Double) {
        delaySamples = Int(delayMs * 16)
        gain = Float(pow(10, levelDecibels / 20))
        let combSeconds = Double(combSamples) / 16_000
        feedback = rt60Ms > 0 ? Float(pow(10, -3 * combSeconds / (rt60Ms / 1000))) : 0
        echoTail = [Float](repeating: 0, count: combSamples)
    }

    /// The played sound of the chunk just heard (16 kHz mono, on the microphone's time line).
    func heard(played samples: [Int16]) {
        played.append(contentsOf: samples.lazy.map { Float($0) })
        let keep = delaySamples + 16_000
        if played.count > keep * 2 { played.removeFirst(played.count - keep) }
    }

    /// `chunk`, the next of the microphone, with the room's echo added.
    func add(to chunk: [Int16]) -> [Int16] {
        chunk.enumerated().map { index, sample in
            let source = played.count + index - delaySamples
            let direct = source >= 0 && source < played.count ? played[source] * gain : 0
            let slot = position % combSamples
            position += 1
            let echo = direct + feedback * echoTail[slot]
            echoTail[slot] = echo
            return Int16(max(-32_768, min(32_767, Float(sample) + echo)))
        }
    }
}

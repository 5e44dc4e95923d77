import Audio
import Foundation
import HostTesting
import Testing
import Voice

/// The echo canceller on a reading rendered by espeak-ng now, its echo made here as a room would return it (a
/// delay, reflections, a decaying tail, noise), and what its rules decide. The natural-voice tests through
/// `assist listen --reference` and the shell are in EchoListenTests.
@Suite("Echo canceller")
struct EchoCancellerTests {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("assist-echo") }

    /// espeak-ng reading `text` at 175 words a minute, as 16 kHz mono (what the canceller works in).
    func reading(_ text: String) throws -> [Int16] { try SyntheticVoice.speak(text, in: folder) }

    static let text = """
        Chapter one. The station was quiet when the last train left. Please stop here and read the notice: next \
        week the line will pause for repairs, so go back to the main road and take the bus. Help is available at \
        the desk. Repeat: the line will pause next week, and the bus will stop at the market instead.
        """

    /// `played` as a room returns it to a microphone: after `delayMs`, through reflections and a tail decaying
    /// over about 300 ms, scaled by `gain`, with noise (deterministic).
    static func echo(of played: [Int16], delayMs: Int, gain: Double = 0.8) -> [Int16] {
        let delay = delayMs * 16
        var taps: [(Int, Double)] = [(delay, 1), (delay + 37, -0.4), (delay + 190, 0.3), (delay + 410, -0.2)]
        var random = SeededGenerator(seed: 7)
        for step in 0..<60 {
            let at = delay + 480 + step * 72
            taps.append((at, Double.random(in: -0.15...0.15, using: &random) * exp(-Double(step) / 12)))
        }
        var out = [Double](repeating: 0, count: played.count)
        for (at, weight) in taps where at < played.count {
            for index in at..<played.count { out[index] += weight * Double(played[index - at]) }
        }
        return out.map { value in
            let noise = Double.random(in: -40...40, using: &random)
            return Int16(max(-32_768, min(32_767, (value * gain + noise).rounded())))
        }
    }

    static func energy(_ samples: ArraySlice<Int16>) -> Double {
        samples.reduce(0) { $0 + Double($1) * Double($1) }
    }

    /// Runs `mic` through `canceller` in the voice thread's 100 ms chunks.
    static func cancel(_ mic: [Int16], _ canceller: EchoCanceller) -> [Int16] {
        stride(from: 0, to: mic.count, by: VoiceListener.chunkFrames).flatMap { start in
            canceller.process(Array(mic[start..<min(mic.count, start + VoiceListener.chunkFrames)]))
        }
    }

    @Test func theDelayIsFoundAndTheReadingTakenOutOfTheMicrophone() throws {
        let played = try reading(Self.text + " " + Self.text)
        let mic = Self.echo(of: played, delayMs: 80)
        let canceller = try EchoCanceller(reference: played)
        let left = Self.cancel(mic, canceller)
        #expect(abs((canceller.delayMs ?? 0) - 80) <= 30, "delay \(String(describing: canceller.delayMs))")
        // Once the room is learnt (the last third), most of the echo is gone.
        let from = mic.count * 2 / 3
        let enhancement = 10 * log10(Self.energy(mic[from...]) / max(Self.energy(left[from...]), 1))
        #expect(enhancement >= 20, "only \(enhancement) dB taken out")
        #expect(canceller.track.enhancementDecibels >= 15)
    }

    @Test func aSilentReferenceLeavesTheMicrophoneAsItIs() throws {
        let voice = try reading("What time is it?")
        let mic = [Int16](repeating: 0, count: 8_000) + voice + [Int16](repeating: 0, count: 8_000)
        let canceller = try EchoCanceller(reference: [Int16](repeating: 0, count: mic.count))
        let left = Self.cancel(mic, canceller)
        let change = 10 * log10(Self.energy(mic[...]) / max(Self.energy(left[...]), 1))
        #expect(abs(change) < 1, "the voice changed by \(change) dB")
        #expect(canceller.delayMs == nil)
        // Nothing was played, so nothing said was Assist's.
        #expect(canceller.track.saidByAPerson(fromMs: 500, toMs: 1_500) == nil)
    }

    @Test func whenTheEchoStopsTheCancellerAddsNothing() throws {
        // The speakers are muted halfway: what the canceller learnt would add the reading back, inverted.
        let played = try reading(Self.text + " " + Self.text)
        var mic = Self.echo(of: played, delayMs: 60)
        let half = mic.count / 2
        var random = SeededGenerator(seed: 3)
        for index in half..<mic.count { mic[index] = Int16.random(in: -40...40, using: &random) }
        let canceller = try EchoCanceller(reference: played)
        let left = Self.cancel(mic, canceller)
        for block in stride(from: half, to: mic.count - 160, by: 160) {
            let micEnergy = Self.energy(mic[block..<(block + 160)])
            let leftEnergy = Self.energy(left[block..<(block + 160)])
            #expect(leftEnergy <= micEnergy * 2.01 + 1, "block at \(block / 16) ms: \(leftEnergy) out of \(micEnergy)")
            if leftEnergy > micEnergy * 2.01 + 1 { break }
        }
    }

    @Test func aDelayThatChangesMidSentenceIsFollowed() throws {
        // The sound card's delay jumps from 60 to 300 ms halfway (a Bluetooth speaker taking over).
        let played = try reading(Self.text + " " + Self.text + " " + Self.text)
        let half = played.count / 2
        let early = Self.echo(of: played, delayMs: 60)
        let late = Self.echo(of: played, delayMs: 300)
        let mic = Array(early[..<half] + late[half...])
        let canceller = try EchoCanceller(reference: played)
        var seen: [Int] = []
        for start in stride(from: 0, to: mic.count, by: VoiceListener.chunkFrames) {
            _ = canceller.process(Array(mic[start..<min(mic.count, start + VoiceListener.chunkFrames)]))
            if start == half - half % VoiceListener.chunkFrames { seen.append(canceller.delayMs ?? -1) }
        }
        seen.append(canceller.delayMs ?? -1)
        #expect(abs(seen[0] - 60) <= 30, "before: \(seen)")
        #expect(abs(seen[1] - 300) <= 30, "after: \(seen)")
    }

    @Test func whatWasLearntBeforeTheDelayWasFoundIsKept() throws {
        // Until the delay is found (after 2.5 s) the played sound is given as it is heard, and the canceller learns
        // the room at the delay it has. Moving the sound to the delay found used to throw that away: the echo came
        // back at full strength for seconds, just when a person says "stop" over the first sentences.
        let played = try reading(Self.text + " " + Self.text)
        let mic = Self.echo(of: played, delayMs: 150)
        let canceller = try EchoCanceller(reference: played)
        let left = Self.cancel(mic, canceller)
        #expect(abs((canceller.delayMs ?? 0) - 150) <= 30, "delay \(String(describing: canceller.delayMs))")
        let second = 16_000
        let perSecond = (2..<8).map { index in
            let range = (index * second)..<((index + 1) * second)
            return 10 * log10(Self.energy(mic[range]) / max(Self.energy(left[range]), 1))
        }
        #expect(perSecond.dropFirst().allSatisfy { $0 >= 8 }, "dB taken out in seconds 2 to 7: \(perSecond)")
    }

    @Test func aMicrophoneThatClipsWhileAssistSpeaksIsSaidOnce() throws {
        let played = try reading(Self.text)
        // Turned up until Assist's echo clips.
        let mic = Self.echo(of: played, delayMs: 50, gain: 40)
        let notices = Self.notices(mic, try EchoCanceller(reference: played))
        #expect(notices.filter { $0.0 == .clipping }.count == 1, "\(notices)")
    }

    /// Runs `mic` through `canceller` (`cancel`) and returns, for each notice, the seconds of microphone sound
    /// taken in when it was said (the canceller's blocks, 10 ms each).
    static func notices(_ mic: [Int16], _ canceller: EchoCanceller) -> [(EchoCanceller.Notice, Double)] {
        var said: [(EchoCanceller.Notice, Double)] = []
        canceller.onNotice = { [unowned canceller] in said.append(($0, Double(canceller.track.nextBlock) / 100)) }
        _ = cancel(mic, canceller)
        return said
    }

    @Test func aReferenceOfAnotherSoundIsSaidOnceWithinFiveSeconds() throws {
        // The speakers play one reading; the reference given is another (the wrong device's, the wrong file).
        let played = try reading(Self.text)
        let other = try reading(
            "Good morning. Here is the weather for the coast: rain in the north, sun later in the south, and a "
                + "cold wind on the hills by the evening, with frost in the valleys before dawn tomorrow.")
        let mic = Self.echo(of: played, delayMs: 60)
        let wrong = try EchoCanceller(reference: other)
        let said = Self.notices(mic, wrong)
        #expect(said.filter { $0.0 == .unaligned }.count == 1, "\(said)")
        let soundFrom = Double(played.firstIndex { abs($0) > 300 } ?? 0) / 16_000
        let at = said.first { $0.0 == .unaligned }.map { $0.1 - soundFrom }
        #expect((at ?? 99) <= 5.5, "said \(String(describing: at)) s into Assist's sound")
        // The right reference, in that room and in one returning it twice as loud and later: nothing to say.
        for (delayMs, gain) in [(60, 0.8), (150, 1.6)] {
            let right = try EchoCanceller(reference: played)
            let said = Self.notices(Self.echo(of: played, delayMs: delayMs, gain: gain), right)
            #expect(said.isEmpty, "\(delayMs) ms, gain \(gain): \(said)")
        }
    }

    @Test func theDelayIsFoundInEnvelopesAndNotInSilence() throws {
        let played = try reading(Self.text)
        func levels(_ samples: [Int16]) -> [Double] {
            stride(from: 0, to: samples.count - 160, by: 160).map {
                DelayEstimator.level(Self.energy(samples[$0..<($0 + 160)]))
            }
        }
        let estimator = DelayEstimator()
        for delay in [20, 150, 420] {
            let found = estimator.estimate(mic: levels(Self.echo(of: played, delayMs: delay)), played: levels(played))
            #expect(
                abs((found?.lagBlocks ?? -999) * 10 - delay) <= 20,
                "made \(delay) ms, found \(String(describing: found))")
        }
        let silence = [Int16](repeating: 0, count: played.count)
        #expect(estimator.estimate(mic: levels(played), played: levels(silence)) == nil)
    }
}

/// A phrase over Assist's sound: said by a person or Assist's voice coming back, from literal blocks.
@Suite("Echo track")
struct EchoTrackTests {
    /// Five seconds of Assist reading, the canceller taking 30 dB out of its echo, then a phrase from
    /// `phraseFrom` to `phraseTo` ms where the microphone hears `phraseMic` and the canceller leaves `phraseLeft`.
    func track(phraseMic: Double, phraseLeft: Double, played: Double = 1e9) -> EchoTrack {
        var track = EchoTrack()
        for _ in 0..<500 { track.add(mic: 1e8, left: 1e5, played: played) }
        for _ in 0..<50 { track.add(mic: phraseMic, left: phraseLeft, played: played) }
        for _ in 0..<30 { track.add(mic: 1e8, left: 1e5, played: played) }
        return track
    }

    @Test func aPhraseTheCancellerKeptIsAPersons() {
        // A voice as loud as the echo: about half of the microphone's sound is left.
        let track = track(phraseMic: 2e8, phraseLeft: 0.9e8)
        #expect(track.saidByAPerson(fromMs: 5_000, toMs: 5_500) == true)
        #expect(track.enhancementDecibels > 25)
    }

    @Test func aPhraseTheCancellerTookAwayIsAssistsOwnVoice() {
        // Assist saying "stop" in its help: taken away like the rest of its voice.
        let track = track(phraseMic: 1e8, phraseLeft: 2e5)
        #expect(track.saidByAPerson(fromMs: 5_000, toMs: 5_500) == false)
    }

    @Test func whileTheRoomIsUnknownOnlyAVoiceFarLouderThanTheEchoPasses() {
        var track = EchoTrack()
        // The first half-second of Assist's speech: nothing measured yet.
        for _ in 0..<10 { track.add(mic: 1e8, left: 1e8, played: 1e9) }
        for _ in 0..<40 { track.add(mic: 1e8, left: 0.9e8, played: 1e9) }
        #expect(track.saidByAPerson(fromMs: 100, toMs: 500) == false)
        // Assist quiet: the usual rules apply.
        var quiet = EchoTrack()
        for _ in 0..<100 { quiet.add(mic: 1e8, left: 1e8, played: 0) }
        #expect(quiet.saidByAPerson(fromMs: 100, toMs: 500) == nil)
    }

    @Test func whereTheMicrophoneDoesNotHearAssistAPhraseIsAPersons() {
        // Headphones: Assist plays, the microphone hears only the room, then the person.
        var track = EchoTrack()
        for _ in 0..<300 { track.add(mic: 2e5, left: 2e5, played: 1e9) }
        for _ in 0..<50 { track.add(mic: 1e8, left: 1e8, played: 1e9) }
        #expect(track.saidByAPerson(fromMs: 3_000, toMs: 3_500) == true)
    }
}

/// A small deterministic generator, so that the room is the same every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}

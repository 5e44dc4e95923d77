import Audio
import CEchoCancel
import Foundation
import Runtime

/// Takes Assist's own sound out of the microphone, so that voice can hear a person over it (docs/voice.md,
/// "Barge-in"). The reference is exactly what the speakers played: the mixer's periods as they reach the sink
/// (`PlayedSound`, each with when it is heard), or a WAV file for `assist listen --reference`. Both sounds are
/// put on one time line at 16 kHz (the played sound resampled by speexdsp); the delay from the speakers to the
/// microphone is found from their loudness (`DelayEstimator`) and tracked; speexdsp's canceller (a 256 ms
/// echo tail) and its residual echo suppression do the rest. Used by one thread (the voice thread).
package final class EchoCanceller {
    /// Samples per canceller frame (10 ms) and the echo tail it models (256 ms), at 16 kHz.
    package static let frame = 160
    package static let tailSamples = 4_096
    /// How far ahead of the delay found the played sound is given to the canceller: room for the delay to
    /// move before the estimate follows it, 30 ms.
    package static let marginBlocks = 3
    /// The taps of speexdsp's filter for that tail: whole frames.
    package static let pathTaps = (tailSamples + frame - 1) / frame * frame
    /// What a canceller must have heard before what it learnt is worth keeping (`learntPath`): 10 s of Assist's
    /// sound in the microphone, and 20 dB of it taken out.
    package static let pathSoundedBlocks = 1_000
    package static let pathEnhancementDecibels = 20.0
    private static let rate = VoiceListener.format.sampleRateHz

    /// The canceller whose output is used, and how far (blocks) the played sound is moved back for it.
    private var echo: OpaquePointer
    private var shiftBlocks = 0
    /// A canceller learning with the played sound moved to a new delay while `echo` goes on with the old one;
    /// it takes over once it leaves less of Assist's sound (`Successor`).
    private var successor: Successor?
    private var timeline = SoundTimeline()
    private let played: PlayedSound?
    private let epoch: Double
    private var resampler: OpaquePointer?
    /// Where the next played sample goes on the time line, while the sound goes on without a gap.
    private var playedNext: Int?
    /// Where the next microphone sample lies on the time line.
    private var micNext: Int?
    private var micLevels: [Double] = []
    private var playedLevels: [Double] = []
    private var estimator = DelayEstimator()
    /// The delay from the speakers to the microphone in 10 ms blocks, once found.
    package private(set) var lagBlocks: Int?
    private var pendingLag: Int?
    private var blocksSinceEstimate = 0
    /// What was done to each block, for the recogniser's rules.
    package private(set) var track = EchoTrack()
    /// Said once each: why commands over Assist's sound cannot be heard now.
    package var onNotice: ((Notice) -> Void)?
    private var noticed: Set<Notice> = []
    private var clippedBlocks = 0
    private var divergedBlocks = 0
    /// Blocks of Assist's sound heard in the microphone but not found there (`noticeUnaligned`).
    private var unalignedBlocks = 0
    private var soundedAtLastEstimate = 0
    /// How much of Assist's sound, heard and not found, makes the reference taken for the wrong one: with the
    /// second or so before the echo counts as heard, it is said about 5 s into Assist's sound.
    package static let unalignedSoundedBlocks = 300
    /// The least likeness of the envelopes at which the played sound counts as found in the microphone.
    package static let alignedLikeness = 0.6
    /// The path this canceller was taught before its first sound, if one was given and fitted.
    package private(set) var startedFrom: EchoPath?
    /// Blocks in which Assist's sound played.
    package private(set) var soundedBlocks = 0
    /// Called with a line for the voice trace.
    package var trace: ((String) -> Void)?
    /// Called with the played sound that lines up with each chunk of the microphone, before the delay is
    /// taken off (for the voice trace: what the speakers played, on the microphone's time line).
    package var onPlayed: (([Int16]) -> Void)?

    /// What goes wrong that the person must act on.
    package enum Notice: Hashable, Sendable {
        /// The microphone clips while Assist speaks: its voice cannot be taken out.
        case clipping
        /// Assist's voice is loud in the microphone and cannot be found in it.
        case unaligned
        /// The reference's sound lies further from the microphone's than the search reaches.
        case outOfRange(lagMs: Int)
    }

    /// A canceller for a live session: `played` fills as the mixer writes; times are monotonic seconds from
    /// `epoch` (`ProcessInfo.systemUptime`). `remembered`: what an earlier session learnt of the room.
    package convenience init(
        played: PlayedSound, epoch: Double = ProcessInfo.processInfo.systemUptime, remembered: EchoPath? = nil
    ) throws(VoiceError) {
        try self.init(played: played, reference: nil, epoch: epoch, remembered: remembered)
    }

    /// A canceller for recordings: `reference` (16 kHz mono) is what the speakers played, its first sample
    /// heard when the microphone's first was recorded.
    package convenience init(reference: [Int16], remembered: EchoPath? = nil) throws(VoiceError) {
        try self.init(played: nil, reference: reference, epoch: 0, remembered: remembered)
    }

    private init(played: PlayedSound?, reference: [Int16]?, epoch: Double, remembered: EchoPath?) throws(VoiceError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let echo = assist_echo_open(Int32(Self.rate), Int32(Self.frame), Int32(Self.tailSamples), &error, 256)
        else {
            throw VoiceError.echoCancellerUnavailable(String(nulTerminated: error))
        }
        self.echo = echo
        self.played = played
        self.epoch = epoch
        if let played {
            resampler = assist_resampler_open(Int32(played.sampleRateHz), Int32(Self.rate))
        }
        if let reference { timeline.write(reference, at: 0) }
        if let remembered, assist_echo_learn_path(echo, remembered.taps, Int32(remembered.taps.count)) == 0 {
            // Taught where it was learnt: the played sound moved back as far, the delay as found then (a delay
            // found otherwise now is followed as ever).
            shiftBlocks = remembered.shiftBlocks
            lagBlocks = remembered.lagBlocks
            startedFrom = remembered
        }
    }

    /// What this canceller learnt of the room, worth teaching the next session's (`EchoPath`): nil until it has
    /// heard Assist's sound in the microphone for 10 s and takes 20 dB of it out.
    package func learntPath(devices: String) -> EchoPath? {
        guard soundedBlocks >= Self.pathSoundedBlocks, track.echoHeard,
            track.enhancementDecibels >= Self.pathEnhancementDecibels
        else { return nil }
        var taps = [Int32](repeating: 0, count: Self.pathTaps)
        let count = taps.withUnsafeMutableBufferPointer { assist_echo_path(echo, $0.baseAddress, Int32($0.count)) }
        guard Int(count) == Self.pathTaps else { return nil }
        return EchoPath(
            frame: Self.frame, tailSamples: Self.tailSamples, shiftBlocks: shiftBlocks, lagBlocks: lagBlocks,
            devices: devices, enhancementDecibels: track.enhancementDecibels, taps: taps)
    }

    deinit {
        assist_echo_close(echo)
        if let successor { assist_echo_close(successor.echo) }
        if let resampler { assist_resampler_close(resampler) }
    }

    /// The delay found, ms.
    package var delayMs: Int? { lagBlocks.map { $0 * 10 } }

    /// Removes Assist's sound from `chunk` (16 kHz mono) and returns what is left. `endsAt` is when its last
    /// sample was recorded (monotonic seconds) for a live microphone, nil for a recording read in order.
    package func process(_ chunk: [Int16], endsAt: Double? = nil) -> [Int16] {
        guard !chunk.isEmpty else { return chunk }
        takePlayed()
        let count = (chunk.count + Self.frame - 1) / Self.frame * Self.frame
        var mic = chunk
        mic.append(contentsOf: repeatElement(0, count: count - chunk.count))
        let start = place(count: chunk.count, endsAt: endsAt)
        // Before the delay is known the played sound is given as it is heard: the echo then comes within the
        // modelled tail (a sound card and the air take well under 256 ms).
        var aligned = timeline.read(from: start - shiftBlocks * Self.frame, count: count)
        let unshifted = timeline.read(from: start, count: count)
        onPlayed?(Array(unshifted.prefix(chunk.count)))
        var out = Self.run(echo, mic: mic, reference: aligned)
        if var next = successor {
            let reference = timeline.read(from: start - next.shiftBlocks * Self.frame, count: count)
            let nextOut = Self.run(next.echo, mic: mic, reference: reference)
            for block in 0..<(count / Self.frame) {
                let range = (block * Self.frame)..<((block + 1) * Self.frame)
                next.compare(
                    played: Self.energy(reference[range]), mine: Self.energy(nextOut[range]),
                    theirs: Self.energy(out[range]))
            }
            switch next.verdict {
            case .learning:
                successor = next
            case .better:
                trace?(
                    "echo: the canceller learnt at the delay found takes over (\(String(format: "%.1f", next.advantageDecibels)) dB less left of Assist's sound)"
                )
                assist_echo_close(echo)
                echo = next.echo
                shiftBlocks = next.shiftBlocks
                successor = nil
                out = nextOut
                aligned = reference
            case .givenUp:
                trace?("echo: the canceller learning at the delay found did no better: dropped")
                assist_echo_close(next.echo)
                successor = nil
            }
        }
        for block in 0..<(count / Self.frame) {
            let range = (block * Self.frame)..<((block + 1) * Self.frame)
            let micEnergy = Self.energy(mic[range])
            let playedEnergy = Self.energy(aligned[range])
            var left = Self.energy(out[range])
            // More out than in: the room changed under the canceller (speakers muted, headphones plugged in), and
            // what it takes away is Assist's voice that is no longer there, added back inverted. The block is
            // brought down to the microphone's level; a second of it and the canceller starts learning afresh.
            if left > micEnergy * 2 {
                let scale = (micEnergy / left).squareRoot()
                for index in range { out[index] = Int16((Double(out[index]) * scale).rounded()) }
                left = micEnergy
                divergedBlocks += 1
                if divergedBlocks >= 50 {
                    divergedBlocks = 0
                    assist_echo_reset(echo)
                    dropSuccessor()
                    trace?("echo: the canceller added more than it took away for a second: learning the room afresh")
                }
            } else {
                divergedBlocks = max(0, divergedBlocks - 1)
            }
            track.add(mic: micEnergy, left: left, played: playedEnergy)
            if playedEnergy > EchoTrack.audiblePlayed { soundedBlocks += 1 }
            micLevels.append(DelayEstimator.level(micEnergy))
            playedLevels.append(DelayEstimator.level(Self.energy(unshifted[range])))
            let clipped = mic[range].contains { $0 == .max || $0 == .min }
            clippedBlocks =
                clipped && playedEnergy > EchoTrack.audiblePlayed ? clippedBlocks + 1 : max(0, clippedBlocks - 1)
            if clippedBlocks >= 20 { notice(.clipping) }
        }
        let keep = estimator.windowBlocks + estimator.lags.upperBound + 100
        if micLevels.count > keep + 200 {
            micLevels.removeFirst(micLevels.count - keep)
            playedLevels.removeFirst(playedLevels.count - keep)
        }
        blocksSinceEstimate += count / Self.frame
        if blocksSinceEstimate >= 50 {
            blocksSinceEstimate = 0
            followDelay()
        }
        timeline.forget(before: start - Self.rate * 2)
        return Array(out.prefix(chunk.count))
    }

    /// `EchoTrack.saidByAPerson`, with what it was decided on written to the trace.
    package func saidByAPerson(fromMs: Int, toMs: Int) -> Bool? {
        guard let evidence = track.evidence(fromMs: fromMs, toMs: toMs) else { return nil }
        if let trace {
            let overEcho = evidence.overEcho.map { String(format: "%.1f dB", $0) } ?? "unknown"
            trace(
                "echo: \(fromMs)–\(toMs) ms kept \(String(format: "%.1f", evidence.kept)) dB with \(String(format: "%.1f", evidence.enhancement)) dB taken out of Assist's voice, over its echo by \(overEcho): \(evidence.saidByAPerson ? "a person" : "Assist")"
            )
        }
        return evidence.saidByAPerson
    }

    /// `count` samples the recogniser was given without the microphone (it was closed): the blocks keep time,
    /// and the microphone's next chunk is placed by its clock.
    package func skip(count: Int) {
        for _ in 0..<(count / Self.frame) { track.add(mic: 0, left: 0, played: 0) }
        micNext = nil
        blocksSinceEstimate = 0
    }

    private static func energy(_ samples: ArraySlice<Int16>) -> Double {
        samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    }

    /// Where a chunk of `count` samples starts on the time line: after the last one, unless a live
    /// microphone's clock says it lies more than 100 ms elsewhere (it was stopped, or fell behind).
    private func place(count: Int, endsAt: Double?) -> Int {
        var start = micNext ?? 0
        if let endsAt {
            let clocked = Int(((endsAt - epoch) * Double(Self.rate)).rounded()) - count
            if micNext == nil || abs(clocked - start) > Self.rate / 10 {
                if micNext != nil {
                    trace?("echo: the microphone's time line moved by \(clocked - start) samples")
                } else {
                    let first = endsAt - Double(count) / Double(Self.rate)
                    trace?("echo: the microphone's first sample was recorded at \(String(format: "%.3f", first))")
                }
                start = clocked
                micLevels.removeAll()
                playedLevels.removeAll()
            }
        }
        micNext = start + count
        return start
    }

    /// Puts what the mixer played since the last chunk on the time line.
    private func takePlayed() {
        guard let played, let resampler else { return }
        let drained = played.drain()
        if drained.overflowed { playedNext = nil }
        var converted = [Int16](repeating: 0, count: 1_024)
        for period in drained.periods {
            let at = Int(((period.heardAt - epoch) * Double(Self.rate)).rounded())
            // Within a stretch the mixer wrote without pause, the sound runs on sample by sample: the clock's
            // jitter is not the sound's. A stretch starts where its clock says (as does sound 100 ms off it: the
            // sound card ran dry).
            if let next = playedNext, !period.startsStretch, abs(at - next) < Self.rate / 10 {
            } else {
                if let next = playedNext, !period.startsStretch {
                    trace?("echo: the played sound moved by \(at - next) samples")
                } else {
                    trace?("echo: sound plays from \(at / (Self.rate / 1000)) ms")
                }
                assist_resampler_reset(resampler)
                playedNext = at
            }
            let made = drained.samples.withUnsafeBufferPointer { samples in
                converted.withUnsafeMutableBufferPointer { out in
                    Int(
                        assist_resampler_run(
                            resampler, samples.baseAddress.map { $0 + period.offset }, Int32(period.count),
                            out.baseAddress, Int32(out.count)))
                }
            }
            guard let next = playedNext else { continue }
            timeline.write(Array(converted.prefix(made)), at: next)
            playedNext = next + made
        }
    }

    /// Says once that the reference is not what the microphone hears (another device's sound, the wrong file):
    /// Assist's voice loud in the microphone over `unalignedSoundedBlocks` of its sound, with the delay not
    /// found there clearly and next to nothing of it taken out. Two readings' envelopes can look alike at some
    /// lag (up to 0.45 here) and an estimate that weak is still followed; only a clear likeness (the right
    /// reference's is 0.8–0.95) tells that the sound is found.
    private func noticeUnaligned(found estimate: DelayEstimator.Estimate?) {
        let sounded = soundedBlocks - soundedAtLastEstimate
        soundedAtLastEstimate = soundedBlocks
        if let estimate, estimate.strength >= Self.alignedLikeness {
            unalignedBlocks = 0
        } else if track.echoHeard, track.enhancementDecibels < 6 {
            unalignedBlocks += sounded
            if unalignedBlocks >= Self.unalignedSoundedBlocks { notice(.unaligned) }
        }
    }

    /// Estimates the delay again and follows it when it moved: at once the first time, after two estimates
    /// that agree later on (one odd estimate moves nothing).
    private func followDelay() {
        let estimate = estimator.estimate(mic: micLevels, played: playedLevels)
        noticeUnaligned(found: estimate)
        guard let estimate else { return }
        let lag = estimate.lagBlocks
        if lag == estimator.lags.lowerBound || lag == estimator.lags.upperBound {
            notice(.outOfRange(lagMs: lag * 10))
        }
        guard let current = lagBlocks else {
            lagBlocks = lag
            trace?("echo: the delay is \(lag * 10) ms (likeness \(String(format: "%.2f", estimate.strength)))")
            follow(lag)
            return
        }
        guard abs(lag - current) > 2 else {
            pendingLag = nil
            return
        }
        if let pending = pendingLag, abs(pending - lag) <= 2 {
            trace?("echo: the delay moved from \(current * 10) to \(lag * 10) ms")
            lagBlocks = lag
            pendingLag = nil
            follow(lag)
        } else {
            pendingLag = lag
        }
    }

    /// Moves the played sound to the delay `lag` for a canceller that learns there, while the one in use goes on
    /// as it is: what a canceller learnt lies at the delay it learnt it at, and moving its sound would throw it
    /// away (the echo came back at full strength for seconds, in the first seconds of a reading too).
    private func follow(_ lag: Int) {
        let shift = lag - Self.marginBlocks
        guard shift != shiftBlocks else {
            dropSuccessor()
            return
        }
        guard successor?.shiftBlocks != shift else { return }
        dropSuccessor()
        guard let made = assist_echo_open(Int32(Self.rate), Int32(Self.frame), Int32(Self.tailSamples), nil, 0)
        else { return }
        successor = Successor(echo: made, shiftBlocks: shift)
    }

    private func dropSuccessor() {
        if let successor { assist_echo_close(successor.echo) }
        successor = nil
    }

    private static func run(_ echo: OpaquePointer, mic: [Int16], reference: [Int16]) -> [Int16] {
        var out = [Int16](repeating: 0, count: mic.count)
        mic.withUnsafeBufferPointer { micBuffer in
            reference.withUnsafeBufferPointer { played in
                out.withUnsafeMutableBufferPointer { outBuffer in
                    assist_echo_run(
                        echo, micBuffer.baseAddress, played.baseAddress, outBuffer.baseAddress, Int32(mic.count))
                }
            }
        }
        return out
    }

    private func notice(_ notice: Notice) {
        guard !noticed.contains(notice) else { return }
        noticed.insert(notice)
        trace?("echo: \(notice)")
        onNotice?(notice)
    }
}

/// Sound on one time line of 16 kHz samples numbered from the session's start: what was written is read back
/// by number, silence where nothing was. Keeps what is not yet forgotten.
struct SoundTimeline {
    private var samples: [Int16] = []
    /// The number of `samples[0]`.
    private var base = 0

    mutating func write(_ new: [Int16], at index: Int) {
        guard !new.isEmpty else { return }
        // Nothing kept, or a gap of more than 10 s: start afresh where the sound is.
        if samples.isEmpty || index - base - samples.count > 160_000 {
            samples.removeAll()
            base = index
        }
        if index < base {
            let skip = base - index
            guard skip < new.count else { return }
            return write(Array(new[skip...]), at: base)
        }
        let end = index - base + new.count
        if end > samples.count { samples.append(contentsOf: repeatElement(0, count: end - samples.count)) }
        samples.replaceSubrange((index - base)..<end, with: new)
    }

    func read(from index: Int, count: Int) -> [Int16] {
        var out = [Int16](repeating: 0, count: count)
        let from = max(index, base)
        let to = min(index + count, base + samples.count)
        if from < to {
            for position in from..<to { out[position - index] = samples[position - base] }
        }
        return out
    }

    mutating func forget(before index: Int) {
        let drop = min(index - base, samples.count)
        guard drop > Self.forgetInSteps else { return }
        samples.removeFirst(drop)
        base += drop
    }

    /// Forgetting moves memory: done in steps of at least this many samples (2 s).
    private static let forgetInSteps = 32_000
}

/// A canceller learning at a new delay beside the one in use, and how the two compare over the blocks where Assist
/// sounded: it takes over once, over the last second of them, it leaves less than the one in use (after at least
/// a second of them), and is dropped when it has not after 20 s.
struct Successor {
    let echo: OpaquePointer
    let shiftBlocks: Int
    private var mine: [Double] = []
    private var theirs: [Double] = []
    private var blocks = 0

    init(echo: OpaquePointer, shiftBlocks: Int) {
        self.echo = echo
        self.shiftBlocks = shiftBlocks
    }

    enum Verdict { case learning, better, givenUp }

    /// The two outputs' energies over a block where the played sound had `played`.
    mutating func compare(played: Double, mine: Double, theirs: Double) {
        blocks += 1
        guard played > EchoTrack.audiblePlayed else { return }
        self.mine.append(mine)
        self.theirs.append(theirs)
        if self.mine.count > 100 {
            self.mine.removeFirst()
            self.theirs.removeFirst()
        }
    }

    /// How much less this one leaves over the last second of Assist's sound, dB.
    var advantageDecibels: Double {
        10 * log10((theirs.reduce(0, +) + 1) / (mine.reduce(0, +) + 1))
    }

    var verdict: Verdict {
        if mine.count >= 100, advantageDecibels > 0 { return .better }
        return blocks >= 2_000 ? .givenUp : .learning
    }
}

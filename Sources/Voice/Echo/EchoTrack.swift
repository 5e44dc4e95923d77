import Foundation

/// What the echo canceller did to each 10 ms block fed to the recogniser: the microphone's energy before it,
/// what was left after it, and the energy of Assist's own sound lined up with it. From it, whether a phrase heard
/// while Assist was sounding was said by a person or was Assist's voice coming back. Two kinds of evidence, either
/// of which is enough:
/// - the canceller left the phrase's sound, well above what it leaves of Assist's voice alone (once it has
///   learnt the room);
/// - the microphone heard far more than Assist's sound explains (a voice much louder than the echo, even while
///   the canceller is still learning).
/// Blocks are on the recogniser's clock (`heardMs` / 10).
package struct EchoTrack: Sendable {
    package struct Block: Sendable {
        package var mic: Double
        package var left: Double
        /// The played sound's energy, lined up with the block.
        package var played: Double

        var playing: Bool { played > EchoTrack.audiblePlayed }
    }

    /// Blocks kept: 30 s.
    package static let keptBlocks = 3_000
    /// How far above what the canceller leaves of Assist's voice alone a phrase must stay to be a person's, dB.
    package static let marginDecibels = 8.0
    /// The least of its sound a person's phrase keeps through the canceller, dB: a voice 13 dB under Assist's
    /// echo still keeps more.
    package static let floorDecibels = -15.0
    /// How far above Assist's sound as the room returns it the microphone must be over a phrase, dB, for the
    /// phrase to be a person's without the canceller's help.
    package static let louderDecibels = 9.0
    /// A 10 ms block of played sound quieter than this is silence (RMS 64, about -54 dBFS).
    package static let audiblePlayed = 160.0 * 64 * 64
    /// A 10 ms block's energy above a quiet room's (RMS 50, about -56 dBFS).
    package static let audibleEnergy = 160.0 * 2_500
    /// The enhancement taken where Assist's voice does not reach the microphone.
    package static let unheardDecibels = 30.0

    private var blocks: [Block] = []
    /// The index of `blocks[0]` on the recogniser's clock.
    private var first = 0
    /// The echo return loss enhancement measured over the last blocks where only Assist sounded, dB.
    package private(set) var enhancementDecibels = 0.0
    /// Whether Assist's sound was loud in the microphone in most blocks where it played, lately.
    package private(set) var echoHeard = false

    package init() {}

    /// The number of the next block.
    package var nextBlock: Int { first + blocks.count }

    /// Adds a block: the microphone's energy, what the canceller left of it, and the played sound's.
    package mutating func add(mic: Double, left: Double, played: Double) {
        blocks.append(Block(mic: mic, left: left, played: played))
        if blocks.count > Self.keptBlocks + 500 {
            blocks.removeFirst(500)
            first += 500
        }
        if blocks.count % 50 == 0 { measure() }
    }

    /// The room as measured from blocks older than the last second (what is being said now is not measured).
    private mutating func measure() {
        guard let room = room(before: nextBlock - 100) else { return }
        enhancementDecibels = room.enhancement
        echoHeard = room.echoHeard
    }

    /// What the room does to Assist's sound, over the last 3 (or up to 10) s of blocks before `block` where
    /// Assist sounded: the
    /// canceller's enhancement (the median over the blocks where the microphone heard it, 6 dB over the room;
    /// a person speaking then is rare, and the median ignores it), and how loud the room returns it (the median
    /// of the microphone's energy over the played sound's). Where the microphone hardly hears Assist at all
    /// (headphones, a distant speaker) there is no echo to fear: `unheardDecibels`, and no gain. Nil with too
    /// few blocks where Assist sounded.
    private func room(before block: Int) -> (enhancement: Double, gain: Double, echoHeard: Bool)? {
        let end = min(max(block - first, 0), blocks.count)
        // The last 3 s, as the canceller is now; up to 10 s when Assist sounded too little in them.
        var playing = blocks[max(0, end - 300)..<end].filter(\.playing)
        if playing.count < 30 { playing = blocks[max(0, end - 1_000)..<end].filter(\.playing) }
        guard playing.count >= 30 else { return nil }
        let loud = max(Self.audibleEnergy, 4 * roomEnergy)
        let heard = playing.filter { $0.mic > loud }
        guard heard.count * 10 >= playing.count else { return (Self.unheardDecibels, 0, false) }
        let ratios = heard.map { 10 * log10($0.mic / max($0.left, 1)) }.sorted()
        let gains = heard.map { $0.mic / $0.played }.sorted()
        return (ratios[ratios.count / 2], gains[gains.count / 2], heard.count * 2 >= playing.count)
    }

    /// The room's own sound: the tenth quietest in a hundred of the microphone's blocks over the last 30 s.
    private var roomEnergy: Double {
        let energies = blocks.map(\.mic).filter { $0 > 0 }.sorted()
        return energies.isEmpty ? 0 : energies[energies.count / 10]
    }

    private func slice(fromMs: Int, toMs: Int) -> ArraySlice<Block> {
        let from = max(fromMs / 10 - first, 0)
        let to = min(toMs / 10 - first, blocks.count)
        return from < to ? blocks[from..<to] : []
    }

    /// Whether Assist's sound was in the microphone at any time from `fromMs` to `toMs`.
    package func playing(fromMs: Int, toMs: Int) -> Bool { slice(fromMs: fromMs, toMs: toMs).contains { $0.playing } }

    /// How much of the microphone's sound from `fromMs` to `toMs` the canceller left, dB (0: all of it).
    package func kept(fromMs: Int, toMs: Int) -> Double? {
        let span = slice(fromMs: fromMs, toMs: toMs)
        let mic = span.reduce(0) { $0 + $1.mic }
        guard mic > 0 else { return nil }
        return 10 * log10(max(span.reduce(0) { $0 + $1.left }, 1) / mic)
    }

    /// What the two kinds of evidence say of the phrase from `fromMs` to `toMs`, for the trace and the rule.
    package struct Evidence: Sendable {
        /// What the canceller left of the phrase, dB, and what it takes out of Assist's voice alone.
        package var kept: Double
        package var enhancement: Double
        /// The microphone over Assist's sound as the room returns it, dB (nil before the room is known).
        package var overEcho: Double?

        package var saidByAPerson: Bool {
            kept >= max(EchoTrack.floorDecibels, -enhancement + EchoTrack.marginDecibels)
                || (overEcho ?? 0) >= EchoTrack.louderDecibels
        }
    }

    /// Over Assist's sound: the evidence on the phrase from `fromMs` to `toMs`. Nil when Assist was not sounding
    /// then (the usual rules apply).
    package func evidence(fromMs: Int, toMs: Int) -> Evidence? {
        guard playing(fromMs: fromMs - 200, toMs: toMs + 100), let kept = kept(fromMs: fromMs, toMs: toMs) else {
            return nil
        }
        let room = room(before: fromMs / 10 - 20)
        var overEcho: Double?
        if let gain = room?.gain, gain > 0 {
            // The echo of the phrase's span and the reverberation of the 300 ms before it.
            let span = slice(fromMs: fromMs, toMs: toMs)
            let echo = gain * slice(fromMs: fromMs - 300, toMs: toMs).reduce(0) { $0 + $1.played } + 1
            overEcho = 10 * log10(span.reduce(0) { $0 + $1.mic } / echo)
        }
        return Evidence(kept: kept, enhancement: room?.enhancement ?? enhancementDecibels, overEcho: overEcho)
    }

    /// Over Assist's sound: whether the phrase from `fromMs` to `toMs` is a person's (`Evidence`); nil when
    /// Assist was not sounding then.
    package func saidByAPerson(fromMs: Int, toMs: Int) -> Bool? {
        evidence(fromMs: fromMs, toMs: toMs)?.saidByAPerson
    }
}

import Testing
import Voice

/// The voice rules that read loudness alone, given literal 10 ms loudnesses (dB of 16-bit samples): the pause
/// before a phrase said on its own, the room, and where the words after a phrase start and end.
@Suite("Loudness rules")
struct LoudnessTrackTests {
    /// `frames` of 10 ms, each `db` loud.
    func run(_ db: Float, _ frames: Int) -> [Float] { Array(repeating: db, count: frames) }

    /// A quantile is the frame sorting would put at its rank, for every rank, with many loudnesses alike (a
    /// quiet room's frames are) and with none, in ascending, descending and shuffled order.
    @Test func aQuantileIsTheValueAtItsRankInSortedOrder() {
        var generator = SystemRandomNumberGenerator()
        for count in [1, 2, 3, 8, 31, 600] {
            let alike = (0..<count).map { _ in Float(Int.random(in: 38...42, using: &generator)) }
            let distinct = (0..<count).map { _ in Float.random(in: 0...90, using: &generator) }
            for values in [alike, distinct, alike.sorted(), distinct.sorted(by: >)] {
                let sorted = values.sorted()
                for rank in 0..<count {
                    var copy = values
                    let selected = copy.withUnsafeMutableBufferPointer { LoudnessTrack.select(rank, in: $0) }
                    #expect(selected == sorted[rank], "rank \(rank) of \(values)")
                }
            }
        }
        let track = LoudnessTrack(energies: run(40, 95) + run(60, 5))
        #expect(track.loudness(from: 0, to: 100, quantile: 0.05) == 40)
        #expect(track.loudness(from: 0, to: 100, quantile: 0.95) == 60)
        #expect(track.loudness(from: 0, to: 100, quantile: 1) == 60)
        #expect(track.loudness(from: 95, to: 100, quantile: 0.5) == nil, "fewer than 8 frames")
    }

    /// A question that comes while the user speaks with the push-to-talk key down (a menu up as they began)
    /// is answered by those words: the answer is listened for from just before them, not from the middle.
    @Test func anAnswerSaidAsTheQuestionCameIsListenedForFromItsStart() {
        // The window opened at 500 ms; 2 s of a quiet room, then words from 2000 ms, going on at 2600 ms.
        let speaking = LoudnessTrack(energies: run(40, 200) + run(60, 60))
        #expect(speaking.answerStart(nowMs: 2600, openedMs: 500) == 1800)
        // Never before the window (or the end of what was decoded in it).
        #expect(speaking.answerStart(nowMs: 2600, openedMs: 1900) == 1900)
        // Nobody speaking, or the words over (450 ms of the room after them): from now.
        let quiet = LoudnessTrack(energies: run(40, 260))
        #expect(quiet.answerStart(nowMs: 2600, openedMs: 500) == 2600)
        let ended = LoudnessTrack(energies: run(40, 150) + run(60, 50) + run(40, 60))
        #expect(ended.answerStart(nowMs: 2600, openedMs: 500) == 2600)
        // Speech that began before the window opened is not the answer.
        #expect(speaking.answerStart(nowMs: 2600, openedMs: 2600) == 2600)
    }

    @Test func aPhraseAfterAPauseIsHeardAndOneInsideSpeechIsNot() {
        // 1 s of a quiet room (40 dB), then a phrase at 60 dB for 600 ms.
        let alone = LoudnessTrack(energies: run(40, 100) + run(60, 60))
        #expect(alone.followsAPause(startMs: 1000, endMs: 1600))
        // The same phrase right after "please" (58 dB up to 20 ms before it): somebody talking.
        let inSentence = LoudnessTrack(energies: run(40, 70) + run(58, 28) + run(40, 2) + run(60, 60))
        #expect(!inSentence.followsAPause(startMs: 1000, endMs: 1600))
        // Louder than the words before by exactly the margin, and by a little less.
        let margin = LoudnessTrack.pauseDecibels
        let just = LoudnessTrack(energies: run(50, 100) + run(50 + margin, 60))
        let under = LoudnessTrack(energies: run(50, 100) + run(50 + margin - 0.5, 60))
        #expect(just.followsAPause(startMs: 1000, endMs: 1600) && !under.followsAPause(startMs: 1000, endMs: 1600))
        // Nothing kept before the phrase (the first words after listening starts): nothing to compare, heard.
        #expect(LoudnessTrack(energies: run(60, 60)).followsAPause(startMs: 0, endMs: 600))
    }

    /// At any time a command said on its own ends in a pause, back to the room; the same words inside a
    /// sentence run on ("what time does the film start", "we bought a new kettle" for "pause").
    @Test func aPhraseSaidAloneIsFollowedByAPause() {
        let quiet = LoudnessTrack.afterQuietMs
        let alone = LoudnessTrack(energies: run(40, 100) + run(60, 40) + run(40, 100))
        #expect(alone.followedByAPause(startMs: 1000, endMs: 1400, quietMs: quiet) == true)
        // The word's last sound rings on 200 ms past the recogniser's end: still a pause after it.
        let ringing = LoudnessTrack(energies: run(40, 100) + run(60, 60) + run(40, 100))
        #expect(ringing.followedByAPause(startMs: 1000, endMs: 1400, quietMs: quiet) == true)
        // A sentence goes on: quieter words after it, never back to the room for long enough.
        let sentence = LoudnessTrack(
            energies: run(40, 100) + run(60, 40) + (0..<10).flatMap { _ in run(55, 8) + run(44, 6) })
        #expect(sentence.followedByAPause(startMs: 1000, endMs: 1400, quietMs: quiet) == false)
        // Not enough kept after it yet: not known. A pause heard is said at once, before the stretch after the
        // phrase that the room after it is told from (750 ms) is in.
        #expect(
            LoudnessTrack(energies: run(40, 100) + run(60, 45)).followedByAPause(
                startMs: 1000, endMs: 1400, quietMs: quiet) == nil)
        #expect(
            LoudnessTrack(energies: run(40, 100) + run(60, 40) + run(40, 15)).followedByAPause(
                startMs: 1000, endMs: 1400, quietMs: quiet) == true)
        #expect(
            LoudnessTrack(energies: run(40, 100) + run(60, 40) + run(40, 14)).followedByAPause(
                startMs: 1000, endMs: 1400, quietMs: quiet) == nil)
        // A noise that began with the talk (a fan) is the room after it.
        let fan = LoudnessTrack(energies: run(40, 100) + run(62, 40) + run(47, 100))
        #expect(fan.followedByAPause(startMs: 1000, endMs: 1400, quietMs: quiet) == true)
    }

    /// A single word needs more: the 450 ms before it quiet, and a longer pause after it.
    @Test func aWordSaidAloneHasQuietBeforeAndAfter() {
        let quiet = LoudnessTrack.aloneQuietMs
        let alone = LoudnessTrack(energies: run(40, 100) + run(60, 30) + run(40, 100))
        #expect(alone.saidAlone(startMs: 1000, endMs: 1300, quietMs: quiet) == true)
        // A short gap in a sentence before it (250 ms of quiet after speech).
        let inSentence = LoudnessTrack(energies: run(40, 50) + run(58, 25) + run(40, 25) + run(60, 30) + run(40, 100))
        #expect(inSentence.saidAlone(startMs: 1000, endMs: 1300, quietMs: quiet) == false)
    }

    /// The utterance a dropped phrase lies in, when it was said on its own: 450 ms of the room before it,
    /// `aloneQuietMs` after, no longer than 3 s; a knock just before the words is part of it.
    @Test func anUtteranceSaidAloneIsBoundedByTheRoomBeforeAndAfter() {
        // 1 s of a room (40 dB), a knock (60 dB, 120 ms), 100 ms of room, words (60 dB, 700 ms), the room again.
        let knock = LoudnessTrack(energies: run(40, 100) + run(60, 12) + run(40, 10) + run(60, 70) + run(40, 40))
        #expect(knock.aloneUtterance(startMs: 1_300, endMs: 1_850) == .utterance(startMs: 1_000, endMs: 1_920))
        // Not yet `aloneQuietMs` of the room after it: not known.
        let short = LoudnessTrack(energies: run(40, 100) + run(60, 70) + run(40, LoudnessTrack.aloneQuietMs / 10 - 5))
        #expect(short.aloneUtterance(startMs: 1_000, endMs: 1_700) == .waiting)
        // Words 400 ms before it (less than the 450 ms pause) are part of its utterance, which the judge hears whole.
        let sentence = LoudnessTrack(energies: run(40, 100) + run(58, 60) + run(40, 40) + run(60, 50) + run(40, 40))
        #expect(sentence.aloneUtterance(startMs: 2_000, endMs: 2_500) == .utterance(startMs: 1_000, endMs: 2_500))
        // Talk that goes on for more than 3 s with short gaps: no utterance said alone.
        let talk = LoudnessTrack(energies: run(40, 100) + (0..<25).flatMap { _ in run(58, 12) + run(42, 8) })
        #expect(talk.aloneUtterance(startMs: 3_000, endMs: 3_200) == .notAlone)
        // Speech right before what is kept (listening began mid-sentence): not alone.
        #expect(
            LoudnessTrack(energies: run(60, 80) + run(40, 40)).aloneUtterance(startMs: 500, endMs: 800) == .notAlone)
    }

    /// A keyphrase search is renewed only where no word has begun: 70 ms into one is not yet speech to
    /// `utterance` (it needs 120 ms), but it is not quiet either.
    @Test func theFirstSoundOfAWordIsNotQuiet() {
        let onset = LoudnessTrack(energies: run(40, 100) + run(60, 7))
        #expect(onset.utterance(after: 470) == .none)
        #expect(!onset.isQuiet(after: 870))
        #expect(LoudnessTrack(energies: run(40, 107)).isQuiet(after: 870))
        // The word ended long enough ago: quiet again.
        #expect(LoudnessTrack(energies: run(40, 100) + run(60, 30) + run(40, 30)).isQuiet(after: 1_400))
    }

    /// Over Assist's sound the judge hears a phrase to where its voice ends: the recogniser ends it early (the
    /// "fas" of "faster", "sync photos" of "sync photos now").
    @Test func aPhraseVoiceEndsWhereItFallsWellUnderThePhrase() {
        // Heard from 1000 to 1300 ms; the voice goes on to 1700 ms, then what is left of Assist's voice (44 dB).
        let early = LoudnessTrack(energies: run(44, 100) + run(60, 70) + run(44, 60))
        #expect(early.voiceEnd(startMs: 1000, endMs: 1300) == 1700)
        // A quieter last syllable (54 dB, 6 under the phrase) is still the voice.
        let trailing = LoudnessTrack(energies: run(44, 100) + run(60, 30) + run(54, 20) + run(44, 60))
        #expect(trailing.voiceEnd(startMs: 1000, endMs: 1300) == 1500)
        // Too little kept after the end yet: not known.
        #expect(LoudnessTrack(energies: run(44, 100) + run(60, 40)).voiceEnd(startMs: 1000, endMs: 1300) == nil)
        // Speech that runs on (Assist's voice left loud, a sentence) is cut at the longest ring, 600 ms past.
        let running = LoudnessTrack(energies: run(44, 100) + run(60, 200))
        #expect(running.voiceEnd(startMs: 1000, endMs: 1300) == 1300 + LoudnessTrack.tailMs)
    }

    @Test func theRoomIsTheMedianOfTheStretchBeforeAMoment() {
        let track = LoudnessTrack(energies: run(42, 30) + run(44, 20) + run(70, 3) + run(60, 20))
        // 150–450 ms before 5 s... here before 700 ms: frames 25 to 55, mostly 44 dB with a click of 70.
        #expect(track.roomLevel(before: 700) == 44)
        #expect(LoudnessTrack(energies: run(42, 5)).roomLevel(before: 500) == nil, "fewer than 8 frames known")
    }

    @Test func wordsAfterAPhraseStartAndEndByLoudness() {
        let room = run(40, 100)
        // Nothing said yet.
        #expect(LoudnessTrack(energies: room + run(41, 50)).utterance(after: 1000) == .none)
        // 300 ms of words at 60 dB after 200 ms of the room, still going.
        let going = LoudnessTrack(energies: room + run(40, 20) + run(60, 30))
        #expect(going.utterance(after: 1000) == .going(startMs: 1200))
        // Nothing but loud sound since the phrase: the room is taken from that stretch too, so it is no speech.
        #expect(LoudnessTrack(energies: room + run(60, 30)).utterance(after: 1000) == .none)
        // The words and then 450 ms of the room: ended, with where they were.
        let ended = LoudnessTrack(energies: room + run(40, 20) + run(60, 30) + run(40, 45))
        #expect(ended.utterance(after: 1000) == .ended(startMs: 1200, endMs: 1500))
        // 440 ms of the room after them is not yet an end.
        let pausing = LoudnessTrack(energies: room + run(60, 30) + run(40, 44))
        #expect(pausing.utterance(after: 1000) == .going(startMs: 1000))
        // A click of 100 ms is not speech (120 ms in all are).
        #expect(LoudnessTrack(energies: room + run(60, 10) + run(40, 60)).utterance(after: 1000) == .none)
    }

    @Test func aNoiseThatBeginsAfterThePhraseAndDigitalSilenceAreNoSpeech() {
        // A fan switched on after the phrase, 14 dB over the room and steady: the room is taken from after the
        // phrase too, so the fan is the room.
        let fan = LoudnessTrack(energies: run(40, 100) + run(54, 100))
        #expect(fan.utterance(after: 1000) == .none)
        // Digital silence, then a breath at 45 dB: the room is never taken as quieter than quietestRoom.
        let silence = LoudnessTrack(energies: run(0, 100) + run(45, 30) + run(0, 50))
        #expect(silence.utterance(after: 1000) == .none)
        #expect(LoudnessTrack.quietestRoom + 12 > 45)
    }

    @Test func samplesAreMeasuredIn10msFramesAndTheLast8sAreKept() {
        var track = LoudnessTrack()
        // 15 ms of amplitude 1000 (60 dB), then 5 ms more: two whole frames, nothing half-measured.
        track.measure(Array(repeating: 1000, count: 240))
        #expect(track.energies.count == 1)
        track.measure(Array(repeating: 1000, count: 80))
        #expect(track.energies.count == 2 && abs(track.energies[0] - 60) < 0.01)
        track.measure(Array(repeating: 0, count: 16_000 * 9))
        #expect(track.energies.count == 800 && track.base == 902 - 800, "8 s kept, counted from the start")
        #expect(track.energies.last == 0)
    }
}

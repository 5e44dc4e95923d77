import Foundation
import HostTesting
import Interaction
import Testing
import Voice

/// The keyword spotter's layers each on its own, given literal 10 ms loudnesses and detections, with no
/// recogniser: the pause rules, the referee between rival phrases, the phrases held and heard once, utterances said
/// alone, verdicts over Assist's sound, the quiet room passed over, and the per-phrase thresholds.
@Suite("Voice layers")
struct VoiceLayerTests {
    /// A loudness track of 10 ms frames: each part is a loudness (dB) held for a number of milliseconds.
    func track(_ parts: [(db: Float, ms: Int)]) -> LoudnessTrack {
        LoudnessTrack(energies: parts.flatMap { Array(repeating: $0.db, count: $0.ms / 10) })
    }

    func heard(_ phrase: String, _ startMs: Int, _ endMs: Int) -> Detection {
        Detection(phrase: phrase, startMs: startMs, endMs: endMs, score: -1_000)
    }

    /// Phones by phrase, as the dictionary would count them: "stop" and "next" are short, the others long.
    func phones(_ phrase: String) -> Int { phrase.split(separator: " ").count == 1 ? 4 : 8 }

    let room: Float = 40
    let voice: Float = 70

    func rules(_ texts: [String], standalone: Bool = true, takesWords: Set<String> = []) -> PauseRules {
        var rules = PauseRules(standalone: standalone, takesWords: takesWords)
        rules.listen(for: texts, aloneBelow: KeywordSpotter.alwaysMinimumPhones, phones: phones)
        return rules
    }

    // MARK: Pause rules

    /// At any time a phrase said after a pause and followed by one is a command; the same words inside talk are
    /// not, and until enough is heard after it, it waits.
    @Test func aPhraseBetweenPausesIsACommandAndInsideTalkItIsNot() {
        let rules = rules(["read text", "stop"])
        let alone = track([(room, 1_000), (voice, 500), (room, 1_000)])
        let phrase = heard("read text", 1_000, 1_500)
        #expect(rules.beginsAfterAPause(phrase, in: alone))
        #expect(rules.after(phrase, in: alone, fedMs: 2_500) == .command)

        let talk = track([(voice, 1_000), (voice, 500), (voice, 1_000)])
        #expect(!rules.beginsAfterAPause(phrase, in: talk))
        #expect(rules.after(phrase, in: talk, fedMs: 2_500) == .speech)

        let cut = track([(room, 1_000), (voice, 500), (room, 100)])
        #expect(rules.after(phrase, in: cut, fedMs: 1_600) == .waiting)
    }

    /// A single word wants the whole 450 ms before it quiet; a longer phrase only the pause just before it. Talk
    /// that ended 200 ms before each: the phrase is a command, the word is not.
    @Test func aSingleWordWantsALongerPauseBeforeItThanAPhrase() {
        let rules = rules(["read text", "stop"])
        #expect(rules.alonePhrases == ["stop"])
        let sound = track([(room, 500), (voice, 300), (room, 200), (voice, 400), (room, 1_000)])
        #expect(rules.after(heard("read text", 1_000, 1_400), in: sound, fedMs: 2_400) == .command)
        #expect(rules.after(heard("stop", 1_000, 1_400), in: sound, fedMs: 2_400) == .speech)
    }

    /// Outside always-on listening, for a phrase that takes words and for one said over Assist's sound, no
    /// pause is asked for.
    @Test func noPauseIsAskedForWhereWordsFollowOrAssistSpeaks() {
        let talk = track([(voice, 2_500)])
        let phrase = heard("find text", 1_000, 1_500)
        #expect(rules(["find text"], standalone: false).after(phrase, in: talk, fedMs: 2_500) == .command)
        #expect(rules(["find text"], takesWords: ["find text"]).after(phrase, in: talk, fedMs: 2_500) == .command)
        var over = phrase
        over.overSound = true
        #expect(rules(["find text"]).after(over, in: talk, fedMs: 2_500) == .command)
        #expect(rules(["find text"]).after(phrase, in: talk, fedMs: 2_500) == .speech)
    }

    /// A phrase inside a longer one in the list waits `holdMs` for it, but at any time no longer than the pause a
    /// single word wants after it; other phrases do not wait.
    @Test func aPhraseInsideALongerOneWaitsForIt() {
        let texts = ["stop", "stop photo sensor", "read text"]
        let sound = track([(room, 1_000), (voice, 300), (room, 1_000)])
        let stop = heard("stop", 1_000, 1_300)
        #expect(rules(texts).shortPhrases == ["stop"])
        #expect(rules(texts, standalone: false).holdMs(for: stop, in: sound) == PauseRules.holdMs)
        #expect(rules(texts).holdMs(for: stop, in: sound) == 0)
        let goesOn = track([(room, 1_000), (voice, 1_300)])
        #expect(rules(texts).holdMs(for: stop, in: goesOn) == PauseRules.holdMs)
        #expect(rules(texts).holdMs(for: heard("read text", 1_000, 1_300), in: goesOn) == 0)
    }

    // MARK: Referee

    let list =
        ["start photo sensor", "stop photo sensor", "photo sensor status", "read text", "find text", "next"]
        .map { KeyPhrase($0) } + [KeyPhrase("back")]

    /// Rivals share words in the same places or lie inside each other; single words are rivals only where each
    /// must be said alone.
    @Test func rivalsShareWordsInTheSamePlaces() {
        let referee = Referee(phrases: list, alonePhrases: ["next", "back"])
        #expect(referee.contest(for: "start photo sensor") == ["start photo sensor", "stop photo sensor"])
        #expect(referee.contest(for: "find text") == ["read text", "find text"])
        #expect(referee.contest(for: "next") == ["next", "back"])
        #expect(referee.contest(for: "photo sensor status").isEmpty)
        #expect(!referee.areRivals(KeyPhrase("photo sensor status"), KeyPhrase("start photo sensor")))
        #expect(Referee(phrases: list).contest(for: "next").isEmpty)
        #expect(Referee(phrases: [KeyPhrase("stop"), KeyPhrase("stop photo sensor")]).contestable.count == 2)
    }

    /// A single word said alone is checked against the longer phrases that begin as it sounds.
    @Test func aSingleWordIsCheckedAgainstPhrasesThatBeginAsItSounds() {
        let phrases = [
            "read text", "repeat", "stop", "start survey", "stop photo sensor", "help", "photo sensor status",
        ]
        let referee = Referee(phrases: phrases.map { KeyPhrase($0) }, alonePhrases: ["repeat", "stop", "help"])
        #expect(referee.alike(for: "repeat") == ["read text"])
        #expect(referee.alike(for: "stop") == ["start survey", "stop photo sensor"])
        #expect(referee.alike(for: "help").isEmpty)
        #expect(referee.alike(for: "read text").isEmpty)
        #expect(Referee(phrases: phrases.map { KeyPhrase($0) }).alike(for: "repeat").isEmpty, "not said alone")
    }

    /// The referee's decode stands when it hears one of the rivals; what it hears outside them, or nothing,
    /// leaves the phrase as spotted; a phrase with no rival is never decoded again.
    @Test func theRefereeDecidesBetweenRivalsOnly() {
        let referee = Referee(phrases: list, alonePhrases: ["next", "back"])
        var offered: [String] = []
        #expect(
            referee.decide("start photo sensor") {
                offered = $0; return "stop photo sensor"
            } == "stop photo sensor")
        #expect(offered == ["start photo sensor", "stop photo sensor"])
        #expect(referee.decide("read text") { _ in "next" } == nil)
        #expect(referee.decide("read text") { _ in nil } == nil)
        var asked = false
        #expect(
            referee.decide("photo sensor status") { _ in
                asked = true; return "photo sensor status"
            } == nil)
        #expect(!asked)
    }

    // MARK: Held and heard once

    /// A phrase inside a longer one heard over the same sound is dropped for it, and not held again after it.
    @Test func aLongerPhraseOverTheSameSoundReplacesTheShorter() {
        var holding = HeldPhrases()
        holding.hold(heard("stop", 1_000, 1_300))
        holding.hold(heard("stop photo sensor", 1_000, 2_000))
        #expect(holding.held.map(\.phrase) == ["stop photo sensor"])
        holding.hold(heard("stop", 1_050, 1_300))
        #expect(holding.held.map(\.phrase) == ["stop photo sensor"])
        holding.hold(heard("stop", 4_000, 4_300))
        #expect(holding.held.map(\.phrase) == ["stop photo sensor", "stop"])
    }

    /// The same phrase, or another search's phrase over more than half of the shorter one's sound, counts once
    /// for 2 s after it was reported; a phrase inside it is not the same words heard again.
    @Test func aPhraseHeardTwiceCountsOnce() {
        var holding = HeldPhrases()
        holding.report([heard("read text", 1_000, 1_500)], fedMs: 1_600)
        #expect(holding.isRepeat(heard("read text", 1_100, 1_500)))
        #expect(holding.isRepeat(heard("find text", 1_050, 1_500)))
        #expect(holding.isRepeat(heard("find text", 1_250, 1_650)))
        #expect(!holding.isRepeat(heard("find text", 1_400, 1_800)))
        #expect(!holding.isRepeat(heard("text", 1_200, 1_500)))
        #expect(!holding.isRepeat(heard("read text", 5_000, 5_500)))
        holding.report([], fedMs: 3_600)
        #expect(!holding.isRepeat(heard("read text", 1_100, 1_500)))
    }

    // MARK: Utterances said alone

    /// A phrase the pause rules dropped is judged with its whole utterance once, when the utterance has ended: a
    /// command the judge is sure of is heard there; the utterance is not judged twice.
    @Test func anUtteranceSaidAloneIsJudgedOnceWhole() {
        var utterances = AloneUtterances()
        utterances.add(heard("next", 1_200, 1_400))
        let holding = HeldPhrases()
        var asked: [Range<Int>] = []
        let early = track([(room, 1_000), (voice, 600), (room, 100)])
        #expect(utterances.judge(loudness: early, fedMs: 1_700, phrases: holding) { _, _, _ in ("next", 1) }.isEmpty)
        #expect(utterances.waiting.count == 1)

        let sound = track([(room, 1_000), (voice, 600), (room, 1_000)])
        let found = utterances.judge(loudness: sound, fedMs: 2_600, phrases: holding) { from, to, span in
            asked.append(span)
            #expect(from == span.lowerBound - 300 && to == span.upperBound + 300)
            return ("next", 0.99)
        }
        #expect(found.map(\.phrase) == ["next"])
        #expect(found.first?.startMs == 1_000 && found.first?.endMs == 1_600 && found.first?.confidence == 0.99)
        #expect(asked == [1_000..<1_600])
        utterances.add(heard("back", 1_300, 1_500))
        #expect(utterances.judge(loudness: sound, fedMs: 2_600, phrases: holding) { _, _, _ in ("back", 1) }.isEmpty)
    }

    /// What the judge is not sure of is no command; an utterance with a phrase still held waits for it, and one
    /// where a phrase was reported stands as it is.
    @Test func anUtteranceTheJudgeDoubtsOrAPhraseCoversIsNoCommand() {
        let sound = track([(room, 1_000), (voice, 600), (room, 1_000)])
        var unsure = AloneUtterances()
        unsure.add(heard("next", 1_200, 1_400))
        var lines: [String] = []
        let doubted = unsure.judge(loudness: sound, fedMs: 2_600, phrases: HeldPhrases(), trace: { lines.append($0) }) {
            _, _, _ in ("next", CommandConfidence.aloneAt - 0.01)
        }
        #expect(doubted.isEmpty && lines == ["the utterance 1000–1600 ms said alone is no command it is sure of"])

        var held = HeldPhrases()
        held.hold(heard("read text", 1_100, 1_500))
        var waits = AloneUtterances()
        waits.add(heard("next", 1_200, 1_400))
        #expect(waits.judge(loudness: sound, fedMs: 2_600, phrases: held) { _, _, _ in ("next", 1) }.isEmpty)
        #expect(waits.waiting.count == 1)

        var reported = HeldPhrases()
        reported.report([heard("read text", 1_100, 1_500)], fedMs: 2_600)
        var stands = AloneUtterances()
        stands.add(heard("next", 1_200, 1_400))
        var asked = false
        #expect(
            stands.judge(loudness: sound, fedMs: 2_600, phrases: reported) { _, _, _ in
                asked = true
                return ("next", 1)
            }.isEmpty)
        #expect(!asked && stands.waiting.isEmpty)
    }

    // MARK: Over Assist's sound

    /// Two spoken forms of one phrase over the same sound are judged once; no verdict is confidence 0 (nothing
    /// acts on a guess); a verdict is forgotten 5 s later.
    @Test func aPhraseOverAssistsSoundIsJudgedOnce() {
        var verdicts = OverSoundVerdicts()
        var judged = 0
        let first = verdicts.verdict(on: heard("back", 2_000, 2_300), fedMs: 2_500) {
            judged += 1
            return ("faster", 0.9)
        }
        #expect(first.phrase == "faster" && first.confidence == 0.9)
        let again = verdicts.verdict(on: heard("back", 2_050, 2_320), fedMs: 2_600) {
            judged += 1
            return ("back", 0.9)
        }
        #expect(again.phrase == "faster" && judged == 1)
        let none = verdicts.verdict(on: heard("stop", 4_000, 4_300), fedMs: 4_500) { nil }
        #expect(none.phrase == "stop" && none.confidence == 0)
        _ = verdicts.verdict(on: heard("next", 12_000, 12_300), fedMs: 12_500) { ("next", 1) }
        _ = verdicts.verdict(on: heard("back", 2_000, 2_300), fedMs: 12_600) {
            judged += 1
            return ("back", 0.8)
        }
        #expect(judged == 2)
    }

    // MARK: A quiet room

    /// A room quiet for 600 ms after the first 2 s is passed over but for its last 300 ms, which is decoded before
    /// the next sound; a word's onset in the last 200 ms keeps it decoded.
    @Test func aQuietRoomIsPassedOverButForItsLast300Ms() {
        #expect(!QuietRoom.passesOver(track([(room, 1_500)]), fedMs: 1_500))
        #expect(QuietRoom.passesOver(track([(room, 2_500)]), fedMs: 2_500))
        #expect(!QuietRoom.passesOver(track([(room, 2_300), (voice, 200)]), fedMs: 2_500))
        var quiet = QuietRoom()
        let chunk = [Int16](repeating: 1, count: 3_200)
        #expect(quiet.fresh(chunk, passOver: true).isEmpty)
        #expect(quiet.fresh(chunk, passOver: true).count == 1_600)
        let word = [Int16](repeating: 9, count: 320)
        let fed = quiet.fresh(word, passOver: false)
        #expect(fed.count == 4_800 + 320 && fed.suffix(320) == word[...])
        #expect(quiet.fresh(word, passOver: false) == word)
    }

    // MARK: Thresholds

    /// A user's tuning over the shipped one phrase by phrase; lines that are comments, malformed or out of
    /// 0…1 are skipped; phrases normalised; the default where none is set; the written text reads back the same.
    @Test func thresholdsAreReadPerPhraseAndAUsersTuningWins() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thresholds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let share = folder.appendingPathComponent("share")
        let data = folder.appendingPathComponent("data")
        for base in [share, data] {
            try FileManager.default.createDirectory(
                at: base.appendingPathComponent("voice"), withIntermediateDirectories: true)
        }
        try "# shipped\nRead  Text\t1e-30\nstop\t1e-10\nnext\t2\nback 1e-5\npause\tx\n".write(
            to: VoiceThresholds.file(in: share.appendingPathComponent("voice"), language: "en"), atomically: true,
            encoding: .utf8)
        try "stop\t1e-15\n".write(
            to: VoiceThresholds.file(in: data.appendingPathComponent("voice"), language: "en"), atomically: true,
            encoding: .utf8)
        let loaded = VoiceThresholds.load(data: data, share: share, language: "en")
        #expect(loaded.values == ["read text": 1e-30, "stop": 1e-15])
        #expect(VoiceThresholds.load(data: data, share: share, language: "es").values.isEmpty)
        let phrases = loaded.apply(to: ["Read text", "next"])
        #expect(phrases == [KeyPhrase("read text", threshold: 1e-30), KeyPhrase("next")])
        let written = folder.appendingPathComponent("written.txt")
        try loaded.text(heading: "tuned").write(to: written, atomically: true, encoding: .utf8)
        #expect(VoiceThresholds.read(written) == loaded)
    }
}

/// The microphone's health, said once in the session's words (issue 72: it was English in every language).
@Suite("microphone warnings")
struct SoundLevelTests {
    @Test func tenSecondsOfSilenceAreSaidOnceInEachLanguage() {
        var level = SoundLevel()
        let silent = [Int16](repeating: 0, count: VoiceListener.chunkFrames)
        var warnings: [SoundLevel.Warning] = []
        for _ in 0..<(16_000 * 12 / VoiceListener.chunkFrames) {
            if let warning = level.add(silent) { warnings.append(warning) }
        }
        #expect(warnings == [.silent])
        let share = BuildProducts.packageRoot.appendingPathComponent("share/assist/host")
        let english = PhraseBook(directory: share, language: "en").text(SoundLevel.Warning.silent.key)
        #expect(english == SoundLevel.Warning.silent.english)
        for language in ["es", "ru", "zh"] {
            let said = PhraseBook(directory: share, language: language).text(SoundLevel.Warning.silent.key)
            #expect(said != english && !said.isEmpty, "\(language): \(said)")
        }
    }

    /// Issue 71's bad input: a microphone stuck at one level away from zero is silent too, and one whose sound
    /// sits far from zero (a DC offset) is named once, in each language; speech and a quiet room are neither.
    @Test func aStuckLevelIsSilenceAndAnOffsetIsSaidOnce() {
        func warnings(seconds: Int, _ sample: (Int) -> Int16) -> [SoundLevel.Warning] {
            var level = SoundLevel()
            var said: [SoundLevel.Warning] = []
            var index = 0
            for _ in 0..<(16_000 * seconds / VoiceListener.chunkFrames) {
                let chunk = (0..<VoiceListener.chunkFrames).map { _ in
                    index += 1
                    return sample(index)
                }
                if let warning = level.add(chunk) { said.append(warning) }
            }
            return said
        }
        #expect(warnings(seconds: 12) { _ in 3_000 } == [.offset, .silent], "stuck away from zero")
        // A tone of 200 Hz at a tenth of full scale riding on an offset of 4,000: speech-like, not silent.
        let offset = warnings(seconds: 12) { 4_000 + Int16(3_000 * sin(Double($0) * 2 * .pi * 200 / 16_000)) }
        #expect(offset == [.offset], "\(offset)")
        let clean = warnings(seconds: 12) { Int16(3_000 * sin(Double($0) * 2 * .pi * 200 / 16_000)) }
        #expect(clean.isEmpty, "\(clean)")
        let room = warnings(seconds: 12) { _ in Int16.random(in: -40...40) }
        #expect(room.isEmpty, "\(room)")
        let share = BuildProducts.packageRoot.appendingPathComponent("share/assist/host")
        let english = PhraseBook(directory: share, language: "en").text(SoundLevel.Warning.offset.key)
        #expect(english == SoundLevel.Warning.offset.english)
        for language in ["es", "ru", "zh"] {
            let said = PhraseBook(directory: share, language: language).text(SoundLevel.Warning.offset.key)
            #expect(said != english && !said.isEmpty && said != SoundLevel.Warning.offset.key, "\(language): \(said)")
        }
    }
}

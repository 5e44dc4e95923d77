import Audio
import Foundation
import HostTesting
import Testing
import Voice

/// What follows a phrase, or a question's answer (`ArgumentFollower`), fed espeak-ng's words through the recogniser
/// in this process: the utterance awaited is decoded once, and one the echo canceller says is Assist's own voice is
/// passed over undecoded, the words awaited after it.
@Suite("What follows a phrase")
struct ArgumentFollowerTests {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("assist-follower") }

    /// espeak-ng saying `text`, at the recogniser's 16 kHz.
    func spoken(_ text: String) throws -> [Int16] { try SyntheticVoice.speak(text, in: folder) }

    static func silence(_ seconds: Double) -> [Int16] { [Int16](repeating: 0, count: Int(seconds * 16_000)) }

    /// Feeds `sound` in 20 ms chunks and steps `follower` after each: its first outcome, and how much was fed then.
    static func follow(_ follower: ArgumentFollower, _ spotter: KeywordSpotter, _ sound: [Int16]) -> (
        outcome: ArgumentFollower.Outcome, atMs: Int
    )? {
        for start in stride(from: 0, to: sound.count, by: 320) {
            _ = spotter.feed(Array(sound[start..<min(sound.count, start + 320)]))
            if let outcome = follower.step(spotter) { return (outcome, spotter.heardMs) }
        }
        return nil
    }

    @Test func anUtteranceThatIsAssistsOwnVoiceIsPassedOverAndTheNextIsDecoded() throws {
        guard let model = VoiceModel.english(data: folder.url) else { return }
        // Assist's menu, as its echo would come back, then a person's answer.
        let menu = try spoken("Choose a feature. One, collect videos. Two, find object. Three, read text.")
        let answer = try spoken("three")
        let sound = Self.silence(1) + menu + Self.silence(1) + answer + Self.silence(1.5)
        let menuEndMs = 1_000 + menu.count / 16
        let choices = ArgumentFollower.Wanted.choices(["one", "two", "three"], prompt: nil)

        // Without the canceller's word, the menu's echo is what is decoded first.
        let plain = try KeywordSpotter(model: model, phrases: [KeyPhrase("stop")])
        let unaided = ArgumentFollower(phrase: "", wanted: choices, afterMs: 0, waitMs: 60_000)
        let first = try #require(Self.follow(unaided, plain, sound))
        #expect((unaided.span?.startMs ?? .max) < menuEndMs, "\(first)")

        // Told the menu is Assist's own voice, the follower passes over it (asked once, not decoded) and takes
        // the answer after it.
        let spotter = try KeywordSpotter(model: model, phrases: [KeyPhrase("stop")])
        let follower = ArgumentFollower(phrase: "", wanted: choices, afterMs: 0, waitMs: 60_000)
        var asked: [Range<Int>] = []
        follower.passOver = { from, to in
            asked.append(from..<to)
            return from < menuEndMs
        }
        let heard = try #require(Self.follow(follower, spotter, sound))
        #expect(heard.outcome == .words("three"), "\(heard), asked \(asked)")
        #expect((follower.span?.startMs ?? 0) >= menuEndMs, "\(String(describing: follower.span))")
        #expect(asked.filter { $0.lowerBound < menuEndMs }.count >= 1, "\(asked)")

        // Passed over, the wait still ends when it would have: nothing said after the echo is nothing.
        let quiet = try KeywordSpotter(model: model, phrases: [KeyPhrase("stop")])
        let waiting = ArgumentFollower(phrase: "", wanted: choices, afterMs: 0, waitMs: menuEndMs + 1_000)
        waiting.passOver = { from, _ in from < menuEndMs }
        let nothing = try #require(Self.follow(waiting, quiet, Self.silence(1) + menu + Self.silence(3)))
        #expect(nothing.outcome == .nothing)
        #expect(nothing.atMs <= menuEndMs + 1_100, "\(nothing)")
    }
}

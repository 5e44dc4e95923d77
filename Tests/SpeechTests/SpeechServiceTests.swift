import Audio
import Foundation
import HostTesting
import Interaction
import Speech
import Testing

/// Speech through espeak-ng, the mixer and a WAV file, measured on the audio written. espeak-ng is
/// process-global, so these run one at a time.
@Suite("Speech on real audio", .serialized)
struct SpeechServiceTests {
    static func done(_ events: [SpeechRig.Event]) -> [UInt64] {
        events.compactMap { if case .done(let id, _) = $0 { return id } else { return nil } }
    }

    @Test func speechIsWrittenAsRealAudioInEnglishRussianAndMandarin() throws {
        let rig = try SpeechRig()
        let english = try #require(rig.say("Hello from Assist."))
        let russian = try #require(
            rig.speech.speak(Utterance("Привет, мир.", language: "ru"), callbacks: rig.callbacks))
        let mandarin = try #require(rig.speech.speak(Utterance("你好世界", language: "zh"), callbacks: rig.callbacks))
        #expect(rig.wait { Self.done($0).count == 3 })
        #expect(Self.done(rig.events) == [english, russian, mandarin])
        #expect(rig.events.contains(.done(mandarin, .finished)))
        let sound = try rig.finish()
        #expect(sound.file.durationSeconds > 1.5)
        #expect(sound.rms(0) > 0.02, "not silence")
        #expect(abs(sound.rms(0) - sound.rms(1)) < 0.001, "speech is centred")
    }

    @Test func wordEventsCarryCharacterOffsetsInOrder() throws {
        let rig = try SpeechRig()
        let id = try #require(rig.say("Ünïcode words are counted as characters"))
        #expect(rig.wait { $0.contains(.done(id, .finished)) })
        let offsets = rig.events.compactMap { if case .word(_, let offset) = $0 { return offset } else { return nil } }
        #expect(offsets == [0, 8, 14, 18, 26, 29])
        _ = try rig.finish()
    }

    @Test func stopCancelsAtOnceAndTruncatesTheAudio() throws {
        let long = String(repeating: "This sentence goes on for a while. ", count: 40)
        let rig = try SpeechRig()
        let id = try #require(rig.say(long))
        #expect(rig.wait { $0.contains { if case .word = $0 { true } else { false } } })
        usleep(300_000)
        #expect(rig.speech.stop(id: id))
        #expect(rig.events.last == .done(id, .cancelled), "reported at once, as cancelled")
        let sound = try rig.finish()
        #expect(sound.file.durationSeconds < 1.0, "about 0.3 s of a minute-long text")
        #expect(!rig.speech.stop(id: id), "already ended")
    }

    @Test func importantPostponesAMessageWhichResumesAtItsWord() throws {
        let rig = try SpeechRig()
        let message = try #require(rig.say("one two three four five six seven eight nine ten eleven twelve"))
        #expect(rig.wait { $0.filter { if case .word = $0 { true } else { false } }.count >= 3 })
        let dropped = try #require(rig.say("low battery", priority: .notification))
        let alert = try #require(rig.say("Attention", priority: .important))
        #expect(rig.wait { $0.contains(.done(message, .finished)) })
        #expect(Self.done(rig.events) == [dropped, alert, message])
        #expect(rig.events.contains(.done(dropped, .cancelled)))
        // The words of the message before and after the alert: the last one heard is heard again first.
        let words = rig.events.compactMap { event -> (UInt64, Int)? in
            if case .word(let id, let offset) = event { return (id, offset) } else { return nil }
        }
        let alertAt = try #require(words.firstIndex { $0.0 == alert })
        let before = try #require(words[..<alertAt].last)
        let after = try #require(words[alertAt...].first { $0.0 == message })
        #expect(before.0 == message && after.1 == before.1)
        _ = try rig.finish()
    }

    @Test func pauseStopsAtOnceAndResumeRestartsAtTheWord() throws {
        let rig = try SpeechRig()
        let id = try #require(
            rig.say("alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima", owner: 3))
        #expect(rig.wait { $0.filter { if case .word = $0 { true } else { false } }.count >= 4 })
        #expect(rig.speech.pause(owner: 3))
        let heard = rig.events
        let otherOwner = try #require(rig.say("meanwhile", owner: 4))
        #expect(rig.wait { $0.contains(.done(otherOwner, .finished)) }, "other owners speak while 3 is paused")
        #expect(!rig.events.contains(.done(id, .finished)))
        rig.speech.resume(owner: 3)
        #expect(rig.wait { $0.contains(.done(id, .finished)) })
        guard case .word(_, let lastBefore) = heard.last(where: { if case .word(id, _) = $0 { true } else { false } })
        else { return }
        let resumed = rig.events.dropFirst(heard.count).first { if case .word(id, _) = $0 { true } else { false } }
        #expect(resumed == .word(id, lastBefore), "resumes at the word being heard")
        _ = try rig.finish()
    }

    /// The push-to-talk key held: a plugin's reading and a host sentence queued before the key stop and wait, as
    /// does what the plugin says while it is down; the host's answer said then ("Heard: …") is spoken; once the
    /// hold ends the reading goes on at the word it was at, then the rest, in order.
    @Test func aHoldForListeningStopsWhatIsSaidAndLetsTheAnswerThrough() throws {
        let rig = try SpeechRig()
        let reading = try #require(
            rig.say("alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima", owner: 3))
        let menu = try #require(rig.say("Choose a feature.", owner: 0))
        #expect(rig.wait { $0.filter { if case .word = $0 { true } else { false } }.count >= 4 })
        rig.speech.holdForListening()
        let heard = rig.events
        let more = try #require(rig.say("more of the page", owner: 3))
        let answer = try #require(rig.say("Heard: faster.", priority: .important, owner: 0))
        #expect(rig.wait { $0.contains(.done(answer, .finished)) }, "the host's answer is spoken while held")
        usleep(300_000)
        let done = Self.done(rig.events)
        #expect(done == [answer], "nothing else spoke while held: \(rig.events.dropFirst(heard.count))")
        #expect(!rig.events.dropFirst(heard.count).contains { if case .word(reading, _) = $0 { true } else { false } })
        rig.speech.endListeningHold()
        #expect(rig.wait { $0.contains(.done(more, .finished)) })
        #expect(Self.done(rig.events) == [answer, reading, menu, more])
        guard
            case .word(_, let lastBefore) = heard.last(where: { if case .word(reading, _) = $0 { true } else { false } }
            )
        else { return }
        let resumed = rig.events.dropFirst(heard.count).first {
            if case .word(reading, _) = $0 { true } else { false }
        }
        #expect(resumed == .word(reading, lastBefore), "resumes at the word being heard")
        _ = try rig.finish()
    }

    @Test func cuesDuck12DecibelsUnderSpeech() throws {
        let rig = try SpeechRig()
        rig.cues.guidance(.continuous, intensity: 1, pan: -1)
        usleep(400_000)
        let id = try #require(rig.say("Speech over a cue"))
        #expect(rig.wait { $0.contains(.done(id, .finished)) })
        usleep(300_000)
        rig.cues.stop()
        let sound = try rig.finish()
        // Left has cue and speech; right has only speech (the cue is panned hard left).
        let alone = sound.strength(ofHz: 784, channel: 0, fromSeconds: 0.1, seconds: 0.25)
        let speechStart = try #require(sound.onsets(channel: 1, threshold: 0.01).first)
        let under = sound.strength(ofHz: 784, channel: 0, fromSeconds: speechStart + 0.1, seconds: 0.25)
        #expect(abs(under / alone - 0.251) < 0.08, "ducked by about 12 dB: \(under / alone)")
    }

    @Test func badInputNeverHangsTheQueue() throws {
        let rig = try SpeechRig()
        #expect(rig.say("") == nil && rig.say("  \n\t ") == nil, "nothing to say")
        let control = try #require(rig.say("bell\u{7}and\u{0}null"))
        let unknownVoice = try #require(rig.say("still spoken", voice: "xx-nonexistent"))
        let huge = try #require(rig.say(String(repeating: "word ", count: 20_000)))
        #expect(rig.wait { $0.contains(.done(unknownVoice, .finished)) })
        #expect(rig.events.contains(.done(control, .finished)))
        usleep(200_000)
        rig.speech.stopAll()
        #expect(rig.events.contains(.done(huge, .cancelled)))
        let after = try #require(rig.say("after"))
        #expect(rig.wait { $0.contains(.done(after, .finished)) }, "the queue still works")
        _ = try rig.finish()
    }
}

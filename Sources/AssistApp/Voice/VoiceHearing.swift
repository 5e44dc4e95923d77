import Audio
import Foundation
import Interaction
import PluginHost
import Runtime
import Speech
import Voice

/// The listening thread of a voice session (`VoiceSession`): reads the microphone in 20 ms chunks, feeds the
/// spotter, and follows what is heard through its states: a window's command, the words after a phrase, the
/// answer to a question; then acts on it as if typed, on the main loop. What the main loop sets for it (the
/// phrases, the question, the window) is `shared`.
final class VoiceHearing: @unchecked Sendable {  // because: its vars are the thread's; others touch `shared`, locked
    /// The listening thread's state in a push-to-talk or wake-word window.
    private struct Window {
        /// The last window it saw (`VoiceShared.windows`).
        var seen = 0
        /// The command awaited in the open one.
        var follower: ArgumentFollower?
        /// Where in the sound fed the last window opened, and where the last utterance decoded in one ended
        /// (ms): an answer is listened for after both.
        var fromMs = 0
        var decodedToMs = 0
    }

    let mode: VoiceSession.Mode
    /// What the main loop and this thread share.
    let shared = Locked(VoiceShared())
    /// The wake phrase (`voice.wake-phrase`), normalised.
    let wakePhrase: String
    /// Assist's own sound at the microphone.
    let own: OwnSound
    /// `ASSIST_VOICE_TRACE` of the session's environment.
    let trace: VoiceTrace
    private let session: HostSession
    private let model: VoiceModel
    private let microphone: AudioInputSpec
    /// The phrase heard whose words are awaited, and its detection.
    private var following: (detection: Detection, follower: ArgumentFollower)?
    /// The answer to the question asked, awaited.
    private var answering: ArgumentFollower?
    /// Whether an answer is being said now (the sound held for it stays held until it is decoded).
    private var answerSpoken = false
    private var window = Window()
    /// The phrase last acted on and when (monotonic seconds).
    private var lastActed: (phrase: String, at: Double)?

    init(
        session: HostSession, mode: VoiceSession.Mode, model: VoiceModel, wakePhrase: String,
        echoMode: VoiceSession.EchoMode, microphone: AudioInputSpec
    ) {
        self.session = session
        self.mode = mode
        self.model = model
        self.microphone = microphone
        self.wakePhrase = KeyPhrase.normalise(wakePhrase)
        trace = VoiceTrace(environment: session.environment)
        own = OwnSound(
            session: session, mode: echoMode, microphone: microphone, trace: trace,
            say: VoiceSession.saying(in: session))
    }

    static var now: Double { ProcessInfo.processInfo.systemUptime }

    /// The push-to-talk window opened: what Assist is saying stops at once and waits for the window's outcome
    /// (the command's "Heard: …", the "Sorry" of a sentence that is none, or nothing said), then goes on. Any
    /// thread.
    func holdSpeech() {
        guard let speech = session.sound?.speech else { return }
        shared.withLock { $0.speechHeld = true }
        speech.holdForListening()
        trace.line?("speech held for the push-to-talk window")
    }

    /// Whether speech was held for the window, no longer: the caller lets it go on (after its answer is queued).
    func takeSpeechHold() -> (any SpeechEngine)? {
        let held = shared.withLock { state in
            defer { state.speechHeld = false }
            return state.speechHeld
        }
        return held ? session.sound?.speech : nil
    }

    /// Lets speech held for the window go on (nil: none was held), saying why in the voice trace. Any thread.
    static func endSpeechHold(_ speech: (any SpeechEngine)?, _ why: String = " after the answer", trace: VoiceTrace) {
        guard let speech else { return }
        speech.endListeningHold()
        trace.line?("speech goes on\(why)")
    }

    /// Lets held speech go on once the window is over with nothing to answer: closed with nothing said (the key
    /// up, or the 5 s over, with nobody speaking), or Assist's own voice heard in it.
    private func endSpeechHoldIfOver() {
        guard following == nil, window.follower == nil, !answerSpoken,
            shared.withLock({ $0.speechHeld && Self.now > $0.openUntil }), let speech = takeSpeechHold()
        else { return }
        Self.endSpeechHold(speech, ": the window is over", trace: trace)
    }

    /// In push-to-talk the microphone is open only while the window is (and a moment after, for a phrase
    /// being finished); the other modes keep it open.
    private var wantsMicrophone: Bool {
        mode != .pushToTalk || following != nil || answering != nil || window.follower != nil
            || shared.withLock { Self.now < $0.openUntil + 1.5 }
    }

    private var isRunning: Bool { shared.withLock { $0.running } }

    /// The thread: opens the microphone and the recogniser, then feeds one to the other.
    func listen() {
        // What the echo canceller learnt of the room is kept for the next session, however listening ends.
        defer { own.keepPath(last: true) }
        var spotter: KeywordSpotter?
        var input: AudioInput?
        var level = SoundLevel()
        var saidTrouble = false
        var chunksFed = 0
        let silence = VoiceListener.quietRoom
        while isRunning {
            // A plugin recording has the microphone; it is opened again afterwards.
            if session.services.sound.microphoneUse.inUse || !wantsMicrophone {
                endSpeechHoldIfOver()
                if input != nil, let spotter {
                    own.skip(count: silence.count)
                    for heard in spotter.feed(silence) + spotter.flush() { accept(heard, at: spotter.heardMs) }
                }
                input = nil
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            if input == nil {
                do { input = try VoiceListener.open(microphone) } catch {
                    if !saidTrouble {
                        saidTrouble = true
                        let why = (error as? AudioError)?.message ?? "\(error)"
                        say("Voice commands cannot hear: \(why) Typed and key commands still work.")
                    }
                    Thread.sleep(forTimeInterval: 2)
                    continue
                }
            }
            if let update = phraseUpdate() {
                do {
                    // At any time a phrase too short to be told from everyday talk ("stop", "next") is heard
                    // only when said alone, with a pause before and after it; in a window, all as they come.
                    let alone = mode == .always ? KeywordSpotter.alwaysMinimumPhones : 0
                    if let spotter {
                        try spotter.setPhrases(update, aloneBelow: alone)
                    } else {
                        spotter = try KeywordSpotter(model: model, phrases: update, aloneBelow: alone)
                        let start = Self.now
                        spotter?.prepareJudge()
                        trace.line?("judges ready in \(Int((Self.now - start) * 1000)) ms")
                    }
                    // At any time, a command is said on its own; in a window, it may follow the wake word.
                    spotter?.standalone = mode == .always
                    spotter?.takesWords = shared.withLock { $0.taking.union($0.followers.keys) }
                    spotter?.trace = trace.line
                    trace.line?("listening for \(spotter?.phrases.count ?? 0) phrases: \(update.map(\.text))")
                } catch {
                    say(error.description)
                    return
                }
            }
            guard let input, let spotter else { continue }
            let chunk: [Int16]
            do { chunk = try input.read(frames: VoiceListener.chunkFrames) } catch {
                say(
                    "The microphone stopped: \((error as? AudioError)?.message ?? "\(error)") Typed and key commands still work."
                )
                return
            }
            if chunk.isEmpty {
                // The end of a WAV file standing in for the microphone.
                for heard in spotter.feed(silence) + spotter.flush() { accept(heard, at: spotter.heardMs) }
                return
            }
            let endsAt = input.lastReadEndsAt ?? Self.now
            if let warning = level.add(chunk) { say(session.phrases.text(warning.key)) }
            let fed = own.hearable(chunk, endsAt: endsAt, spotter: spotter)
            chunksFed += 1
            if chunksFed % 50 == 0 {
                let peak = chunk.lazy.map { abs(Int($0)) }.max() ?? 0
                let note =
                    fed.closed ? " (the host sounds: room sound instead)" : fed.cancelled ? " (echo cancelled)" : ""
                trace.line?("fed \(chunksFed) chunks\(note), peak \(peak)")
            }
            trace.sound?(fed.samples)
            for heard in spotter.feed(fed.samples) { accept(heard, at: spotter.heardMs) }
            hearWindow(spotter)
            follow(spotter)
            answer(spotter)
            own.releaseIfNothingHeard(spotter, awaiting: following != nil || (answerSpoken && answering != nil))
            endSpeechHoldIfOver()
        }
    }

    /// Follows a phrase heard that takes words until they are known: one of a list is acted on at once ("find
    /// object cup"); open words are asked about first ("Did you say: exit?"); nothing said acts on the
    /// phrase alone (its feature asks). The listening thread.
    private func follow(_ spotter: KeywordSpotter) {
        guard let (detection, follower) = following else { return }
        if follower.wanted == nil { follower.wanted = shared.withLock { $0.followers[detection.phrase] } }
        guard let outcome = follower.step(spotter) else { return }
        trace.line?("after \(detection.phrase): \(outcome)")
        switch outcome {
        case .words(let words):
            following = nil
            if follower.wanted == .text {
                confirm(detection.phrase, words)
            } else {
                act(on: "\(detection.phrase) \(words)")
            }
        case .prompt(let prompt):
            follower.listenAgain(fromMs: spotter.heardMs)
            let until = Self.now + Double(ArgumentFollower.afterPromptMs) / 1000
            shared.withLock { $0.openUntil = max($0.openUntil, until) }
            say(prompt)
        case .nothing, .rejected:
            following = nil
            act(on: detection.phrase)
        }
    }

    /// Inside a push-to-talk or wake-word window the user is saying a command: the window's utterance is
    /// decoded once as one of the phrases (a phrase that takes one of a list, with each word of it). A phrase
    /// that takes open words has them dictated from the same utterance, or followed after it. The listening
    /// thread.
    private func hearWindow(_ spotter: KeywordSpotter) {
        let (serial, open, lists, question) = shared.withLock {
            ($0.windows, Self.now <= $0.openUntil, $0.followers, $0.question.wanted != nil)
        }
        if serial != window.seen { window.fromMs = spotter.heardMs - 300 }
        // A question's answer is listened for as a choice of its own.
        if question {
            window.seen = serial
            window.follower = nil
            return
        }
        if serial != window.seen, following == nil, answering == nil {
            window.seen = serial
            // The tap comes just before the words: a little of the sound before it counts.
            window.follower = ArgumentFollower.window(
                phrases: spotter.phrases.map(\.text).filter { $0 != wakePhrase || mode != .wakeWord }, lists: lists,
                fromMs: spotter.heardMs - 300, waitMs: 60_000)
            window.follower?.passOver = own.passOver("window \(serial): Assist's own voice, not a command")
            trace.line?("window \(serial) opened at \(spotter.heardMs) ms")
        }
        guard let follower = window.follower else { return }
        guard let outcome = follower.step(spotter) else {
            if !open, spotter.utterance(after: spotter.heardMs - 300) == .none {
                window.follower = nil
                trace.line?("window \(serial) closed with nothing said")
            }
            return
        }
        window.follower = nil
        if let span = follower.span { window.decodedToMs = span.endMs }
        trace.line?("window \(serial): \(outcome)")
        if case .rejected = outcome { return reject() }
        guard case .words(let phrase) = outcome, let span = follower.span else { return }
        switch lists[phrase] {
        case .text:
            // "find text emergency exit" in one breath: the words after the phrase, dictated.
            takeWords(after: phrase, wanted: .text, span: span, spotter: spotter)
        case .choices:
            // The phrase alone: the list (and its question) after it.
            startFollowing(phrase, wanted: lists[phrase], afterMs: span.endMs, startMs: span.startMs)
        case nil:
            act(on: phrase)
        }
    }

    private func startFollowing(_ phrase: String, wanted: ArgumentFollower.Wanted?, afterMs: Int, startMs: Int) {
        let detection = Detection(phrase: phrase, startMs: startMs, endMs: afterMs, score: 0)
        following = (
            detection,
            ArgumentFollower(phrase: phrase, wanted: wanted, afterMs: afterMs, phraseStartMs: startMs)
        )
        shared.withLock { $0.openUntil = max($0.openUntil, Self.now + 3) }
    }

    /// While a yes-or-no question is asked, listens for its answer and gives it as if typed. The listening
    /// thread.
    private func answer(_ spotter: KeywordSpotter) {
        // While the words after a phrase are awaited they are no answer: the answer is listened for after them.
        let asked = shared.withLock { $0.question }
        guard following == nil, let wanted = asked.wanted else {
            answering = nil
            return
        }
        let likely = asked.likely
        if answering == nil {
            // In push-to-talk the answer, too, is said with the key down (or just after a voice command).
            guard mode != .pushToTalk || shared.withLock({ Self.now <= $0.openUntil + 1.5 }) else { return }
            // With the key down, what is said is the answer even when the question came as it was being said
            // (the menu came up while the user spoke): it is listened for from just before those words.
            let from =
                mode == .pushToTalk
                ? spotter.answerStart(nowMs: spotter.heardMs, openedMs: max(window.fromMs, window.decodedToMs))
                : spotter.heardMs
            if from < spotter.heardMs { trace.line?("answer: listened for from \(from) ms, as it was said") }
            answering = ArgumentFollower(phrase: "", wanted: wanted, afterMs: from, waitMs: 60_000)
            // Talk that is no answer is no "yes": the answer is judged as a window's command is.
            answering?.judged = true
            answering?.likely = likely
            // Assist's own voice coming back (the question itself, as it is read) is no answer: passed over,
            // undecoded and silently.
            answering?.passOver = own.passOver("answer: Assist's own voice, not an answer")
        } else if answering?.wanted != wanted || answering?.likely != likely {
            // Another question was asked (on the main loop) while this one's answer was listened for: what is
            // said from now is judged against the new question's words.
            answering?.wanted = wanted
            answering?.likely = likely
        }
        // In push-to-talk the answer is what is said in the window: once it has closed with nobody speaking, the
        // microphone closes too, rather than waiting a minute for whatever is said next.
        if mode == .pushToTalk, let follower = answering, follower.heardNothing(spotter),
            shared.withLock({ Self.now > $0.openUntil + 1.5 })
        {
            answering = nil
            answerSpoken = false
            trace.line?("answer: the window closed with nothing said")
            return
        }
        // An answer said over the question as it is read stops the reading at once, before it is decoded.
        if let said = answering?.speaking(spotter) {
            own.holdForAnswer(fromMs: said.startMs, toMs: said.nowMs)
            answerSpoken = true
        } else {
            answerSpoken = false
        }
        // A command spotted over the question as it is read waits for its judge: the answer is decoded after it,
        // or not at all when the command is taken (a menu's answer is listened for afresh). The answer's own
        // window can begin after the word did (its first, quiet sound under what is left of the echo) and
        // mishear it: "stop" over the menu was taken as "back" before "stop" was sure.
        if mode == .always, spotter.hasCandidates { return }
        guard let outcome = answering?.step(spotter) else { return }
        answerSpoken = false
        let span = answering?.span
        answering = nil
        if let span { window.decodedToMs = span.endMs }
        trace.line?("answer: \(outcome)")
        switch outcome {
        case .words(let said) where wanted == .text:
            dictated(said)
        case .words(let said):
            // A launch phrase that takes words, said at a menu ("find object", the menu's "Find object" too):
            // what follows it is listened for first, as when it is spotted, so that "find object", a pause, and
            // "teddy bear" is one request rather than a launch that then asks again.
            let wanted = shared.withLock { $0.followers[said] }
            if let span, following == nil, wanted != nil || takesWords(said) {
                takeWords(after: said, wanted: wanted, span: span, spotter: spotter)
            } else {
                act(on: said)
            }
        case .rejected: reject()
        case .prompt, .nothing: break
        }
    }

    /// A phrase that takes words, heard as a question's answer or in a window: the utterance may hold the words
    /// too ("find object teddy bear", "find text emergency exit" in one breath). One of a list is judged again
    /// with every word of the list after the phrase, as a window's utterance is, and a sure one acts; open words
    /// after the phrase are asked about. Otherwise the words are listened for after the utterance.
    private func takeWords(
        after phrase: String, wanted: ArgumentFollower.Wanted?, span: (startMs: Int, endMs: Int),
        spotter: KeywordSpotter
    ) {
        switch wanted {
        case .choices(let names, _):
            let whole = [phrase] + names.map { "\(phrase) \($0)" }
            if let (heard, confidence) = spotter.judge(
                fromMs: span.startMs - 200, toMs: span.endMs + 150, commands: whole),
                heard != phrase, confidence >= CommandConfidence.acceptAt
            {
                trace.line?("answer \(phrase): its words in the same breath, \(heard) (confidence \(confidence))")
                act(on: heard)
                return
            }
        case .text:
            let heard = spotter.decode(fromMs: span.startMs - 200, toMs: span.endMs + 150, choices: nil) ?? ""
            let words = KeyPhrase(heard).words
            if let last = KeyPhrase(phrase).words.last, let at = words.lastIndex(of: last), at + 1 < words.count {
                confirm(phrase, words[(at + 1)...].joined(separator: " "))
                return
            }
        case nil:
            break
        }
        startFollowing(phrase, wanted: wanted, afterMs: span.endMs, startMs: span.startMs)
    }

    /// What was said in a window, or as an answer, is no command: one short sentence and the error earcon,
    /// and nothing runs (docs/voice.md, "No guessing"). In `always` mode outside a window nobody asked to be
    /// heard: talk near the device that is no answer is let be, silently.
    private func reject() {
        let mode = mode
        let spoken = shared.withLock { state in
            // The window closes, but for a push-to-talk key still held down: the user tries again without
            // letting go, and what is said next is judged on its own, in a window of its own.
            defer {
                if mode != .always, !state.keyIsDown { state.openUntil = 0 }
                if state.keyIsDown { state.windows += 1 }
            }
            return mode != .always || Self.now <= state.openUntil
        }
        guard spoken else {
            trace.line?("not an answer: let be (always-on)")
            return
        }
        let session = session
        let cues = session.services.sound.cues
        let speech = takeSpeechHold()
        let trace = trace
        session.loop.post {
            cues?.play(.error)
            session.announcer.say(session.phrases.text("voice.not-understood"), priority: .important, remember: false)
            Self.endSpeechHold(speech, trace: trace)
        }
    }

    /// A text question's answer, dictated: the dialog says it back ("Did you say: …?") and gives it after yes.
    /// The words every question takes (cancel, repeat, help, stop) act as they do typed.
    private func dictated(_ said: String) {
        let words = KeyPhrase.normalise(said)
        guard !words.isEmpty else { return reject() }
        if DialogEngine.commonWords(session.phrases).contains(words) { return act(on: words) }
        shared.withLock { $0.lastHeard = Self.now }
        acknowledge(nil) { [weak self] session in
            self?.shared.withLock { $0.question.proposed?.words.append(words) }
            session.services.interaction.dialogs.propose(words)
        }
    }

    /// Open words heard after `phrase`: said back as a yes-or-no question, acted on only after yes.
    private func confirm(_ phrase: String, _ words: String) {
        shared.withLock { $0.lastHeard = Self.now }
        acknowledge(phrase) { session in
            let question = session.phrases.text("voice.confirm-words", ["words": words])
            session.services.interaction.dialogs.askFirst(question, owner: CommandRouter.hostOwner) {
                session.dispatcher.dispatch(.phrase("\(phrase) \(words)"))
            }
        }
    }

    /// The tap and "Heard: …" for a phrase taken (the tap alone for an answer said back), then `then` on the main
    /// loop; sound held for the phrase goes on once that has acted (a stop cancels it first).
    private func acknowledge(_ phrase: String?, then: @escaping @Sendable (HostSession) -> Void) {
        let session = session
        let cues = session.services.sound.cues
        let held = own.takeHold()
        let speech = takeSpeechHold()
        let trace = trace
        session.loop.post {
            defer {
                held?.release()
                Self.endSpeechHold(speech, trace: trace)
            }
            cues?.play(.tap)
            if let phrase { session.announcer.say("Heard: \(phrase).", priority: .important, remember: false) }
            then(session)
        }
    }

    /// The phrases to listen for, when they changed.
    private func phraseUpdate() -> [KeyPhrase]? {
        shared.withLock { state in
            defer { state.pendingPhrases = nil }
            return state.pendingPhrases
        }
    }

    /// A phrase heard: the wake phrase opens the window; a command is acted on when the mode lets it, at once
    /// or, for a phrase that takes words, once they are heard.
    private func accept(_ heard: Detection, at heardMs: Int) {
        trace.line?("accepting \(heard.phrase) (mode \(mode.rawValue))")
        // The question answered went away (on the main loop) since its answer was last listened for.
        if answering != nil, shared.withLock({ $0.question.wanted == nil }) { answering = nil }
        if answering != nil, shared.withLock({ $0.question.choosing }) {
            // In a push-to-talk or wake-word window the utterance at a menu is judged as a whole against the
            // choices and the commands (a command spotted inside "we bought a new kettle" is no command).
            guard mode == .always else {
                trace.line?("not taken: the window's answer is decoded as a whole")
                return
            }
            // A command said at a menu at any time: taken as spotted, and the answer is listened for afresh.
            answering = nil
        } else if following != nil || answering != nil {
            trace.line?("not taken: words after a phrase, or an answer, are awaited")
            return
        }
        if mode == .wakeWord && heard.phrase == wakePhrase {
            let now = Self.now
            shared.withLock { $0.openWindow(now: now) }
            session.services.sound.cues?.play(.listen)
            return
        }
        if window.follower != nil {
            trace.line?("not taken: the window's utterance is decoded as a whole")
            return
        }
        // A phrase held to see whether a longer one follows arrives up to a second after its end.
        let open = mode == .always || shared.withLock { Self.now <= $0.openUntil + 1.2 }
        guard open else {
            trace.line?("not taken: no window is open")
            return
        }
        let wanted = shared.withLock { $0.followers[heard.phrase] }
        if wanted != nil || takesWords(heard.phrase) {
            startFollowing(heard.phrase, wanted: wanted, afterMs: heard.endMs, startMs: heard.startMs)
            return
        }
        if mode != .always { shared.withLock { $0.openUntil = 0 } }
        act(on: heard.phrase)
    }

    /// True for a launch keyword that takes words whose list is not known yet (its plugin is loading).
    private func takesWords(_ phrase: String) -> Bool { shared.withLock { $0.taking.contains(phrase) } }

    /// Acts on `phrase` as if typed, after the "heard" earcon and the echo. The same phrase heard twice at
    /// once (spotted, and decoded as the answer to a menu) acts once.
    private func act(on phrase: String) {
        if let last = lastActed, last.phrase == phrase, Self.now - last.at < 2 {
            trace.line?("\(phrase) was acted on a moment ago: once is enough")
            return
        }
        lastActed = (phrase, Self.now)
        let mode = mode
        shared.withLock {
            if mode != .always { $0.openUntil = 0 }
            $0.lastHeard = Self.now
        }
        acknowledge(phrase) { session in
            // Another feature's launch phrase heard while one runs is asked about, not acted on: a word
            // misheard, or said to someone else, must not end what the user is doing.
            let features = session.features
            if let focused = features.focused, !session.services.interaction.dialogs.isActive,
                let target = session.dispatcher.launchTarget(of: phrase), target != focused.id,
                let record = features.record(id: target)
            {
                let question = session.phrases.text("voice.switch-to", ["name": record.name])
                session.services.interaction.dialogs.askFirst(question, owner: CommandRouter.hostOwner) {
                    session.dispatcher.dispatch(.phrase(phrase))
                }
                return
            }
            // A number said as words reaches a feature's numbered commands in the dispatcher ("three" → "3").
            session.dispatcher.dispatch(.phrase(phrase))
        }
    }

    private func say(_ text: String) { VoiceSession.saying(in: session)(text) }
}

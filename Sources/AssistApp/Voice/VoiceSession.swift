import Audio
import Foundation
import Interaction
import PluginHost
import Speech
import Voice

/// Voice commands in an interactive session (docs/voice.md): the microphone is read on a thread of its own in
/// 100 ms chunks and what is heard is handed to the dispatcher as a spoken phrase, after an earcon and an echo
/// in words ("Heard: read text."), so it goes where a typed phrase would.
///
/// `voice.mode`: `off`; `push-to-talk` (the default: nothing is heard until the `voice.key` key, F4, is
/// tapped, then for 5 s); `wake-word` (`voice.wake-phrase`, "assist", then a command within 5 s); `always`.
/// While the host speaks or plays cues, `voice.echo-cancel` says what is heard: `on` (the default) takes
/// Assist's own sound out of the microphone with the echo canceller, so a command said over it is heard and
/// acted on at once (docs/voice.md, "Barge-in"); `headphones` listens as it is; `off` hears nothing then.
/// Listening stops while a plugin records from the microphone.
package final class VoiceSession: @unchecked Sendable {  // because: the state shared with the thread is under `lock`
    package enum Mode: String, CaseIterable { case off, pushToTalk = "push-to-talk", wakeWord = "wake-word", always }

    /// `voice.echo-cancel`: what voice hears while Assist's own sound plays.
    package enum EchoMode: String, CaseIterable { case on, off, headphones }

    package static let windowMs = 5_000

    package let mode: Mode
    private let session: HostSession
    private let model: VoiceModel
    private let wakePhrase: String
    /// Assist's own sound at the microphone: the listening thread's.
    private let own: OwnSound
    private let microphone: AudioInputSpec
    private let thresholds: VoiceThresholds
    private let lock = NSLock()
    private var running = true
    /// Listening until this moment (monotonic seconds), in push-to-talk and after the wake phrase.
    private var openUntil = 0.0
    /// When a command was last heard (monotonic seconds).
    private var lastHeard = -100.0
    private var focused: String?
    /// The phrases listened for, as last made on the main loop.
    private var listening: [String] = []
    /// The phrases to listen for from the next chunk on, when they changed (made on the main loop).
    private var pendingPhrases: [KeyPhrase]?
    /// What may follow each phrase that takes words ("find object" → the names), made on the main loop.
    private var followers: [String: ArgumentFollower.Wanted] = [:]
    /// The launch keywords that take words, from the manifests (their lists may not be set yet).
    private var taking: Set<String> = []
    /// What answers the question now asked, while one is: its words, or dictated words for a text question
    /// (set on the main loop).
    private var answerWanted: ArgumentFollower.Wanted?
    /// A text question's likely answers: the list its feature listens for after a phrase, less what was
    /// already said back for it (set on the main loop).
    private var answerLikely: [String] = []
    /// The text question last asked (its dialog's id) and the answers said back for it (main loop).
    private var proposed: (question: UInt64, words: [String])?
    /// True while that question is a choice (a menu): a command spotted then still acts.
    private var choosing = false
    // The listening thread's own:
    /// The phrase heard whose words are awaited, and its detection.
    private var following: (detection: Detection, follower: ArgumentFollower)?
    /// The answer to the question asked, awaited.
    private var answering: ArgumentFollower?
    /// Whether an answer is being said now (the sound held for it stays held until it is decoded).
    private var answerSpoken = false
    /// Counts the windows opened (push-to-talk, the wake phrase), so the listening thread sees each new one.
    private var windows = 0
    /// The listening thread's: the last window it saw, and the command awaited in the open one.
    private var windowSeen = 0
    private var inWindow: ArgumentFollower?
    /// Where in the sound fed the last window opened, and where the last utterance decoded in one ended (ms):
    /// an answer is listened for after both (the listening thread's).
    private var windowFromMs = 0
    private var decodedToMs = 0
    /// Whether the push-to-talk key is held down now, read through `voice.key-device` (under `lock`).
    private var keyIsDown = false
    /// Whether Assist's speech is held for the push-to-talk window (under `lock`).
    private var speechHeld = false

    private init(
        session: HostSession, mode: Mode, model: VoiceModel, wakePhrase: String, echoMode: EchoMode,
        microphone: AudioInputSpec
    ) {
        self.session = session
        self.mode = mode
        self.model = model
        self.wakePhrase = KeyPhrase.normalise(wakePhrase)
        self.microphone = microphone
        thresholds = VoiceThresholds.load(
            data: session.paths.data, share: session.paths.share, language: model.language)
        own = OwnSound(session: session, mode: echoMode, say: Self.saying(in: session))
    }

    /// Starts listening as the settings say; nil when voice is off or cannot work (said once, in words that
    /// say what to do; typed and key commands go on as before). Main loop.
    package static func start(session: HostSession, microphone: String?) -> VoiceSession? {
        let settings = session.settings
        let modeText = settings.value("voice.mode")?.description ?? Mode.pushToTalk.rawValue
        guard let mode = Mode(rawValue: modeText) else {
            session.announcer.say(
                "voice.mode \(modeText) is not known: use off, push-to-talk, wake-word or always. Voice is off.")
            return nil
        }
        // A kiosk with kiosk.voice = false has none.
        guard mode != .off, session.kiosk?.voice != false else { return nil }
        let language = session.phrases.language
        let model: VoiceModel
        switch VoiceModel.find(language: language, data: session.paths.data, share: session.paths.share) {
        case .success(let found): model = found
        case .failure(let error):
            // Said once on this device (a marker in the data folder), not at every start.
            let marker = session.paths.data.appendingPathComponent("voice/no-model-\(language)")
            if !FileManager.default.fileExists(atPath: marker.path) {
                // No model for another language is said in it; the rest (a missing package) is for the admin.
                if case .noModel = error, language != "en" {
                    session.announcer.say(session.phrases.text("voice.no-model"))
                } else {
                    session.announcer.say(error.description)
                }
                try? FileManager.default.createDirectory(
                    at: marker.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
                _ = FileManager.default.createFile(
                    atPath: marker.path, contents: Data(), attributes: [.posixPermissions: 0o600])
            }
            return nil
        }
        let spec = microphone.flatMap(AudioInputSpec.init) ?? .alsa("default")
        // `voice.headphones = true`, the older key, stands for `voice.echo-cancel = "headphones"`.
        let echoMode =
            settings.value("voice.echo-cancel").flatMap { EchoMode(rawValue: $0.description) }
            ?? (settings.value("voice.headphones")?.flag == true ? .headphones : .on)
        let voice = VoiceSession(
            session: session, mode: mode, model: model,
            wakePhrase: settings.value("voice.wake-phrase")?.description ?? "assist", echoMode: echoMode,
            microphone: spec)
        if mode == .pushToTalk {
            let keyName = settings.value("voice.key")?.description ?? "f4"
            let key = Key(name: keyName) ?? .function(4)
            session.dispatcher.listenKey = key
            session.dispatcher.onListenKey = { [weak voice] in voice?.openWindow() }
            // Held down on a keyboard read through evdev: listening while it is down.
            if let device = settings.value("voice.key-device")?.description, !device.isEmpty {
                if let code = KeyHoldDevice.code(for: key) {
                    do {
                        voice.keyDevice = try KeyHoldDevice(path: device, code: code) { [weak voice] down in
                            voice?.keyHeld(down)
                        }
                    } catch {
                        session.announcer.say(error.message, priority: .important)
                    }
                } else {
                    session.announcer.say(
                        "voice.key \(keyName) cannot be read from a keyboard device: use f1 to f12, space, enter, escape or tab. The key still opens a window for 5 seconds.",
                        priority: .important)
                }
            }
        }
        voice.taking = Set(
            session.features.records.flatMap { record in
                (record.manifest?.keywords ?? []).filter { $0.takes != nil && ($0.lang ?? "en") == model.language }
                    .map { KeyPhrase.normalise($0.phrase) }
            })
        voice.focusChanged(to: nil, force: true)
        session.features.phrasesHeard = { [weak voice] in voice?.phrasesNow ?? [] }
        if model.dictates {
            session.services.interaction.dictation = [model.language]
            session.services.interaction.dialogs.answersBySpeech = true
        }
        session.services.interaction.dialogs.observeQuestions { [weak voice] question in
            voice?.questionChanged(question)
        }
        // A question asked before voice started (the offer of safe mode) is listened for too.
        voice.questionChanged(session.services.interaction.dialogs.question)
        // A phrase's list of words is set by its plugin's library as it loads: after the menu is up, not before.
        session.loop.post { [weak voice] in voice?.refreshFollowers() }
        let thread = Thread { voice.listen() }
        thread.name = "assist-voice"
        thread.start()
        return voice
    }

    /// The keyboard read through evdev for push-to-talk held down, when `voice.key-device` names one.
    private var keyDevice: KeyHoldDevice?

    /// The push-to-talk key went down (listening until it comes up) or up (the phrase being said is finished
    /// over the next moment). The key's thread.
    package func keyHeld(_ down: Bool) {
        lock.withLock {
            openUntil = down ? Self.now + 3_600 : min(openUntil, Self.now)
            keyIsDown = down
            if down { windows += 1 }
        }
        VoiceTrace.line?("push-to-talk key \(down ? "down" : "up")")
        if down {
            holdSpeech()
            let cues = session.services.sound.cues
            session.loop.post { cues?.play(.listen) }
        }
    }

    /// The push-to-talk key went down: what Assist is saying stops at once and waits for the window's outcome
    /// (the command's "Heard: …", the "Sorry" of a sentence that is none, or nothing said), then goes on.
    private func holdSpeech() {
        guard let speech = session.sound?.speech else { return }
        lock.withLock { speechHeld = true }
        speech.holdForListening()
        VoiceTrace.line?("speech held for the push-to-talk window")
    }

    /// Whether speech was held for the window, no longer: the caller lets it go on (after its answer is queued).
    private func takeSpeechHold() -> (any SpeechEngine)? {
        lock.withLock {
            defer { speechHeld = false }
            return speechHeld ? session.sound?.speech : nil
        }
    }

    /// Lets speech held for the window go on (nil: none was held), saying why in the voice trace. Any thread.
    private static func endSpeechHold(_ speech: (any SpeechEngine)?, _ why: String = " after the answer") {
        guard let speech else { return }
        speech.endListeningHold()
        VoiceTrace.line?("speech goes on\(why)")
    }

    /// Lets held speech go on once the window is over with nothing to answer: closed with nothing said (the key
    /// up, or the 5 s over, with nobody speaking), or Assist's own voice heard in it. The listening thread.
    private func endSpeechHoldIfOver() {
        guard following == nil, inWindow == nil, !answerSpoken, lock.withLock({ speechHeld && Self.now > openUntil }),
            let speech = takeSpeechHold()
        else { return }
        Self.endSpeechHold(speech, ": the window is over")
    }

    package func stop() {
        Self.endSpeechHold(takeSpeechHold(), " as voice stops")
        own.stop()
        session.features.phrasesHeard = nil
        keyDevice?.stop()
        lock.withLock { running = false }
        session.services.interaction.dictation = []
        session.services.interaction.dialogs.answersBySpeech = false
    }

    /// The phrases for the focus now: the focused feature's keywords and the commands it registered (which
    /// come as it starts), every background feature's global ones, and the host's. Called when the focus
    /// changes and twice a second; the search is rebuilt only when the list changed. Main loop.
    package func focusChanged(to id: String?, force: Bool = false) {
        var texts = VoicePhrases.phrases(
            records: session.features.records, router: session.services.interaction.router,
            language: model.language, focused: id)
        if mode == .wakeWord { texts.append(wakePhrase) }
        let phrases = thresholds.apply(to: texts)
        if let id, !warnedLimit.contains(id),
            let count = VoicePhrases.overLimit(id, router: session.services.interaction.router),
            let record = session.features.record(id: id)
        {
            warnedLimit.insert(id)
            session.announcer.say(
                session.phrases.text(
                    "voice.too-many",
                    ["name": record.name, "count": String(count), "limit": String(VoicePhrases.featureLimit)]),
                priority: .important)
        }
        lock.withLock {
            guard force || focused != id || listening != texts else { return }
            focused = id
            listening = texts
            pendingPhrases = phrases
        }
    }

    /// Features already told they registered more commands than voice listens for (main loop).
    private var warnedLimit: Set<String> = []

    /// The phrases listened for now (for "what can I say").
    package var phrasesNow: [String] { lock.withLock { listening } }

    /// Finds again what may follow each phrase (plugins set lists as they load). Main loop.
    package func refreshFollowers() {
        let interaction = session.services.interaction
        let found = VoicePhrases.followers(
            features: session.features, router: { interaction.router }, language: model.language)
        lock.withLock { followers = found }
    }

    /// A question is asked (or none is): while it is a yes-or-no one, a choice or a text question (not a secret),
    /// its answer is listened for, in every mode (the question was asked aloud, so the answer comes aloud). Main
    /// loop.
    package func questionChanged(_ question: DialogRequest?) {
        var words = question.map { VoicePhrases.answers(to: $0, phrases: session.phrases) } ?? nil
        var isChoice = false
        if case .choice = question { isChoice = true }
        // At a menu or a choice the commands heard now still work ("what time is it" at the shell's menu): the
        // dispatcher takes a launch phrase or a command before the question.
        if isChoice, let answers = words { words = answers + phrasesNow.filter { !answers.contains($0) } }
        var wanted = words.map { ArgumentFollower.Wanted.choices($0, prompt: nil) }
        // A text question's answer is dictated, then said back by the dialog before it is given (never a secret;
        // not an e-mail address, whose signs dictation does not write).
        var likely: [String] = []
        if let question, case .text(_, let kind) = question, kind != .secret, kind != .email, model.dictates {
            wanted = .text
            // Asked for one of the words its feature listens for after a phrase (find-object's names): those,
            // less what was said back already for this question.
            let interaction = session.services.interaction
            if let id = interaction.dialogs.questionID, proposed?.question != id { proposed = (id, []) }
            if kind == .listed {
                let said = proposed?.words ?? []
                likely = interaction.router.choices.values.filter { $0.owner == interaction.dialogs.questionOwner }
                    .sorted { $0.phrase < $1.phrase }.flatMap(\.choices).filter { !said.contains($0) }
            }
        }
        VoiceTrace.line?(
            "question: \(wanted == .text ? "dictated" : words.map { "\($0.count) answers" } ?? "none")"
                + (isChoice ? ", a choice" : "") + (likely.isEmpty ? "" : ", \(likely.count) likely answers"))
        lock.withLock {
            answerWanted = wanted
            answerLikely = likely
            choosing = isChoice
            // In push-to-talk, a question that follows a voice command (its window still open, or just closed)
            // is listened for; otherwise the key opens a window for the answer, as for any command.
            if wanted != nil, mode != .pushToTalk || Self.now < max(openUntil, lastHeard) + 10 {
                openUntil = max(openUntil, Self.now + 30)
            }
        }
    }

    /// Push-to-talk: listens for the next 5 s. Main loop.
    package func openWindow() {
        lock.withLock {
            openUntil = Self.now + Double(Self.windowMs) / 1000
            windows += 1
        }
        holdSpeech()
        session.services.sound.cues?.play(.listen)
    }

    private static var now: Double { ProcessInfo.processInfo.systemUptime }

    /// In push-to-talk the microphone is open only while the window is (and a moment after, for a phrase
    /// being finished); the other modes keep it open.
    private var wantsMicrophone: Bool {
        mode != .pushToTalk || following != nil || answering != nil || inWindow != nil
            || lock.withLock { Self.now < openUntil + 1.5 }
    }

    private var isRunning: Bool { lock.withLock { running } }

    /// The thread: opens the microphone and the recogniser, then feeds one to the other.
    private func listen() {
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
                do { input = try microphone.open(format: VoiceListener.format) } catch {
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
                    }
                    // At any time, a command is said on its own; in a window, it may follow the wake word.
                    spotter?.standalone = mode == .always
                    spotter?.takesWords = lock.withLock { taking.union(followers.keys) }
                    spotter?.trace = VoiceTrace.line
                    VoiceTrace.line?("listening for \(spotter?.phrases.count ?? 0) phrases: \(update.map(\.text))")
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
            if let warning = level.add(chunk) { say(warning) }
            let fed = own.hearable(chunk, endsAt: endsAt, spotter: spotter)
            chunksFed += 1
            if chunksFed % 50 == 0 {
                let peak = chunk.lazy.map { abs(Int($0)) }.max() ?? 0
                let note =
                    fed.closed ? " (the host sounds: room sound instead)" : fed.cancelled ? " (echo cancelled)" : ""
                VoiceTrace.line?("fed \(chunksFed) chunks\(note), peak \(peak)")
            }
            VoiceTrace.sound?(fed.samples)
            for heard in spotter.feed(fed.samples) { accept(heard, at: spotter.heardMs) }
            window(spotter)
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
        if follower.wanted == nil { follower.wanted = lock.withLock { followers[detection.phrase] } }
        guard let outcome = follower.step(spotter) else { return }
        VoiceTrace.line?("after \(detection.phrase): \(outcome)")
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
            lock.withLock { openUntil = max(openUntil, Self.now + Double(ArgumentFollower.afterPromptMs) / 1000) }
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
    private func window(_ spotter: KeywordSpotter) {
        let (serial, open, lists, question) = lock.withLock {
            (windows, Self.now <= openUntil, followers, answerWanted != nil)
        }
        if serial != windowSeen { windowFromMs = spotter.heardMs - 300 }
        // A question's answer is listened for as a choice of its own.
        if question {
            windowSeen = serial
            inWindow = nil
            return
        }
        if serial != windowSeen, following == nil, answering == nil {
            windowSeen = serial
            // The tap comes just before the words: a little of the sound before it counts.
            inWindow = ArgumentFollower.window(
                phrases: spotter.phrases.map(\.text).filter { $0 != wakePhrase || mode != .wakeWord }, lists: lists,
                fromMs: spotter.heardMs - 300, waitMs: 60_000)
            VoiceTrace.line?("window \(serial) opened at \(spotter.heardMs) ms")
        }
        guard let follower = inWindow else { return }
        guard let outcome = follower.step(spotter) else {
            if !open, spotter.utterance(after: spotter.heardMs - 300) == .none {
                inWindow = nil
                VoiceTrace.line?("window \(serial) closed with nothing said")
            }
            return
        }
        inWindow = nil
        if let span = follower.span { decodedToMs = span.endMs }
        VoiceTrace.line?("window \(serial): \(outcome)")
        // Assist's own voice coming back is nobody's command: let be, without a word.
        if let span = follower.span, own.isAssistsOwnVoice(fromMs: span.startMs, toMs: span.endMs) {
            VoiceTrace.line?("window \(serial): Assist's own voice, not a command")
            return
        }
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
        lock.withLock { openUntil = max(openUntil, Self.now + 3) }
    }

    /// While a yes-or-no question is asked, listens for its answer and gives it as if typed. The listening
    /// thread.
    private func answer(_ spotter: KeywordSpotter) {
        // While the words after a phrase are awaited they are no answer: the answer is listened for after them.
        guard following == nil, let (wanted, likely) = lock.withLock({ answerWanted.map { ($0, answerLikely) } }) else {
            answering = nil
            return
        }
        if answering == nil {
            // In push-to-talk the answer, too, is said with the key down (or just after a voice command).
            guard mode != .pushToTalk || lock.withLock({ Self.now <= openUntil + 1.5 }) else { return }
            // With the key down, what is said is the answer even when the question came as it was being said
            // (the menu came up while the user spoke): it is listened for from just before those words.
            let from =
                mode == .pushToTalk
                ? spotter.answerStart(nowMs: spotter.heardMs, openedMs: max(windowFromMs, decodedToMs))
                : spotter.heardMs
            if from < spotter.heardMs { VoiceTrace.line?("answer: listened for from \(from) ms, as it was said") }
            answering = ArgumentFollower(phrase: "", wanted: wanted, afterMs: from, waitMs: 60_000)
            // Talk that is no answer is no "yes": the answer is judged as a window's command is.
            answering?.judged = true
            answering?.likely = likely
        } else if answering?.wanted != wanted || answering?.likely != likely {
            // Another question was asked (on the main loop) while this one's answer was listened for: what is
            // said from now is judged against the new question's words.
            answering?.wanted = wanted
            answering?.likely = likely
        }
        // In push-to-talk the answer is what is said in the window: once it has closed with nobody speaking, the
        // microphone closes too, rather than waiting a minute for whatever is said next.
        if mode == .pushToTalk, let follower = answering, follower.heardNothing(spotter),
            lock.withLock({ Self.now > openUntil + 1.5 })
        {
            answering = nil
            answerSpoken = false
            VoiceTrace.line?("answer: the window closed with nothing said")
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
        if let span { decodedToMs = span.endMs }
        VoiceTrace.line?("answer: \(outcome)")
        // Assist's own voice coming back (the question itself, as it is read) is no answer: let be, silently.
        if let span, own.isAssistsOwnVoice(fromMs: span.startMs, toMs: span.endMs) {
            VoiceTrace.line?("answer: Assist's own voice, not an answer")
            return
        }
        switch outcome {
        case .words(let said) where wanted == .text:
            dictated(said)
        case .words(let said):
            // A launch phrase that takes words, said at a menu ("find object", the menu's "Find object" too):
            // what follows it is listened for first, as when it is spotted, so that "find object", a pause, and
            // "teddy bear" is one request rather than a launch that then asks again.
            let wanted = lock.withLock { followers[said] }
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
                VoiceTrace.line?("answer \(phrase): its words in the same breath, \(heard) (confidence \(confidence))")
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
        let spoken = lock.withLock {
            // The window closes, but for a push-to-talk key still held down: the user tries again without
            // letting go, and what is said next is judged on its own, in a window of its own.
            defer {
                if mode != .always, !keyIsDown { openUntil = 0 }
                if keyIsDown { windows += 1 }
            }
            return mode != .always || Self.now <= openUntil
        }
        guard spoken else {
            VoiceTrace.line?("not an answer: let be (always-on)")
            return
        }
        let session = session
        let cues = session.services.sound.cues
        let speech = takeSpeechHold()
        session.loop.post {
            cues?.play(.error)
            session.announcer.say(session.phrases.text("voice.not-understood"), priority: .important, remember: false)
            Self.endSpeechHold(speech)
        }
    }

    /// A text question's answer, dictated: the dialog says it back ("Did you say: …?") and gives it after yes.
    /// The words every question takes (cancel, repeat, help, stop) act as they do typed.
    private func dictated(_ said: String) {
        let words = KeyPhrase.normalise(said)
        guard !words.isEmpty else { return reject() }
        if DialogEngine.commonWords(session.phrases).contains(words) { return act(on: words) }
        lock.withLock { lastHeard = Self.now }
        acknowledge(nil) { [weak self] session in
            self?.proposed?.words.append(words)
            session.services.interaction.dialogs.propose(words)
        }
    }

    /// Open words heard after `phrase`: said back as a yes-or-no question, acted on only after yes.
    private func confirm(_ phrase: String, _ words: String) {
        lock.withLock { lastHeard = Self.now }
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
        session.loop.post {
            defer {
                held?.release()
                Self.endSpeechHold(speech)
            }
            cues?.play(.tap)
            if let phrase { session.announcer.say("Heard: \(phrase).", priority: .important, remember: false) }
            then(session)
        }
    }

    /// The phrases to listen for, when they changed.
    private func phraseUpdate() -> [KeyPhrase]? {
        lock.withLock {
            defer { pendingPhrases = nil }
            return pendingPhrases
        }
    }

    /// A phrase heard: the wake phrase opens the window; a command is acted on when the mode lets it, at once
    /// or, for a phrase that takes words, once they are heard.
    private func accept(_ heard: Detection, at heardMs: Int) {
        VoiceTrace.line?("accepting \(heard.phrase) (mode \(mode.rawValue))")
        // The question answered went away (on the main loop) since its answer was last listened for.
        if answering != nil, lock.withLock({ answerWanted == nil }) { answering = nil }
        if answering != nil, lock.withLock({ choosing }) {
            // In a push-to-talk or wake-word window the utterance at a menu is judged as a whole against the
            // choices and the commands (a command spotted inside "we bought a new kettle" is no command).
            guard mode == .always else {
                VoiceTrace.line?("not taken: the window's answer is decoded as a whole")
                return
            }
            // A command said at a menu at any time: taken as spotted, and the answer is listened for afresh.
            answering = nil
        } else if following != nil || answering != nil {
            VoiceTrace.line?("not taken: words after a phrase, or an answer, are awaited")
            return
        }
        if mode == .wakeWord && heard.phrase == wakePhrase {
            lock.withLock {
                openUntil = Self.now + Double(Self.windowMs) / 1000
                windows += 1
            }
            session.services.sound.cues?.play(.listen)
            return
        }
        if inWindow != nil {
            VoiceTrace.line?("not taken: the window's utterance is decoded as a whole")
            return
        }
        // A phrase held to see whether a longer one follows arrives up to a second after its end.
        let open = lock.withLock { mode == .always || Self.now <= openUntil + 1.2 }
        guard open else {
            VoiceTrace.line?("not taken: no window is open")
            return
        }
        let wanted = lock.withLock { followers[heard.phrase] }
        if wanted != nil || takesWords(heard.phrase) {
            startFollowing(heard.phrase, wanted: wanted, afterMs: heard.endMs, startMs: heard.startMs)
            return
        }
        if mode != .always { lock.withLock { openUntil = 0 } }
        act(on: heard.phrase)
    }

    /// True for a launch keyword that takes words whose list is not known yet (its plugin is loading).
    private func takesWords(_ phrase: String) -> Bool { lock.withLock { taking.contains(phrase) } }

    /// The phrase last acted on and when (monotonic seconds): the listening thread's.
    private var lastActed: (phrase: String, at: Double)?

    /// Acts on `phrase` as if typed, after the "heard" earcon and the echo. The same phrase heard twice at
    /// once (spotted, and decoded as the answer to a menu) acts once.
    private func act(on phrase: String) {
        if let last = lastActed, last.phrase == phrase, Self.now - last.at < 2 {
            VoiceTrace.line?("\(phrase) was acted on a moment ago: once is enough")
            return
        }
        lastActed = (phrase, Self.now)
        lock.withLock {
            if mode != .always { openUntil = 0 }
            lastHeard = Self.now
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

    private func say(_ text: String) { Self.saying(in: session)(text) }

    /// Says a sentence on the main loop, from any thread.
    private static func saying(in session: HostSession) -> @Sendable (String) -> Void {
        let announcer = session.announcer
        let loop = session.loop
        return { text in loop.post { announcer.say(text, priority: .important) } }
    }
}

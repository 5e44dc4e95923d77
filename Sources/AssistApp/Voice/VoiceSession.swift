import Audio
import Foundation
import Interaction
import PluginHost
import Speech
import Voice

/// Voice commands in an interactive session (docs/voice.md): the microphone is read on a thread of its own in
/// 20 ms chunks (`VoiceListener.chunkFrames`) and what is heard is handed to the dispatcher as a spoken phrase,
/// after an earcon and an echo in words ("Heard: read text."), so it goes where a typed phrase would.
///
/// `voice.mode`: `off`; `push-to-talk` (the default: nothing is heard until the `voice.key` key, F4, is
/// tapped, then for 5 s); `wake-word` (`voice.wake-phrase`, "assist", then a command within 5 s); `always`.
/// While the host speaks or plays cues, `voice.echo-cancel` says what is heard: `on` (the default) takes
/// Assist's own sound out of the microphone with the echo canceller, so a command said over it is heard and
/// acted on at once (docs/voice.md, "Barge-in"); `headphones` listens as it is; `off` hears nothing then.
/// Listening stops while a plugin records from the microphone.
package final class VoiceSession: @unchecked Sendable {  // because: its vars are the main loop's, the rest locked
    package enum Mode: String, CaseIterable { case off, pushToTalk = "push-to-talk", wakeWord = "wake-word", always }

    /// `voice.echo-cancel`: what voice hears while Assist's own sound plays.
    package enum EchoMode: String, CaseIterable { case on, off, headphones }

    package static let windowMs = 5_000

    package let mode: Mode
    private let session: HostSession
    private let model: VoiceModel
    private let thresholds: VoiceThresholds
    /// The listening thread, and what it shares with the main loop (`hearing.shared`).
    private let hearing: VoiceHearing

    private init(
        session: HostSession, mode: Mode, model: VoiceModel, wakePhrase: String, echoMode: EchoMode,
        microphone: AudioInputSpec
    ) {
        self.session = session
        self.mode = mode
        self.model = model
        thresholds = VoiceThresholds.load(
            data: session.paths.data, share: session.paths.share, language: model.language)
        hearing = VoiceHearing(
            session: session, mode: mode, model: model, wakePhrase: wakePhrase, echoMode: echoMode,
            microphone: microphone)
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
        let taking = Set(
            session.features.records.flatMap { record in
                (record.manifest?.keywords ?? []).filter { $0.takes != nil && ($0.lang ?? "en") == model.language }
                    .map { KeyPhrase.normalise($0.phrase) }
            })
        voice.hearing.shared.withLock { $0.taking = taking }
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
        let hearing = voice.hearing
        let thread = Thread { hearing.listen() }
        thread.name = "assist-voice"
        thread.start()
        return voice
    }

    /// The keyboard read through evdev for push-to-talk held down, when `voice.key-device` names one.
    private var keyDevice: KeyHoldDevice?

    /// The push-to-talk key went down (listening until it comes up) or up (the phrase being said is finished
    /// over the next moment). The key's thread.
    package func keyHeld(_ down: Bool) {
        let now = VoiceHearing.now
        hearing.shared.withLock {
            $0.openUntil = down ? now + 3_600 : min($0.openUntil, now)
            $0.keyIsDown = down
            if down { $0.windows += 1 }
        }
        hearing.trace.line?("push-to-talk key \(down ? "down" : "up")")
        if down {
            hearing.holdSpeech()
            let cues = session.services.sound.cues
            session.loop.post { cues?.play(.listen) }
        }
    }

    package func stop() {
        VoiceHearing.endSpeechHold(hearing.takeSpeechHold(), " as voice stops", trace: hearing.trace)
        hearing.own.stop()
        session.features.phrasesHeard = nil
        keyDevice?.stop()
        hearing.shared.withLock { $0.running = false }
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
        if mode == .wakeWord { texts.append(hearing.wakePhrase) }
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
        hearing.shared.withLock {
            guard force || $0.focused != id || $0.listening != texts else { return }
            $0.focused = id
            $0.listening = texts
            $0.pendingPhrases = phrases
        }
    }

    /// Features already told they registered more commands than voice listens for (main loop).
    private var warnedLimit: Set<String> = []

    /// The phrases listened for now (for "what can I say").
    package var phrasesNow: [String] { hearing.shared.withLock { $0.listening } }

    /// Finds again what may follow each phrase (plugins set lists as they load). Main loop.
    package func refreshFollowers() {
        let interaction = session.services.interaction
        let found = VoicePhrases.followers(
            features: session.features, router: { interaction.router }, language: model.language)
        hearing.shared.withLock { $0.followers = found }
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
            let asked = interaction.dialogs.questionID
            let proposed = hearing.shared.withLock { state in
                if let id = asked, state.question.proposed?.question != id {
                    state.question.proposed = (id, [])
                }
                return state.question.proposed
            }
            if kind == .listed {
                let said = proposed?.words ?? []
                likely = interaction.router.choices.values.filter { $0.owner == interaction.dialogs.questionOwner }
                    .sorted { $0.phrase < $1.phrase }.flatMap(\.choices).filter { !said.contains($0) }
            }
        }
        hearing.trace.line?(
            "question: \(wanted == .text ? "dictated" : words.map { "\($0.count) answers" } ?? "none")"
                + (isChoice ? ", a choice" : "") + (likely.isEmpty ? "" : ", \(likely.count) likely answers"))
        let mode = mode
        hearing.shared.withLock {
            $0.question.wanted = wanted
            $0.question.likely = likely
            $0.question.choosing = isChoice
            // In push-to-talk, a question that follows a voice command (its window still open, or just closed)
            // is listened for; otherwise the key opens a window for the answer, as for any command.
            let now = VoiceHearing.now
            if wanted != nil, mode != .pushToTalk || now < max($0.openUntil, $0.lastHeard) + 10 {
                $0.openUntil = max($0.openUntil, now + 30)
            }
        }
    }

    /// Push-to-talk: listens for the next 5 s. Main loop.
    package func openWindow() {
        let now = VoiceHearing.now
        hearing.shared.withLock { $0.openWindow(now: now) }
        hearing.holdSpeech()
        session.services.sound.cues?.play(.listen)
    }

    /// Says a sentence on the main loop, from any thread.
    static func saying(in session: HostSession) -> @Sendable (String) -> Void {
        let announcer = session.announcer
        let loop = session.loop
        return { text in loop.post { announcer.say(text, priority: .important) } }
    }
}

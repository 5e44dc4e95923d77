import Audio
import Foundation
import PluginHost
import Speech
import Voice

/// Assist's own sound as voice's microphone hears it (`voice.echo-cancel`, docs/voice.md "Barge-in"): taken
/// out by the echo canceller (`on`), heard as it is (`headphones`), or covered by a quiet room while it plays
/// (`off`); and the mixer held while a phrase said over it is judged. The listening thread's, but for `stop`.
final class OwnSound {
    let mode: VoiceSession.EchoMode
    private let session: HostSession
    /// What the speakers play, from the mixer (nil with headphones, or when the command makes no sound).
    private let played: PlayedSound?
    private let say: (String) -> Void
    /// The echo canceller, made with the first chunk (nil when off or unavailable), and where its first block
    /// lies on the recogniser's clock.
    private var canceller: EchoCanceller?
    private var tried = false
    private var startMs = 0
    /// True while the mixer is held for a phrase heard over Assist's sound, not yet acted on.
    private var holding = false
    /// `ASSIST_TEST_ROOM`: the echo added to the microphone by a simulated room (tests and demonstrations).
    private let room: SimulatedRoom?
    private let trace: VoiceTrace
    /// Where what the canceller learns of the room is kept for the next session, and for which devices.
    private let pathFile: URL
    private let microphone: AudioInputSpec
    /// When the room was last kept (monotonic seconds).
    private var keptAt = 0.0

    init(
        session: HostSession, mode: VoiceSession.EchoMode, microphone: AudioInputSpec, trace: VoiceTrace,
        say: @escaping (String) -> Void
    ) {
        self.session = session
        self.mode = mode
        self.say = say
        self.trace = trace
        self.microphone = microphone
        pathFile = EchoPathFile.url(deviceFolder: session.deviceFolder)
        room = SimulatedRoom.fromEnvironment(session.environment)
        // With headphones nothing played comes back: the mixer's periods are not needed.
        if mode != .headphones, let mixer = session.sound?.mixer {
            let played = PlayedSound()
            mixer.monitor(played)
            self.played = played
        } else {
            played = nil
        }
    }

    /// The mixer no longer reports what it plays. Main loop.
    func stop() { session.sound?.mixer.monitor(nil) }

    /// `count` samples of the microphone that the recogniser is not given keep the canceller's clock.
    func skip(count: Int) { canceller?.skip(count: count) }

    /// What the recogniser is given for a chunk of the microphone: with the canceller, what is left of it once
    /// Assist's sound is taken out; with the canceller off, a quiet room while Assist sounds (keeping time);
    /// with headphones, the chunk.
    func hearable(_ chunk: [Int16], endsAt: Double, spotter: KeywordSpotter) -> (
        samples: [Int16], closed: Bool, cancelled: Bool
    ) {
        // Speech Dispatcher plays on its own: its speech never reaches the mixer, so it cannot be taken out.
        let speechApart = session.speech != nil && !((session.speech as? WatchedSpeech)?.inner is SpeechService)
        let speaking = speechApart && (session.speech?.isSpeaking ?? false)
        let sounding = played?.sounding(at: endsAt) ?? false
        switch mode {
        case .headphones:
            return (chunk, false, false)
        case .off:
            return sounding || (session.speech?.isSpeaking ?? false)
                ? (VoiceListener.quietRoom, true, false) : (chunk, false, false)
        case .on:
            if canceller == nil, !tried, let played { startCanceller(played, spotter: spotter) }
            guard let canceller, !speaking else {
                canceller?.skip(count: chunk.count)
                return sounding || speaking ? (VoiceListener.quietRoom, true, false) : (chunk, false, false)
            }
            let heard = room?.add(to: chunk) ?? chunk
            let left = canceller.process(heard, endsAt: endsAt)
            if endsAt - keptAt >= Self.keepEverySeconds { keepPath(now: endsAt) }
            return (left, false, true)
        }
    }

    /// How often what the canceller learnt is kept while it listens (and once more when listening ends): a
    /// session that is killed loses at most this much.
    static let keepEverySeconds = 120.0

    private var devices: String {
        EchoPathFile.devices(sink: session.sound?.mixer.sinkName ?? "no sound", microphone: microphone)
    }

    /// Keeps what the canceller learnt of the room for the next session, when it learnt enough to be worth it.
    /// The listening thread.
    func keepPath(now: Double = ProcessInfo.processInfo.systemUptime, last: Bool = false) {
        keptAt = now
        guard let canceller else { return }
        guard let path = canceller.learntPath(devices: devices) else {
            if last {
                let seconds = String(format: "%.1f", Double(canceller.soundedBlocks) / 100)
                let taken = String(format: "%.1f", canceller.track.enhancementDecibels)
                trace.line?(
                    "echo: the room is not kept: Assist sounded for \(seconds) s, \(taken) dB taken out, its echo \(canceller.track.echoHeard ? "heard" : "not heard") (10 s, 20 dB and an echo heard are needed)"
                )
            }
            return
        }
        do {
            try EchoPathFile.keep(path, at: pathFile)
            trace.line?(
                "echo: the room kept in \(pathFile.path) (\(String(format: "%.1f", path.enhancementDecibels)) dB taken out)"
            )
        } catch {
            trace.line?("echo: the room cannot be kept in \(pathFile.path): \(error)")
        }
    }

    private func startCanceller(_ played: PlayedSound, spotter: KeywordSpotter) {
        tried = true
        do {
            let kept = EchoPathFile.load(pathFile, devices: devices)
            if let refused = kept.refused { trace.line?("echo: \(refused)") }
            let made = try EchoCanceller(played: played, remembered: kept.path)
            made.trace = trace.line
            if made.startedFrom != nil {
                trace.line?("echo: the canceller starts from the room kept in \(pathFile.path)")
            }
            let (room, played) = (room, trace.played)
            made.onPlayed = { samples in
                played?(samples)
                room?.heard(played: samples)
            }
            made.onNotice = { [weak self] notice in self?.noticed(notice) }
            startMs = spotter.heardMs
            let start = startMs
            spotter.overSound = { [weak made] from, to in
                made?.saidByAPerson(fromMs: from - start, toMs: to - start)
            }
            spotter.assistSounding = { [weak made] from, to in
                made?.track.playing(fromMs: from - start, toMs: to - start) ?? false
            }
            spotter.searches.besideAllowed = session.environment["ASSIST_VOICE_SEARCHES_BESIDE"] != "0"
            spotter.onCandidate = { [weak self] detection in self?.hold(for: detection) }
            canceller = made
            trace.line?("echo canceller on")
        } catch {
            // Said once; commands are heard while Assist is quiet, as with voice.echo-cancel = "off".
            say(error.description)
        }
    }

    /// Whether what was heard from `fromMs` to `toMs` (the recogniser's clock) was Assist's sound coming back,
    /// not a person's voice.
    func isAssistsOwnVoice(fromMs: Int, toMs: Int) -> Bool {
        canceller?.saidByAPerson(fromMs: fromMs - startMs, toMs: toMs - startMs) == false
    }

    /// An utterance follower's `passOver`: Assist's own voice is passed over undecoded, with `said` traced of it.
    func passOver(_ said: String) -> (Int, Int) -> Bool {
        { [weak self] fromMs, toMs in
            guard let self, isAssistsOwnVoice(fromMs: fromMs, toMs: toMs) else { return false }
            trace.line?("\(said) (\(fromMs)–\(toMs) ms, not decoded)")
            return true
        }
    }

    /// What the canceller found that the person must act on, said once.
    private func noticed(_ notice: EchoCanceller.Notice) {
        switch notice {
        case .clipping: say(session.phrases.text("voice.echo-clipping"))
        case .unaligned, .outOfRange: say(session.phrases.text("voice.echo-unaligned"))
        }
    }

    /// A phrase said over Assist's sound is heard and may be a command: the sound stops at once (for at most
    /// 1.5 s), before the phrase is sure. Acting on it, or finding it was nothing, lets the sound go on.
    private func hold(for detection: Detection) {
        guard let mixer = session.sound?.mixer else { return }
        mixer.hold(seconds: 1.5)
        holding = true
        trace.line?("holding the sound: \(detection.phrase) heard over it at \(detection.endMs) ms")
    }

    /// A person speaks over Assist's sound while a question is asked (the answer, begun): the sound stops at once,
    /// as for a phrase (`hold(for:)`), and goes on if the answer comes to nothing.
    func holdForAnswer(fromMs: Int, toMs: Int) {
        guard !holding, let canceller, canceller.saidByAPerson(fromMs: fromMs - startMs, toMs: toMs - startMs) == true,
            let mixer = session.sound?.mixer
        else { return }
        mixer.hold(seconds: 1.5)
        holding = true
        trace.line?("holding the sound: an answer is said over it from \(fromMs) ms")
    }

    /// The mixer held for a phrase now acted on, to be released once it has acted (nil when none is held).
    func takeHold() -> AudioMixer? {
        defer { holding = false }
        return holding ? session.sound?.mixer : nil
    }

    /// Lets held sound go on when the phrase that held it came to nothing (`awaiting`: words after it are
    /// still awaited).
    func releaseIfNothingHeard(_ spotter: KeywordSpotter, awaiting: Bool) {
        guard holding, !spotter.hasCandidates, !awaiting else { return }
        holding = false
        session.sound?.mixer.release()
        trace.line?("the sound goes on: nothing was acted on")
    }
}

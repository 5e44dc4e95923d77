import AssistCore
import Audio
import Foundation
import Interaction
import PluginHost
import Voice

/// `assist listen`: prints each voice command heard, until Ctrl+C or the end of a WAV input.
package enum Listening {
    /// Listens as `assist listen` does, its lines through `terminal` (the process's own streams by default; a
    /// virtual terminal for a test in process, whose hang-up ends it as Ctrl+C does).
    package static func run(
        options: HostOptions, json: Bool, window: Bool, phrases: [String], reference: String? = nil,
        echoPath: String? = nil, scores: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment, terminal: SessionTerminal = .standard
    ) throws {
        // The played sound is read before anything starts: a bad file is a usage error.
        let played = try reference.map { try readReference($0, errors: terminal.errors) }
        if echoPath != nil, played == nil {
            throw CLIFailure(
                message: "--echo-path keeps the room the echo canceller learns: give --reference too.", exitCode: 64)
        }
        let pathFile = echoPath.map { URL(fileURLWithPath: $0) }
        let (session, model) = try VoicePhrases.openSession(options, environment: environment, terminal: terminal)
        let language = model.language
        let wanted =
            phrases.isEmpty
            ? VoicePhrases.phrases(
                records: session.features.records, router: session.services.interaction.router, language: language)
            : phrases
        let thresholds = VoiceThresholds.load(data: session.paths.data, share: session.paths.share, language: language)
        let spotter: KeywordSpotter
        // As `always` hears them: a phrase too short to be told from everyday talk only when said alone.
        let alone = window ? 0 : KeywordSpotter.alwaysMinimumPhones
        do {
            spotter = try KeywordSpotter(model: model, phrases: thresholds.apply(to: wanted), aloneBelow: alone)
        } catch {
            throw CLIFailure(message: error.description, exitCode: 69)
        }
        // Always-on: a phrase is heard when said on its own, not inside a sentence.
        spotter.standalone = true
        // Each phrase spotted is judged once more for its printed score, unless told not to (as the shell).
        spotter.judgesSpotted = !window && scores
        let trace = VoiceTrace(environment: environment)
        spotter.trace = trace.line
        for line in VoicePhrases.unknownWordLines(spotter) { terminal.errors.writeLine(line) }
        let spec = try options.microphone()
        let input: AudioInput
        do { input = try VoiceListener.open(spec) } catch {
            let why = (error as? AudioError)?.message ?? "\(error)"
            throw CLIFailure(
                message: "The microphone cannot be opened: \(why) Choose another with --mic.", exitCode: 74)
        }
        // With --reference, Assist's sound is taken out first, and a phrase heard over it must be a person's.
        var canceller: EchoCanceller?
        if let played {
            let kept = pathFile.map { EchoPathFile.load($0, devices: EchoPath.recordingDevices) }
            if let refused = kept?.refused {
                terminal.errors.writeLine("\(refused) What this run learns is kept there instead.")
            }
            do { canceller = try EchoCanceller(reference: played, remembered: kept?.path) } catch {
                throw CLIFailure(message: error.description, exitCode: 69)
            }
            canceller?.trace = trace.line
            canceller?.onNotice = { notice in terminal.errors.writeLine(noticeLine(notice)) }
            spotter.overSound = { [weak canceller] from, to in canceller?.saidByAPerson(fromMs: from, toMs: to) }
            spotter.assistSounding = { [weak canceller] from, to in
                canceller?.track.playing(fromMs: from, toMs: to) ?? false
            }
            spotter.searches.besideAllowed = environment["ASSIST_VOICE_SEARCHES_BESIDE"] != "0"
        }
        let stopped = StopFlag()
        let interrupt = terminal.takesSignals ? SignalWatch.watch(SIGINT) { stopped.set() } : nil
        defer { interrupt?.cancel() }
        terminal.hangUp?.watch { stopped.set() }
        // Phrases that take words ("find object cup"): the words are decoded after the phrase and printed with it.
        // Plugins set their lists on the main loop (their library's init), so this runs there.
        let found = Found<[String: ArgumentFollower.Wanted]>()
        session.loop.post {
            found.value = VoicePhrases.followers(
                features: session.features, router: { session.services.interaction.router }, language: language)
        }
        _ = session.loop.run(until: { found.value != nil }, timeoutSeconds: 30)
        // With --phrase, the phrases named are listened for as they are, with no words after them.
        let takes = phrases.isEmpty ? found.value ?? [:] : [:]
        spotter.takesWords = Set(takes.keys)
        for line in VoicePhrases.unknownChoiceLines(spotter, takes) { terminal.errors.writeLine(line) }
        let out = HeardLines(
            spotter: spotter, json: json, takes: takes, canceller: canceller, output: terminal.output)
        // Said once everything is loaded (the plugins' lists among it), as the first sound is read: a live input's
        // pace starts here. With --json the line goes to standard error, so that standard output is JSON alone.
        let ready = "Listening for \(spotter.phrases.count) phrases in \(input.name). Ctrl+C ends."
        (json ? terminal.errors : terminal.output).writeLine(ready)
        var level = SoundLevel()
        while !stopped.isSet {
            let chunk: [Int16]
            do { chunk = try input.read(frames: VoiceListener.chunkFrames) } catch {
                throw CLIFailure(
                    message: "The microphone stopped: \((error as? AudioError)?.message ?? "\(error)")", exitCode: 74)
            }
            let ended = chunk.isEmpty
            if let warning = level.add(chunk) { terminal.errors.writeLine(warning.english) }
            // At the end, half a second of silence lets a phrase said last finish, then what is held is sure.
            let heard =
                ended
                ? spotter.feed(VoiceListener.quietRoom(tenths: 2)) + spotter.flush()
                : spotter.feed(hearable(chunk, canceller, trace))
            if window {
                out.decodeWindow()
                if ended { out.finishWindow() }
            } else {
                out.take(heard)
                if ended { out.finishFollowing() }
            }
            if ended { break }
        }
        if let canceller { terminal.errors.writeLine(summary(canceller, json: json)) }
        if let canceller, let pathFile, let path = canceller.learntPath(devices: EchoPath.recordingDevices) {
            do { try EchoPathFile.keep(path, at: pathFile) } catch {
                throw CLIFailure(message: "The echo path \(pathFile.path) cannot be written: \(error)", exitCode: 73)
            }
        }
    }

    /// What the recogniser is given for `chunk`: with the canceller, what it leaves. With the voice trace, it is
    /// written beside it (as the shell does), to be heard again.
    private static func hearable(_ chunk: [Int16], _ canceller: EchoCanceller?, _ trace: VoiceTrace) -> [Int16] {
        let fed = canceller?.process(chunk) ?? chunk
        trace.sound?(fed)
        return fed
    }

    /// The played sound of `--reference wav:PATH`, as 16 kHz mono; a usage error when it cannot be used.
    private static func readReference(_ option: String, errors: any LineOutput) throws -> [Int16] {
        guard case .wav(let url)? = AudioInputSpec(option) else {
            throw CLIFailure(
                message: "--reference takes wav:PATH, the sound the speakers played, not \(option).", exitCode: 64)
        }
        let file: WavFile
        do { file = try WavFile.read(url) } catch {
            let why = (error as? AudioError)?.message ?? "\(error)"
            throw CLIFailure(
                message: "The reference \(url.path) cannot be read: \(why) Give the WAV file the speakers played.",
                exitCode: 66)
        }
        let samples = AudioConverter.convert(file.samples, from: file.format, to: VoiceListener.format)
        if !samples.contains(where: { abs(Int($0)) > 64 }) {
            errors.writeLine("The reference \(url.path) is silent: there is nothing to take out of the microphone.")
        }
        return samples
    }

    /// The sentence for what the canceller found wrong with a recording.
    package static func noticeLine(_ notice: EchoCanceller.Notice) -> String {
        switch notice {
        case .clipping:
            return
                "The microphone clips while the reference plays: its echo cannot be taken out, so phrases said over it are not heard. Record at a lower level."
        case .unaligned:
            return
                "The reference's sound was not found in the microphone's: check that --reference is what the speakers played, starting when --mic starts."
        case .outOfRange(let lagMs):
            return
                "The reference lies \(lagMs) ms from its echo in the microphone, at the edge of what is searched (half a second early to a second late): check that --reference starts when --mic starts."
        }
    }

    /// After the recording: how far the echo came back and how much of it was taken out, for standard error.
    private static func summary(_ canceller: EchoCanceller, json: Bool) -> String {
        let delay = canceller.delayMs.map(String.init) ?? "null"
        let enhancement = String(format: "%.1f", canceller.track.enhancementDecibels)
        let kept = canceller.startedFrom != nil
        return json
            ? #"{"echo_delay_ms":\#(delay),"erle_db":\#(enhancement),"started_from_kept_room":\#(kept)}"#
            : "Echo: \(canceller.delayMs.map { "delay \($0) ms" } ?? "delay not found"), \(enhancement) dB taken out"
                + (kept ? ", starting from the room kept." : ".")
    }
}

/// What `assist listen` prints of what the spotter hears: a phrase with the words that follow it, once they are
/// known, or (`--window`) each utterance decoded whole, as a command or as not one.
private final class HeardLines {
    let spotter: KeywordSpotter
    let json: Bool
    /// The phrases that take words, and the words each wants.
    let takes: [String: ArgumentFollower.Wanted]
    let canceller: EchoCanceller?
    /// A phrase heard whose words are being listened for.
    var following: (Detection, ArgumentFollower)?
    /// `--window`: the utterance being decoded.
    var inWindow: ArgumentFollower?

    /// Where the lines go (standard output).
    let output: any LineOutput

    init(
        spotter: KeywordSpotter, json: Bool, takes: [String: ArgumentFollower.Wanted], canceller: EchoCanceller?,
        output: any LineOutput
    ) {
        self.output = output
        self.spotter = spotter
        self.json = json
        self.takes = takes
        self.canceller = canceller
    }

    func write(_ line: String) { output.writeRow(line) }

    func print(_ heard: Detection) {
        write(
            json
                ? heard.json
                : "Heard “\(heard.phrase)\(heard.argument.map { " " + $0 } ?? "")” at \(Double(heard.startMs) / 1000) s."
        )
    }

    /// Always-on: phrases just heard are printed, or followed when they take words (one at a time).
    func take(_ heard: [Detection]) {
        for heard in heard where following == nil {
            if let wanted = takes[heard.phrase] {
                let follower = ArgumentFollower(
                    phrase: heard.phrase, wanted: wanted, afterMs: heard.endMs, phraseStartMs: heard.startMs)
                following = (heard, follower)
            } else {
                print(heard)
            }
        }
        follow()
    }

    /// Follows a phrase heard until its words are known.
    func follow() {
        guard let (detection, follower) = following, let outcome = follower.step(spotter) else { return }
        switch outcome {
        case .words(let words):
            var heard = detection
            heard.argument = words
            print(heard)
            following = nil
        case .prompt:
            follower.listenAgain(fromMs: spotter.heardMs)
        case .nothing, .rejected:
            print(detection)
            following = nil
        }
    }

    /// At the end of the input: the words of a phrase said last are heard out over the room's sound.
    func finishFollowing() {
        for _ in 0..<100 where following != nil {
            _ = spotter.feed(VoiceListener.quietRoom(tenths: 1))
            follow()
        }
        if let (detection, _) = following { print(detection) }
    }

    /// `--window`: every utterance is a command said in a window, decoded as a whole.
    func decodeWindow() {
        if inWindow == nil {
            inWindow = ArgumentFollower.window(
                phrases: spotter.phrases.map(\.text), lists: takes, fromMs: spotter.heardMs, waitMs: Int.max / 2)
        }
        guard let follower = inWindow, let outcome = follower.step(spotter) else { return }
        inWindow = nil
        if case .rejected(let nearest, let confidence) = outcome, let span = follower.span {
            write(
                json
                    ? Detection.rejectedJSON(
                        nearest: nearest, startMs: span.startMs, endMs: span.endMs, confidence: confidence)
                    : "Not a command at \(Double(span.startMs) / 1000) s (nearest “\(nearest ?? "")”, confidence \(String(format: "%.2f", confidence)))."
            )
            return
        }
        guard case .words(let said) = outcome, let span = follower.span else { return }
        // Over Assist's sound, what the canceller took away was Assist's voice: no command.
        if canceller?.saidByAPerson(fromMs: span.startMs, toMs: span.endMs) == false {
            write(
                json
                    ? Detection.rejectedJSON(nearest: said, startMs: span.startMs, endMs: span.endMs, confidence: 0)
                    : "Not a command at \(Double(span.startMs) / 1000) s (Assist's own voice).")
            return
        }
        // "find object cup": the phrase and its word, as a spotted phrase and the words after it print.
        let phrase = takes.keys.filter { said.hasPrefix($0 + " ") }.max { $0.count < $1.count }
        var heard = Detection(
            phrase: phrase ?? said, startMs: span.startMs, endMs: span.endMs, score: 0,
            argument: phrase.map { String(said.dropFirst($0.count + 1)) })
        heard.confidence = follower.confidence
        print(heard)
    }

    /// At the end of the input: the utterance under way is decoded over the room's sound.
    func finishWindow() {
        for _ in 0..<100 where inWindow != nil {
            _ = spotter.feed(VoiceListener.quietRoom(tenths: 1))
            decodeWindow()
        }
    }
}

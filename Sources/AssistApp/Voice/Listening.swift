import Audio
import Foundation
import PluginHost
import Voice

/// `assist listen`: prints each voice command heard, until Ctrl+C or the end of a WAV input.
package enum Listening {
    package static func run(options: HostOptions, json: Bool, window: Bool, phrases: [String]) throws {
        let (session, model) = try VoicePhrases.openSession(options)
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
        spotter.judgesSpotted = !window
        spotter.trace = VoiceSession.trace
        for line in VoicePhrases.unknownWordLines(spotter) {
            try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
        }
        let spec = try options.microphone()
        let input: AudioInput
        do { input = try spec.open(format: VoiceListener.format) } catch {
            let why = (error as? AudioError)?.message ?? "\(error)"
            throw CLIFailure(
                message: "The microphone cannot be opened: \(why) Typed and key commands still work.", exitCode: 74)
        }
        // With --json the line goes to standard error, so that standard output is JSON alone.
        let ready = "Listening for \(spotter.phrases.count) phrases in \(input.name). Ctrl+C ends.\n"
        try? (json ? FileHandle.standardError : FileHandle.standardOutput).write(contentsOf: Data(ready.utf8))
        let stopped = StopFlag()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { stopped.set() }
        source.resume()
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
        for line in VoicePhrases.unknownChoiceLines(spotter, takes) {
            try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
        }
        var following: (Detection, ArgumentFollower)?
        func print(_ heard: Detection) {
            let line =
                json
                ? heard.json
                : "Heard “\(heard.phrase)\(heard.argument.map { " " + $0 } ?? "")” at \(Double(heard.startMs) / 1000) s."
            try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
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
        // --window: every utterance is a command said in a window, decoded as a whole.
        var inWindow: ArgumentFollower?
        func decodeWindow() {
            if inWindow == nil {
                inWindow = ArgumentFollower.window(
                    phrases: spotter.phrases.map(\.text), lists: takes, fromMs: spotter.heardMs, waitMs: Int.max / 2)
            }
            guard let follower = inWindow, let outcome = follower.step(spotter) else { return }
            inWindow = nil
            if case .rejected(let nearest, let confidence) = outcome, let span = follower.span {
                let line =
                    json
                    ? Detection.rejectedJSON(
                        nearest: nearest, startMs: span.startMs, endMs: span.endMs, confidence: confidence)
                    : "Not a command at \(Double(span.startMs) / 1000) s (nearest “\(nearest ?? "")”, confidence \(String(format: "%.2f", confidence)))."
                try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
                return
            }
            guard case .words(let said) = outcome, let span = follower.span else { return }
            // "find object cup": the phrase and its word, as a spotted phrase and the words after it print.
            let phrase = takes.keys.filter { said.hasPrefix($0 + " ") }.max { $0.count < $1.count }
            var heard = Detection(
                phrase: phrase ?? said, startMs: span.startMs, endMs: span.endMs, score: 0,
                argument: phrase.map { String(said.dropFirst($0.count + 1)) })
            heard.confidence = follower.confidence
            print(heard)
        }
        var level = SoundLevel()
        while !stopped.isSet {
            let chunk: [Int16]
            do { chunk = try input.read(frames: VoiceListener.chunkFrames) } catch {
                throw CLIFailure(
                    message: "The microphone stopped: \((error as? AudioError)?.message ?? "\(error)")", exitCode: 74)
            }
            let ended = chunk.isEmpty
            if let warning = level.add(chunk) {
                try? FileHandle.standardError.write(contentsOf: Data((warning + "\n").utf8))
            }
            // At the end, half a second of silence lets a phrase said last finish, then what is held is sure.
            let heard =
                ended
                ? spotter.feed(VoiceListener.quietRoom + VoiceListener.quietRoom) + spotter.flush()
                : spotter.feed(chunk)
            if window {
                decodeWindow()
                if ended {
                    for _ in 0..<100 where inWindow != nil {
                        _ = spotter.feed(VoiceListener.quietRoom)
                        decodeWindow()
                    }
                    break
                }
                continue
            }
            for heard in heard where following == nil {
                if let wanted = takes[heard.phrase] {
                    following = (
                        heard,
                        ArgumentFollower(
                            phrase: heard.phrase, wanted: wanted, afterMs: heard.endMs, phraseStartMs: heard.startMs)
                    )
                } else {
                    print(heard)
                }
            }
            follow()
            if ended {
                // The words of a phrase said last are heard out over the room's sound.
                for _ in 0..<100 where following != nil {
                    _ = spotter.feed(VoiceListener.quietRoom)
                    follow()
                }
                if let (detection, _) = following { print(detection) }
                break
            }
        }
    }
}

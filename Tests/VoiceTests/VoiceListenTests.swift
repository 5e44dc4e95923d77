import AssistCore
import Audio
import Foundation
import HostTesting
import Testing
import Voice

/// What both suites share: a folder of their own, natural voices rendered, streams made, the shell run hearing
/// them.
protocol VoiceListening {
    var folder: TemporaryDirectory { get }
}

extension VoiceListening {
    static var commands: [String] { ["read text", "find object", "collect videos", "start survey", "sync photos now"] }

    /// `assist listen ARGUMENTS` in process (`InProcessApp`), its data in the test's folder.
    func listen(_ arguments: [String]) throws -> ProcessResult {
        try InProcessApp.listen(["listen", "--data-dir", folder.path("data").path] + arguments, timeoutSeconds: 120)
    }

    /// A labelled set rendered by scripts/voice-set.py: positives per phrase and negatives.
    func render(renderings: Int, negatives: Int) throws -> URL? {
        let python = BuildProducts.packageRoot.appendingPathComponent(".build/voices/bin/python")
        guard FileManager.default.fileExists(atPath: python.path) else { return nil }
        let set = folder.path("set")
        let made = try TestMedia.voiceSet(
            ["--renderings", "\(renderings)", "--negatives", "\(negatives)", "--seed", "11"] + Self.commands,
            into: set, python: python.path)
        try #require(made.status == 0, "\(made.standardError)")
        return set
    }

    /// `count` renderings of each of `labels` by scripts/voice-set.py (clean, then pink noise 25, 15 and 10 dB
    /// under the speech) in the folder `name`, labelled, in order; nil when piper is not installed. `speakers` take
    /// turns (joe, piper's, and flite's slt, rms and awb).
    func renderings(
        _ labels: [String], count: Int, seed: Int, into name: String, speakers: String = "joe", lead: Double? = nil
    ) throws -> [(String, URL)]? {
        let python = BuildProducts.packageRoot.appendingPathComponent(".build/voices/bin/python")
        guard FileManager.default.fileExists(atPath: python.path) else {
            print("skipped: piper-tts is not installed in .build/voices (make voices)")
            return nil
        }
        let set = folder.path(name)
        let made = try TestMedia.voiceSet(
            ["--renderings", "\(count)", "--negatives", "0", "--seed", "\(seed)", "--speakers", speakers]
                + (lead.map { ["--lead", "\($0)"] } ?? []) + labels,
            into: set,
            python: python.path)
        try #require(made.status == 0, "\(made.standardError)")
        var files: [(String, URL)] = []
        for label in labels {
            let wavs = try FileManager.default.contentsOfDirectory(
                at: set.appendingPathComponent(label.replacingOccurrences(of: " ", with: "_")),
                includingPropertiesForKeys: nil
            ).sorted { $0.path < $1.path }
            files += wavs.map { (label, $0) }
        }
        return files
    }

    /// The shell in `always` mode, in this process (`InProcessApp`), hearing `parts` (natural voices, each with
    /// `pad` seconds of a quiet room around it) at a microphone's pace, with `lines` typed: what it printed, by
    /// line, and the voice trace. Where
    /// programs are slowed (the sanitizer lanes) the room is heard longer before the first part, while the
    /// searches load.
    func shellAlways(
        hearing parts: [(voice: WavFile, pad: Double)], typing lines: [ProcessRunner.TypedLine],
        environment: [String: String] = [:]
    ) throws -> (lines: [String], trace: String) {
        let said = try room(hearing: parts, leadSeconds: 1.5 * (ProcessRunner.timeScale - 1))
        let trace = folder.path("trace-\(UUID().uuidString).txt")
        // `--voice always`, as a person starts it (issue 72), not a config file; the shell in this process, its
        // trace and settings from the environment given (the real terminal is `aTextQuestionIsAnsweredAloud…`'s).
        let run = try InProcessApp.typing(
            [
                "shell", "--no-speech", "--data-dir", folder.path("data").path, "--voice", "always", "--mic",
                "live:" + said.path,
            ],
            lines: lines, environment: environment.merging(["ASSIST_VOICE_TRACE": trace.path]) { $1 },
            timeoutSeconds: 30)
        return (run.output.split(separator: "\n").map(String.init), Self.readTrace(trace))
    }

    /// A WAV file of `parts` in a quiet room, each with `pad` seconds of it around, after `leadSeconds` of it.
    func room(hearing parts: [(voice: WavFile, pad: Double)], leadSeconds: Double) throws -> URL {
        let format = parts[0].voice.format
        // The room's noise is seeded: new each run, it made what the decoders hear of a word vary from run to run
        // (the first "cup" of the text-question test judged 0.01 to 0.72 over the same span, dictated as "", "of",
        // "huh" or "cup", and the flow failed 1 run in 3 on a loaded machine); with these seeds, "cup" each time
        // (0.72), 4 of 4 on a loaded machine.
        var samples =
            NaturalVoice.inRoom(
                WavFile(format: format, samples: []), gain: 1, noiseDecibels: -50, padSeconds: leadSeconds, seed: 3_000
            ).samples
        for (index, part) in parts.enumerated() {
            samples +=
                NaturalVoice.inRoom(
                    part.voice, gain: 1, noiseDecibels: -50, padSeconds: part.pad, seed: 3_001 + UInt64(index)
                ).samples
        }
        let said = folder.path("said-\(UUID().uuidString).wav")
        try WavFile(format: format, samples: samples).data.write(to: said)
        return said
    }

    /// Each phrase `assist listen --json` printed, with the middle of where it was heard (ms).
    static func heardAt(_ lines: [String]) -> [(String, Int)] {
        lines.compactMap { line -> (String, Int)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let phrase = object["phrase"] as? String, let start = object["start_ms"] as? Int,
                let end = object["end_ms"] as? Int
            else { return nil }
            return (phrase, (start + end) / 2)
        }
    }

    /// The voice trace at `url` without its once-a-second count of chunks fed: a failure's message, which
    /// carries it, is printed in CI's summary up to 40 lines.
    static func readTrace(_ url: URL) -> String {
        let traced = (try? String(contentsOf: url, encoding: .utf8)) ?? "(no trace)"
        return traced.split(separator: "\n").filter { !$0.contains(" chunks") }.joined(separator: "\n")
    }

    /// `parts` said by a natural voice in a quiet room, each followed by its pause, after `lead` seconds of the
    /// room (pauses scaled where programs are slowed), as a file for `--mic live:`; nil, saying why, without
    /// the voice.
    func saying(_ parts: [(text: String, pause: Double)], after lead: Double) throws -> URL? {
        let voices: [WavFile]
        do { voices = try NaturalVoice.speak(each: parts.map(\.text)) } catch {
            print("skipped: \(error)")
            return nil
        }
        let scale = ProcessRunner.timeScale
        let format = voices[0].format
        var samples =
            NaturalVoice.inRoom(
                WavFile(format: format, samples: []), gain: 1, noiseDecibels: -50, padSeconds: lead * scale
            )
            .samples
        for (voice, part) in zip(voices, parts) {
            samples += NaturalVoice.inRoom(voice, gain: 1, noiseDecibels: -50, padSeconds: part.pause * scale).samples
        }
        let said = folder.path("said-\(UUID().uuidString).wav")
        try WavFile(format: format, samples: samples).data.write(to: said)
        return said
    }

    /// One stream of every file with a second of quiet between, and where each file lies in it (ms).
    func stream(_ files: [(label: String, url: URL)], gapSeconds: (String) -> Int = { _ in 1 }) throws -> (
        URL, [(label: String, from: Int, to: Int)]
    ) {
        // A quiet room between recordings, never digital silence (no microphone gives it).
        func gap(_ seconds: Int) throws -> URL {
            let gap = folder.path("gap-\(seconds).wav")
            _ = try ProcessRunner.run(
                "/usr/bin/sox",
                [
                    "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", gap.path, "synth", "\(seconds)", "pinknoise",
                    "vol",
                    "0.002",
                ])
            return gap
        }
        var parts: [String] = []
        var spans: [(String, Int, Int)] = []
        var at = 0
        for file in files {
            let seconds = try ProcessRunner.run("/usr/bin/soxi", ["-D", file.url.path]).standardOutput
            let length = Int((Double(seconds.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) * 1000)
            spans.append((file.label, at, at + length))
            let pause = gapSeconds(file.label)
            at += length + pause * 1000
            parts += [file.url.path, try gap(pause).path]
        }
        let out = folder.path("stream.wav")
        let joined = try ProcessRunner.run("/usr/bin/sox", parts + [out.path])
        try #require(joined.status == 0, "\(joined.standardError)")
        return (out, spans)
    }

    /// One `struct input_event` (64-bit Linux): a timeval, EV_KEY, the key's code, and 1 pressed or 0 released.
    static func keyEvent(code: UInt16, down: Bool) -> Data {
        var data = Data(count: 16)
        for value in [UInt16(1), code] { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        withUnsafeBytes(of: Int32(down ? 1 : 0).littleEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// Push-to-talk held down, read through evdev (`voice.key-device`; here a FIFO standing in for
    /// /dev/input/eventN, written as the kernel writes): the question said while F4 is held is heard and
    /// answered; the same question after F4 came up is not; a device that cannot be read is said in one
    /// sentence and the shell goes on.
    /// The shell in push-to-talk with F4 held on a keyboard event device (a FIFO standing in for it): F4 goes
    /// down `pressAfter` s after the shell opens the device and up `releaseAfter` s later (never, with nil);
    /// `voice`, after a quiet room while the searches load, at a microphone's pace. With `speaking` the shell
    /// speaks into a WAV file. "quit" is typed once `done` holds or after `quitAfter` s. What it printed, by
    /// line, and the voice trace.
    func heldShell(
        saying voice: WavFile, pressAfter: Double = 0, releaseAfter: Double?, speaking: Bool = false,
        quitAfter: Double, done: @escaping @Sendable (String) -> Bool
    )
        throws -> (lines: [String], trace: String)
    {
        let name = UUID().uuidString
        let said = folder.path("held-\(name).wav")
        let room = NaturalVoice.inRoom(
            WavFile(format: voice.format, samples: []), gain: 1, noiseDecibels: -50,
            padSeconds: 3 * ProcessRunner.timeScale)
        // The words begin about 7.5 s into the sound (the room padded on both sides, then 1.5 s), after the
        // shell has started; `quitAfter` leaves a loaded machine room past that, `done` quits sooner.
        let question = NaturalVoice.inRoom(voice, gain: 1, noiseDecibels: -50, padSeconds: 1.5)
        try WavFile(format: voice.format, samples: room.samples + question.samples).data.write(to: said)
        let f4: UInt16 = 62
        let device = folder.path("event-kbd-\(name)")
        try #require(mkfifo(device.path, 0o600) == 0)
        try "[voice]\nmode = \"push-to-talk\"\nkey-device = \"\(device.path)\"\n".write(
            to: folder.path("held.toml"), atomically: false, encoding: .utf8)
        let keyboard = Thread {
            guard let handle = FileHandle(forWritingAtPath: device.path) else { return }
            Thread.sleep(forTimeInterval: pressAfter)
            handle.write(Self.keyEvent(code: f4, down: true))
            if let releaseAfter {
                Thread.sleep(forTimeInterval: releaseAfter)
                handle.write(Self.keyEvent(code: f4, down: false))
            }
            Thread.sleep(forTimeInterval: 40 * ProcessRunner.timeScale)
            try? handle.close()
        }
        keyboard.start()
        let trace = folder.path("held-trace-\(name).txt")
        let run = try InProcessApp.typing(
            ["shell"]
                + (speaking ? ["--audio-out", "wav:" + folder.path("held-\(name)-out.wav").path] : ["--no-speech"])
                + [
                    "--data-dir", folder.path("data").path, "--config", folder.path("held.toml").path, "--mic",
                    "live:" + said.path,
                ],
            lines: [ProcessRunner.TypedLine("quit", after: quitAfter, once: done)],
            environment: ["ASSIST_VOICE_TRACE": trace.path], timeoutSeconds: 30 + quitAfter)
        return (run.output.split(separator: "\n").map(String.init), Self.readTrace(trace))
    }
}

/// `assist listen` on speech from a natural voice (piper's Joe, rendered now by scripts/voice-set.py, with
/// pink noise mixed in at several levels): commands and everyday sentences in one continuous stream, as a
/// microphone would give them, with the shipped thresholds. And what bad input gets.
@Suite("Voice commands heard by assist listen", .serialized)
struct VoiceListenTests: VoiceListening {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("assist-voice") }

    @Test func commandsFromANaturalVoiceInANoisyRoomAreHeardAndSentencesAreNot() throws {
        guard let set = try render(renderings: 4, negatives: 24) else {
            print("skipped: piper-tts is not installed in .build/voices (make voices)")
            return
        }
        var files: [(String, URL)] = []
        for command in Self.commands {
            let wavs = try FileManager.default.contentsOfDirectory(
                at: set.appendingPathComponent(command.replacingOccurrences(of: " ", with: "_")),
                includingPropertiesForKeys: nil
            ).sorted { $0.path < $1.path }
            files += wavs.map { (command, $0) }
        }
        let negatives = try FileManager.default.contentsOfDirectory(
            at: set.appendingPathComponent("negatives"), includingPropertiesForKeys: nil
        ).sorted { $0.path < $1.path }
        // Commands and sentences mixed, as a day's speech would be.
        var mixed: [(String, URL)] = []
        for (index, file) in files.enumerated() {
            mixed.append(file)
            if index < negatives.count { mixed.append(("", negatives[index])) }
        }
        mixed += negatives.dropFirst(files.count).map { ("", $0) }
        let (stream, spans) = try stream(mixed)
        let result = try listen(["--mic", "wav:" + stream.path, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let heard = Self.heardAt(result.lines)
        var hits = 0
        var falseAlarms: [String] = []
        for (label, from, to) in spans {
            let inside = heard.filter { $0.1 >= from && $0.1 <= to }.map(\.0)
            if !label.isEmpty && inside.contains(label) { hits += 1 }
            falseAlarms += inside.filter { $0 != label }.map { "\($0) in \(label.isEmpty ? "a sentence" : label)" }
        }
        let positives = spans.filter { !$0.label.isEmpty }.count
        let minutes = Double(spans.filter { $0.label.isEmpty }.map { $0.to - $0.from }.reduce(0, +)) / 60_000
        print(
            "voice: heard \(hits) of \(positives) commands; false alarms \(falseAlarms) in \(minutes) min of sentences")
        #expect(Double(hits) >= Double(positives) * 0.85, "recall \(hits) of \(positives): \(result.lines)")
        #expect(falseAlarms.count <= 1, "\(falseAlarms)")
    }

    /// At any time a command is one said on its own: the same words inside a sentence are somebody talking.
    @Test func aCommandSaidOnItsOwnIsHeardAndTheSameWordsInsideASentenceAreNot() throws {
        // (Not "we collect videos ...": the recogniser takes the short "we" into the phrase, so no pause before
        // it can tell.)
        let sentences = ["please collect videos for me", "she will collect videos of the garden"]
        guard let files = try renderings(["collect videos"] + sentences, count: 4, seed: 5, into: "inside") else {
            return
        }
        let (stream, spans) = try stream(files)
        let result = try listen(["--mic", "wav:" + stream.path, "--json", "--phrase", "collect videos"])
        #expect(result.status == 0, "\(result.standardError)")
        let middles = result.lines.compactMap { line -> Int? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let start = object["start_ms"] as? Int, let end = object["end_ms"] as? Int
            else { return nil }
            return (start + end) / 2
        }
        let heardIn = { (label: String) in
            spans.filter { $0.label == label }.filter { span in middles.contains { $0 >= span.from && $0 <= span.to } }
                .count
        }
        #expect(heardIn("collect videos") >= 3, "\(result.lines)")
        for sentence in sentences { #expect(heardIn(sentence) == 0, "\(sentence): \(result.lines)") }
        // Each line has the judge's score in 0...1; with --no-score (as the shell hears, which judges a phrase
        // spotted at any time only when it was said in an utterance the pause rules held) the same phrases at the
        // same moments, with a score only where the shell judged it too.
        let objects = { (lines: [String]) in
            lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        let scored = objects(result.lines)
        #expect(scored.allSatisfy { ($0["score"] as? Double).map { (0...1).contains($0) } == true }, "\(result.lines)")
        let bare = try listen(["--mic", "wav:" + stream.path, "--json", "--no-score", "--phrase", "collect videos"])
        #expect(bare.status == 0, "\(bare.standardError)")
        let heard = { (found: [[String: Any]]) in found.map { "\($0["phrase"] ?? "") \($0["start_ms"] ?? "")" } }
        #expect(heard(objects(bare.lines)) == heard(scored), "\(bare.lines) against \(result.lines)")
        #expect(objects(bare.lines).contains { $0["score"] == nil }, "\(bare.lines)")
        let scores = { (found: [[String: Any]]) in found.map { $0["score"] as? Double } }
        #expect(
            zip(scores(objects(bare.lines)), scores(scored)).allSatisfy { $0 == nil || $0 == $1 },
            "\(bare.lines) against \(result.lines)")
    }

    /// "stop" lies inside "stop photo sensor" and waits for it, but at any time only until the pause a single word
    /// wants is heard after it: said alone, it is acted on well before the 1 s hold is over, by the sound's own
    /// time; "stop photo sensor" said whole is still that phrase, never "stop" too. Before, "stop" said alone
    /// was acted on a second after it was said.
    @Test func aWordThatBeginsALongerPhraseIsActedOnAtThePauseAfterIt() throws {
        guard let files = try renderings(["stop", "stop photo sensor"], count: 4, seed: 9, into: "short") else {
            return
        }
        let (stream, spans) = try stream(files)
        let trace = folder.path("short-trace.txt")
        let result = try InProcessApp.listen(
            [
                "listen", "--data-dir", folder.path("data").path, "--mic", "wav:" + stream.path, "--json", "--phrase",
                "stop", "--phrase", "stop photo sensor",
            ],
            environment: ["ASSIST_VOICE_TRACE": trace.path], timeoutSeconds: 120)
        #expect(result.status == 0, "\(result.standardError)")
        // "sure {...} at N ms": the moment, by the sound fed, that the shell would act.
        let sure = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").compactMap {
            line -> (phrase: String, middle: Int, wait: Int)? in
            guard let range = line.range(of: " sure {"), let at = line.range(of: "} at ") else { return nil }
            let json = String(line[line.index(before: range.upperBound)...at.lowerBound])
            guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
                let phrase = object["phrase"] as? String, let start = object["start_ms"] as? Int,
                let end = object["end_ms"] as? Int, let moment = Int(line[at.upperBound...].prefix { $0.isNumber })
            else { return nil }
            return (phrase, (start + end) / 2, moment - end)
        }
        let inside = { (label: String) in
            spans.filter { $0.label == label }.map { span in
                sure.filter { $0.middle >= span.from && $0.middle <= span.to }
            }
        }
        let stops = inside("stop")
        let soon = stops.filter { $0.contains { $0.phrase == "stop" && $0.wait < PauseRules.holdMs - 300 } }
        #expect(soon.count >= 3, "\(stops)")
        let whole = inside("stop photo sensor")
        #expect(whole.filter { $0.contains { $0.phrase == "stop photo sensor" } }.count >= 3, "\(whole)")
        #expect(whole.allSatisfy { !$0.contains { $0.phrase == "stop" } }, "\(whole)")
    }

    /// Commands with an argument, as Revilio's Siri phrases: "find object" then one of find-object's names (the
    /// list its library sets through `set_choices`, decoded as a grammar), "find text" then open words
    /// (dictation), and "find object" alone (no argument: the feature will ask). Four renderings of each,
    /// clean and with pink noise 25, 15 and 10 dB under the speech.
    @Test func aPhraseThatTakesWordsIsHeardWithTheWordsThatFollowIt() throws {
        let objects = ["cup", "keyboard", "teddy bear"]
        let labels = objects.map { "find object \($0)" } + ["find text emergency exit", "find object"]
        guard let files = try renderings(labels, count: 4, seed: 3, into: "arguments") else { return }
        // After "find object" alone the list is listened for 7 s more (the prompt's time): the next saying waits.
        let (stream, spans) = try stream(files) { $0 == "find object" ? 9 : 2 }
        let result = try listen(["--mic", "wav:" + stream.path, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let heard = result.lines.compactMap { line -> (phrase: String, argument: String?, middle: Int)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let phrase = object["phrase"] as? String, let start = object["start_ms"] as? Int,
                let end = object["end_ms"] as? Int
            else { return nil }
            return (phrase, object["argument"] as? String, (start + end) / 2)
        }
        func heardIn(_ label: String) -> [(phrase: String, argument: String?, middle: Int)] {
            spans.filter { $0.label == label }.compactMap { span in
                heard.first { $0.middle >= span.from && $0.middle <= span.to }
            }
        }
        // Measured over thirteen runs: the name was right in 5 to 10 of the 12 sayings (8 on average): the
        // phrase itself is missed in the noisiest renderings, and of those heard the name was right in all but
        // one or two. (bench/voice.sh measures the same on more sayings.)
        let withNames = objects.flatMap { object in
            heardIn("find object \(object)").filter { $0.phrase == "find object" }.map { ($0.argument, object) }
        }
        let named = withNames.filter { $0.0 == $0.1 }.count
        print(
            "voice arguments: \(named) of 12 names heard with find object, of \(withNames.count) heard; \(result.lines)"
        )
        #expect(named >= 4, "\(result.lines)")
        #expect(withNames.count - named <= 2, "wrong names: \(result.lines)")
        // Alone, the phrase is heard without words after it (once in about seven runs, the noise inside one of
        // the noisier renderings was decoded as a name: the question is said before such a name is acted on
        // only in the shell, so at most one is allowed here).
        let alone = heardIn("find object").filter { $0.phrase == "find object" }
        #expect(alone.filter { $0.argument == nil }.count >= 2, "\(result.lines)")
        #expect(alone.filter { $0.argument != nil }.count <= 1, "\(result.lines)")
        let dictated = heardIn("find text emergency exit").filter { $0.phrase == "find text" }
        #expect(dictated.filter { $0.argument?.isEmpty == false }.count >= 3, "\(result.lines)")
        #expect(dictated.contains { $0.argument?.contains("exit") == true }, "\(result.lines)")
    }

    /// Issue 71: a name said in one breath with "find object" is decoded with the phrase, as one of the whole
    /// commands, from the phrase's start: the recogniser often ends the phrase before its last sound, which, decoded
    /// with the name alone, made "find object cup" "cap" or another name. Eight names, four renderings each, said
    /// by four speakers taking turns (piper's Joe, flite's slt, rms and awb), clean and in noise. Decoded from the
    /// phrase's end, 6 of the 28 names heard were wrong here (1 now); `bench/voice.sh` measures it on more sayings.
    @Test func aNameSaidInOneBreathWithThePhraseIsDecodedWithIt() throws {
        let names = ["cup", "keyboard", "teddy bear", "bottle", "scissors", "laptop", "banana", "cell phone"]
        guard
            let files = try renderings(
                names.map { "find object \($0)" }, count: 4, seed: 29, into: "names", speakers: "joe,slt,rms,awb")
        else { return }
        let (stream, spans) = try stream(files) { _ in 2 }
        let result = try listen(["--mic", "wav:" + stream.path, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        var heard: [(said: String, argument: String?)] = []
        for line in result.lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["phrase"] as? String == "find object", let start = object["start_ms"] as? Int,
                let end = object["end_ms"] as? Int,
                let span = spans.first(where: { (start + end) / 2 >= $0.from && (start + end) / 2 <= $0.to })
            else { continue }
            heard.append((String(span.label.dropFirst("find object ".count)), object["argument"] as? String))
        }
        let right = heard.filter { $0.said == $0.argument }.count
        print("voice names said in one breath: \(right) right of \(heard.count) heard of \(files.count)")
        #expect(heard.count >= 24, "\(result.lines)")
        #expect(heard.count - right <= 2, "\(heard)")
    }

    /// Issue 39: a thing the person taught is one of the names heard after "find object", like the 80 objects:
    /// scikit-image's logo taught as "my badge" from a video made here, then "find object badge" said four
    /// times (clean and with noise 25, 15 and 10 dB under the speech).
    @Test func aTaughtThingsNameIsHeardAfterFindObject() throws {
        guard let files = try renderings(["find object badge"], count: 4, seed: 5, into: "taught") else { return }
        let photos = BuildProducts.packageRoot.appendingPathComponent(".build/test-photos").path
        let video = folder.path("badge.mp4").path
        let made = try ProcessRunner.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-loop", "1", "-i", "\(photos)/brick.png", "-loop", "1", "-i", "\(photos)/logo.png",
                "-filter_complex",
                "[0]scale=640:480,setsar=1[bg];[1]scale=w='200+50*sin(t*1.3)':h=-1:eval=frame,"
                    + "rotate=a='0.5*sin(2*PI*t/6)':c=none:ow='hypot(iw,ih)':oh=ow[fg];"
                    + "[bg][fg]overlay=x='(W-w)/2+40*sin(t*0.7)':y='(H-h)/2':format=auto,format=yuv420p",
                "-t", "5", "-r", "30", video,
            ], timeoutSeconds: 120)
        try #require(made.status == 0, "\(made.standardError)")
        let taught = try InProcessApp.run(
            [
                "run", "--no-speech", "--data-dir", folder.path("data").path, "find-object", "teach", "my badge",
                "--video", video,
            ], timeoutSeconds: 120)
        try #require(taught.status == 0, "\(taught)")
        let (stream, _) = try stream(files) { _ in 2 }
        let result = try listen(["--mic", "wav:" + stream.path, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let arguments = result.lines.compactMap { line -> String? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["phrase"] as? String == "find object"
            else { return nil }
            return object["argument"] as? String ?? ""
        }
        #expect(arguments.filter { $0 == "badge" || $0 == "my badge" }.count >= 2, "\(result.lines)")
    }

    /// Single words are spotted each by its own threshold, and one rendering of "next" said alone in a faint room
    /// was heard as "back" 2 times in 8 here (10 in 16 over other noise; the judge 0.99 sure of "next"): each
    /// single word heard at any time is decoded once more as a choice among the single words, and the referee's
    /// is the word.
    @Test func aSingleWordIsNotTakenForAnother() throws {
        guard let files = try renderings(["next"], count: 1, seed: 7, into: "single-word"),
            let next = try files.first.map({ try WavFile.read($0.1) })
        else { return }
        var samples: [Int16] = []
        var starts: [Int] = []
        for seed in UInt64(1)...8 {
            let rate = next.format.sampleRateHz
            starts.append(samples.count * 1000 / rate + 3_500)
            samples += NaturalVoice.quietRoom(seconds: 3, noiseDecibels: -50, rate: rate, seed: seed).samples
            samples += NaturalVoice.inRoom(next, gain: 1, noiseDecibels: -50, padSeconds: 0.5, seed: seed + 100).samples
        }
        let file = folder.path("single-word.wav")
        try WavFile(format: next.format, samples: samples).data.write(to: file)
        let result = try listen(["--mic", "wav:" + file.path, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let heard = result.lines.compactMap { line -> (phrase: String, start: Int)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let phrase = object["phrase"] as? String, let start = object["start_ms"] as? Int
            else { return nil }
            return (phrase, start)
        }
        let found = starts.filter { start in heard.contains { $0.phrase == "next" && abs($0.start - start) < 1_500 } }
        let others = heard.filter { $0.phrase != "next" }
        print("a single word among single words: next \(found.count) of 8, others \(others)")
        #expect(others.isEmpty, "heard as another command: \(others)")
        #expect(found.count >= 6, "\(found.count) of 8 heard: \(result.lines)")
    }

    /// A command said after a long quiet, as one usually is: pocketsphinx's cepstral mean sank to the quiet room's
    /// after some 8 s, and a word said then was often not heard at any threshold ("stop" after 9 s of quiet: 3
    /// renderings in 8 missed; after 7 s, none). Before the mean was held this test heard 3 of 8; after, 5 to 8
    /// (piper's renderings and the noise differ from run to run, and the hold does not make a long quiet quite
    /// the same as a short one: a pairing of each rendering after 2 s and after 12 s missed one or two more after
    /// 12 s in 1 run of 5).
    @Test func commandsSaidAfterALongQuietAreHeard() throws {
        let words = ["stop", "pause", "next", "what time is it", "stop", "read text", "pause", "next"]
        // Repeatable renderings (voice-set.py's seed, clean) and room noise (seeded): piper's own, new each run,
        // once left 4 of 8 heard in CI's TSan lane; the room's, new each run, left 4 to 8 heard (in 12 runs,
        // 2 of them 4), each a miss of "pause" or "next" said first after the quiet, or "next" heard as "back".
        let unique = Array(Set(words)).sorted()
        guard let files = try renderings(unique, count: 1, seed: 7, into: "after-quiet") else { return }
        let rendered = try Dictionary(uniqueKeysWithValues: files.map { ($0.0, try WavFile.read($0.1)) })
        var samples: [Int16] = []
        var starts: [Int] = []
        for word in words {
            guard let voice = rendered[word] else { continue }
            // 12 s of a quiet room (noise 50 dB under full scale), then the command.
            let rate = voice.format.sampleRateHz
            starts.append(samples.count * 1000 / rate + 12_500)
            let seed = UInt64(starts.count)
            samples += NaturalVoice.quietRoom(seconds: 12, noiseDecibels: -50, rate: rate, seed: seed).samples
            samples +=
                NaturalVoice.inRoom(voice, gain: 1, noiseDecibels: -50, padSeconds: 0.5, seed: seed + 100).samples
        }
        let format = rendered["stop"]?.format ?? AudioFormat(sampleRateHz: 22_050, channels: 1)
        let file = folder.path("after-quiet.wav")
        try WavFile(format: format, samples: samples).data.write(to: file)
        let result = try listen(["--mic", "wav:" + file.path, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let heard = result.lines.compactMap { line -> (String, Int)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let phrase = object["phrase"] as? String, let start = object["start_ms"] as? Int
            else { return nil }
            return (phrase, start)
        }
        let found = zip(words, starts).filter { word, start in
            heard.contains { $0.0 == word && abs($0.1 - start) < 2_000 }
        }
        // Nothing is acted on as another command: "next" was heard as "back" before single words were refereed.
        let wrong = heard.filter { phrase, start in
            !zip(words, starts).contains { $0 == phrase && abs($1 - start) < 2_000 }
        }
        print("voice after a long quiet: \(found.count) of \(words.count) heard, \(wrong.count) others: \(wrong)")
        #expect(found.count >= 5, "\(found.count) of \(words.count) heard: \(result.lines)")
        #expect(wrong.isEmpty, "heard as other commands: \(wrong)")
    }

    /// A knock, a cough or a door just before a command leaves no pause before the words, and the spotter often
    /// hears a command said alone as part of a longer stretch ("next" in "read text"): the utterance said on
    /// its own that held a phrase the pause rules dropped is judged whole, as a push-to-talk window is, and the
    /// command the judge is sure of is heard. Sentences said alone after the same knock, with a command's words
    /// in them, are not. Before this, a command right after a knock was dropped ("inside speech").
    @Test func aCommandSaidJustAfterAKnockIsHeardAndASentenceIsNot() throws {
        let commands = ["read text", "start survey", "stop photo sensor", "collect videos"]
        let sentences = [
            "the bus stop is just around the corner", "he read the letter twice", "please stop the car here",
        ]
        var rendered: [String: WavFile] = [:]
        do {
            let texts = commands + sentences
            rendered = Dictionary(zip(texts, try NaturalVoice.speak(each: texts))) { first, _ in first }
        } catch {
            print("skipped: \(error)")
            return
        }
        let rate = rendered[commands[0]]?.format.sampleRateHz ?? 22_050
        var generator = SystemRandomNumberGenerator()
        // 120 ms of a loud broadband knock, 100 ms before the first word begins.
        let knock = (0..<rate * 12 / 100).map { _ in Int16.random(in: -6_000...6_000, using: &generator) }
        var samples: [Int16] = []
        var spans: [(label: String, from: Int, to: Int)] = []
        for text in commands + sentences {
            guard let voice = rendered[text] else { continue }
            let onset = voice.samples.firstIndex { abs(Int($0)) > 1_000 } ?? 0
            let words = NaturalVoice.inRoom(
                WavFile(format: voice.format, samples: Array(voice.samples[onset...])), gain: 1, noiseDecibels: -50,
                padSeconds: 0)
            samples += NaturalVoice.quietRoom(seconds: 1.5, noiseDecibels: -50, rate: rate).samples
            let from = samples.count * 1000 / rate
            samples += knock
            samples += NaturalVoice.quietRoom(seconds: 0.1, noiseDecibels: -50, rate: rate).samples
            samples += words.samples
            spans.append((text, from, samples.count * 1000 / rate))
        }
        samples += NaturalVoice.quietRoom(seconds: 1.5, noiseDecibels: -50, rate: rate).samples
        let file = folder.path("after-a-knock.wav")
        try WavFile(format: AudioFormat(sampleRateHz: rate, channels: 1), samples: samples).data.write(to: file)
        let trace = folder.path("knock-trace.txt")
        let result = try InProcessApp.listen(
            ["listen", "--data-dir", folder.path("data").path, "--mic", "wav:" + file.path, "--json"]
                + (commands + ["stop"]).flatMap { ["--phrase", $0] },
            environment: ["ASSIST_VOICE_TRACE": trace.path], timeoutSeconds: 120)
        #expect(result.status == 0, "\(result.standardError)")
        let heard = result.lines.compactMap { line -> (phrase: String, middle: Int)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let phrase = object["phrase"] as? String, let start = object["start_ms"] as? Int,
                let end = object["end_ms"] as? Int
            else { return nil }
            return (phrase, (start + end) / 2)
        }
        func heardIn(_ span: (label: String, from: Int, to: Int)) -> [String] {
            heard.filter { $0.middle >= span.from && $0.middle <= span.to }.map(\.phrase)
        }
        let traced = (try? String(contentsOf: trace, encoding: .utf8)) ?? ""
        let found = spans.filter { commands.contains($0.label) && heardIn($0) == [$0.label] }
        #expect(found.count >= 3, "\(found.map(\.label)) of \(commands): \(result.lines)\n\(traced)")
        #expect(traced.contains("in an utterance said alone"), "\(traced)")
        for span in spans where sentences.contains(span.label) {
            #expect(heardIn(span).isEmpty, "\(span.label): \(heardIn(span))\n\(traced)")
        }
    }

    /// A keyphrase search that runs 30 s without a pause pocketsphinx sees (its voice flag stays up in a quiet
    /// room) is restarted to keep it small; at that moment exactly, a word cut in two was lost. It is now renewed
    /// at a quiet moment, never inside a word (the voice trace says when). Measured when this was written: a word
    /// begun 0.4 s before to 0.2 s after the 30th second, 4 of 12 heard before (none between 29.7 and 30.1 s), 12
    /// of 12 after; this test's four, none before, one to four after: a word after 30 s of a quiet room is missed
    /// now and then anyway, renewed or not ("pause" at 30.05 s in 3 of 6 rooms with no restart at all).
    @Test func aCommandSaidAsTheSearchIsRenewedIsHeard() throws {
        // What is understood is the plain lane's to check; the sanitizer lanes run the restart's code through
        // `commandsSaidAfterALongQuietAreHeard` (100 s of sound), and this suite is their longest pole.
        guard ProcessRunner.timeScale == 1 else { return }
        var rendered: [String: WavFile] = [:]
        do {
            rendered = Dictionary(
                uniqueKeysWithValues: zip(["stop", "pause"], try NaturalVoice.speak(each: ["stop", "pause"])))
        } catch {
            print("skipped: \(error)")
            return
        }
        let sayings: [(word: String, atSeconds: Double)] = [
            ("stop", 29.7), ("pause", 29.8), ("stop", 29.95), ("pause", 30.05),
        ]
        var heard: [String] = []
        for (index, saying) in sayings.enumerated() {
            guard let voice = rendered[saying.word] else { continue }
            // The word from its first sound, not piper's lead-in.
            let onset = voice.samples.firstIndex { abs(Int($0)) > 500 } ?? 0
            let word = WavFile(format: voice.format, samples: Array(voice.samples[onset...]))
            let rate = voice.format.sampleRateHz
            var samples = NaturalVoice.quietRoom(seconds: saying.atSeconds, noiseDecibels: -50, rate: rate).samples
            samples += NaturalVoice.inRoom(word, gain: 1, noiseDecibels: -50, padSeconds: 0).samples
            samples += NaturalVoice.quietRoom(seconds: 1.5, noiseDecibels: -50, rate: rate).samples
            let file = folder.path("renewed-\(index).wav")
            try WavFile(format: voice.format, samples: samples).data.write(to: file)
            let trace = folder.path("renewed-\(index).trace")
            let result = try InProcessApp.listen(
                ["listen", "--data-dir", folder.path("data").path, "--mic", "wav:" + file.path, "--json"],
                environment: ["ASSIST_VOICE_TRACE": trace.path], timeoutSeconds: 120)
            #expect(result.status == 0, "\(result.standardError)")
            // Renewed after the 30th second, and not while the word sounds.
            let traced = (try? String(contentsOf: trace, encoding: .utf8)) ?? ""
            let renewals = traced.split(separator: "\n").compactMap { line in
                line.firstMatch(of: /search renewed at (\d+) ms/).flatMap { Int($0.1) }
            }
            let wordMs = Int(saying.atSeconds * 1000)...Int((saying.atSeconds + word.durationSeconds) * 1000)
            #expect(renewals.contains { $0 >= 30_000 }, "\(saying): \(renewals)")
            #expect(!renewals.contains { wordMs.contains($0) }, "\(saying), the word over \(wordMs): \(renewals)")
            let said = result.lines.contains { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let start = object["start_ms"] as? Int
                else { return false }
                return object["phrase"] as? String == saying.word && abs(start - Int(saying.atSeconds * 1000)) < 500
            }
            if said { heard.append("\(saying.word) at \(saying.atSeconds) s") }
        }
        #expect(!heard.isEmpty, "heard: \(heard)")
    }

    @Test func aPhraseWithAWordTheDictionaryLacksIsNamedAndTheRestStillWork() throws {
        let tone = folder.path("tone.wav")
        _ = try ProcessRunner.run(
            "/usr/bin/sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", tone.path, "synth", "1", "sine", "440"])
        let result = try listen(["--mic", "wav:" + tone.path, "--phrase", "frobnicate widget", "--phrase", "read text"])
        #expect(result.status == 0)
        #expect(
            result.standardError.contains(
                "The voice command “frobnicate widget” cannot be heard: “frobnicate” is not in the voice dictionary."),
            "\(result.standardError)")
        #expect(result.lines.first == "Listening for 1 phrases in the file \(tone.path). Ctrl+C ends.")
        let none = try listen(["--mic", "wav:" + tone.path, "--phrase", "frobnicate widget"])
        #expect(none.status == 69)
        #expect(none.standardError.contains("Voice commands are not available: no phrase could be listened for."))
    }

    /// "barcode", which Debian's dictionary lacks, is Assist's own word (share/assist/voice/words-en.dict): barcode's
    /// voice commands are heard from a natural voice in noise, and `assist doctor` names no feature's command that
    /// cannot be heard.
    @Test func barcodesCommandsAreHeardThoughTheDictionaryLacksTheWord() throws {
        let doctor = try InProcessApp.doctor(["doctor", "--data-dir", folder.path("data").path])
        #expect(!doctor.standardOutput.contains("cannot be heard"), "\(doctor.standardOutput)")
        #expect(doctor.standardOutput.contains("ok: voice:"), "\(doctor.standardOutput)")
        let phrases = ["scan barcode", "read barcode"]
        guard let files = try renderings(phrases, count: 4, seed: 17, into: "barcode") else { return }
        let (stream, spans) = try stream(files)
        let result = try listen(
            ["--mic", "wav:" + stream.path, "--json", "--no-score"] + phrases.flatMap { ["--phrase", $0] })
        #expect(result.status == 0 && !result.standardError.contains("cannot be heard"), "\(result.standardError)")
        let heard = Self.heardAt(result.lines)
        for phrase in phrases {
            let right = spans.filter { $0.label == phrase }.filter { span in
                heard.contains { $0.0 == phrase && $0.1 >= span.from && $0.1 <= span.to }
            }
            #expect(right.count >= 3, "\(phrase): \(result.lines)")
        }
    }

    /// "read text" said fast was spotted only as "repeat" (its "text" unheard when the referee first decoded): the
    /// single word is decoded once more after its pause against the phrases that begin as it sounds. Those words
    /// said alone stay themselves.
    @Test func aPhraseThatBeginsAsASingleWordSoundsIsNotTakenForIt() throws {
        let labels = ["read text", "repeat", "stop", "start survey", "stop photo sensor"]
        // Four speakers, the room's noise going on from 1.2 s before the words, the sayings in a seeded order.
        guard
            var files = try renderings(
                labels, count: 8, seed: 23, into: "alike", speakers: "joe,slt,rms,awb", lead: 1.2)
        else { return }
        var random = SeededGenerator(seed: 3)
        files.shuffle(using: &random)
        let (stream, spans) = try stream(files)
        let always = [
            "read text", "find object", "find text", "collect videos", "start survey", "what time is it",
            "sync photos now", "photo sensor status", "start photo sensor", "stop photo sensor", "stop", "help",
            "repeat", "next", "pause",
        ]
        let result = try listen(
            ["--mic", "wav:" + stream.path, "--json", "--no-score"] + always.flatMap { ["--phrase", $0] })
        #expect(result.status == 0, "\(result.standardError)")
        let heard = Self.heardAt(result.lines)
        func said(_ label: String) -> (right: Int, taken: [String]) {
            let mine = spans.filter { $0.label == label }
            let got = mine.map { span in heard.filter { $0.1 >= span.from - 300 && $0.1 <= span.to + 300 }.map(\.0) }
            return (got.filter { $0.contains(label) }.count, got.flatMap { $0 }.filter { $0 != label })
        }
        // Without the second decode: "read text" 3 of 8 (4 taken for "repeat").
        let read = said("read text")
        #expect(read.right >= 7 && !read.taken.contains("repeat"), "read text: \(read), \(result.lines)")
        for word in ["repeat", "stop"] {
            let alone = said(word)
            #expect(alone.right >= 7 && alone.taken.isEmpty, "\(word): \(alone), \(result.lines)")
        }
    }

    @Test func noModelForALanguageAndNoMicrophoneEachGetOneSentence() throws {
        let russian = try listen(["--lang", "ru", "--mic", "wav:/dev/null"])
        #expect(russian.status == 69)
        #expect(
            russian.standardError.contains(
                "Voice commands in ru are not available: there is no Russian voice model on this device; typed and key commands work as before"
            ), "\(russian.standardError)")
        let deaf = try listen(["--mic", "alsa:assist-no-such-card"])
        #expect(deaf.status == 74)
        #expect(deaf.standardError.contains("The microphone cannot be opened:"), "\(deaf.standardError)")
        #expect(deaf.standardError.contains("Choose another with --mic."))
        let silent = folder.path("silence.wav")
        _ = try ProcessRunner.run(
            "/usr/bin/sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", silent.path, "trim", "0", "11"])
        let quiet = try listen(["--mic", "wav:" + silent.path])
        #expect(quiet.status == 0)
        #expect(quiet.standardError.contains("The microphone gives only silence"), "\(quiet.standardError)")
    }

    /// A WAV file with a header and no sound, or a sample of it, is named with what to do (it ended at once, saying
    /// nothing); a long one is listened to in blocks, memory flat (two hours of one were read whole: 790 MB).
    @Test func aFileWithoutAWordsWorthOfSoundIsNamedAndALongOneIsReadInBlocks() throws {
        for samples in [0, 1, 1_500] {
            let file = folder.path("short-\(samples).wav")
            try WavFile(format: .recognition, samples: [Int16](repeating: 100, count: samples)).data.write(to: file)
            let short = try listen(["--mic", "wav:" + file.path])
            #expect(short.status == 74, "\(short.standardError)")
            #expect(
                short.standardError.contains(
                    "The sound file \(file.path) cannot be used: it holds \(samples / 16) ms of sound, too little to hear a word in; give a recording of a second or more."
                ), "\(short.standardError)")
        }
        // Sparse files of silence: one minute, and thirty (58 MB, which read whole took three times that). Peak
        // memory of the process, from the kernel's account of the child (Python's resource module).
        func silence(minutes: Int) throws -> URL {
            let file = folder.path("silence-\(minutes).wav")
            let bytes = minutes * 60 * 16_000 * 2
            var header = WavFile(format: .recognition, samples: []).data
            header.replaceSubrange(40..<44, with: withUnsafeBytes(of: UInt32(bytes).littleEndian) { Data($0) })
            header.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(bytes + 36).littleEndian) { Data($0) })
            try header.write(to: file)
            let handle = try FileHandle(forWritingTo: file)
            try handle.truncate(atOffset: UInt64(header.count + bytes))
            try handle.close()
            return file
        }
        func peakMegabytes(_ file: URL) throws -> Double {
            // Under AddressSanitizer, freed blocks wait in its quarantine (44 MB more over thirty minutes than
            // over one): the program's own memory is measured with the quarantine off for this child.
            let script =
                "import os, resource, subprocess, sys; env = dict(os.environ); "
                + "env['ASAN_OPTIONS'] = env.get('ASAN_OPTIONS', '') + ':quarantine_size_mb=0'; "
                + "r = subprocess.run(sys.argv[1:], capture_output=True, env=env); "
                + "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
            let run = try ProcessRunner.run(
                "/usr/bin/python3",
                [
                    "-c", script, BuildProducts.assist, "listen", "--data-dir", folder.path("data").path, "--mic",
                    "wav:" + file.path,
                ],
                timeoutSeconds: 300)
            let fields = run.standardOutput.split(separator: " ").map {
                String($0).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try #require(fields.count == 2 && fields[0] == "0", "\(run.standardOutput) \(run.standardError)")
            return (Double(fields[1]) ?? 0) / 1_024
        }
        // Read whole, the file alone (58 MB) is held at least twice over; read in blocks, the growth stays under
        // the file's own size in every lane (a sanitizer's runtime keeps some of what it is given).
        let one = try peakMegabytes(try silence(minutes: 1))
        let thirty = try peakMegabytes(try silence(minutes: 30))
        let fileMegabytes = Double(30 * 60 * 16_000 * 2) / 1_048_576
        #expect(
            thirty < one + fileMegabytes, "one minute \(one) MB, thirty \(thirty) MB: memory grows with the file")
    }

    /// pocketsphinx reads its phrase lists from files: none is left in the temporary folder when a run ends,
    /// always-on or in a window (whose judge opens decoders of its own), and none while it runs.
    @Test func nothingIsLeftInTheTemporaryFolder() throws {
        let temporary = folder.path("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let said = folder.path("said.wav")
        let say = try ProcessRunner.run(
            BuildProducts.assist,
            ["say", "--data-dir", folder.path("data").path, "--audio-out", "wav:" + said.path, "Read text. Stop."])
        try #require(say.status == 0, "\(say.standardError)")
        for window in [[], ["--window"]] {
            let run = try ProcessRunner.run(
                BuildProducts.assist,
                ["listen", "--data-dir", folder.path("data").path, "--mic", "wav:" + said.path, "--json"] + window,
                environment: ["TMPDIR": temporary.path], timeoutSeconds: 120)
            #expect(run.status == 0, "\(run.standardError)")
            #expect(!run.standardOutput.isEmpty, "nothing heard \(window): \(run.standardError)")
            let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
            #expect(left.isEmpty, "left in the temporary folder \(window): \(left)")
        }
        // Stopped by SIGKILL while it listens at a microphone's pace (its trace written: the searches are open).
        let trace = folder.path("killed.trace")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        process.arguments = ["listen", "--data-dir", folder.path("data").path, "--mic", "live:" + said.path]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["TMPDIR": temporary.path, "ASSIST_VOICE_TRACE": trace.path]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline
            && ((try? FileManager.default.attributesOfItem(atPath: trace.path)[.size] as? Int) ?? 0) == 0
        {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(process.isRunning, "assist listen ended before it could be stopped")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(left.isEmpty, "left in the temporary folder by a run stopped with SIGKILL: \(left)")
    }

    /// A third party's list: the C test plugin, run in a helper process, sets "apple", "banana", "cherry" to
    /// follow its launch keyword "pick fruit" from its library's init, through the bridge; the recogniser then
    /// hears the fruit said after the phrase.
    @Test func aThirdPartysListSetFromItsHelperProcessIsHeardAfterItsPhrase() throws {
        let plugins = folder.path("plugins")
        try CPluginBuilder(root: plugins).build(
            folder: "fruit", defines: ["CHOICES", #"PLUGIN_ID="org.example.fruit""#],
            manifest: CPluginBuilder.manifest(
                id: "org.example.fruit",
                extra: [
                    "name": "Fruit", "services": ["required": ["assist.dialog/1"], "optional": ["assist.input/1"]],
                    "keywords": [["phrase": "pick fruit", "scope": "global", "lang": "en", "takes": "choice"]],
                ]))
        // Each fruit twice, each a rendering of its own (clean, then pink noise 25 dB under: the noisier ones are
        // the find-object test's; this one is about the list crossing from the helper process). Rendered from a
        // seed, as the other sets here: renderings drawn anew each run made the count a draw (3 of 6 fruits heard
        // as another, once in ci29, ci48 and ci62, where 2 were allowed), and a failure could not be heard again.
        guard
            let files = try renderings(
                ["pick fruit apple", "pick fruit banana", "pick fruit cherry"], count: 2, seed: 4, into: "fruit")
        else { return }
        let (stream, spans) = try stream(files) { _ in 2 }
        // A third party's phrase has no shipped threshold: the admin's tuning (as `assist voice tune` writes it)
        // lets it through as the shipped phrases are.
        let tuned = folder.path("data/voice")
        try FileManager.default.createDirectory(at: tuned, withIntermediateDirectories: true)
        try "pick fruit\t1e-30\n".write(
            to: tuned.appendingPathComponent("thresholds-en.txt"), atomically: false, encoding: .utf8)
        let result = try listen(["--mic", "wav:" + stream.path, "--json", "--plugin-dir", plugins.path])
        #expect(result.status == 0, "\(result.standardError)")
        // Each phrase heard, with its argument, placed in the saying it lies in (by its middle).
        var right = 0
        var wrong: [String] = []
        for line in result.lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let start = object["start_ms"] as? Int, let end = object["end_ms"] as? Int,
                let span = spans.first(where: { (start + end) / 2 >= $0.from && (start + end) / 2 <= $0.to })
            else { continue }
            let said = span.label.split(separator: " ").last.map(String.init)
            if object["phrase"] as? String == "pick fruit" && object["argument"] as? String == said {
                right += 1
            } else {
                wrong.append(line)
            }
        }
        // What is heard has the right fruit: without the list from the helper, no fruit would be heard at all.
        // How many of the six are heard is the recogniser's rate (issue 32's figures): seeds 1 to 6 gave 4 to 6,
        // none heard as another fruit; seed 4 gives 6 of 6, alone and beside two busy cores. The margins are for
        // a recogniser change, which should be seen in bench/voice.sh's figures before it is here.
        print("voice: \(right) of 6 fruits heard after their phrase, \(wrong.count) heard otherwise")
        #expect(wrong.count <= 2, "\(wrong)")
        #expect(right >= 3, "\(right) of 6: \(result.lines)")
    }

    /// Inside a push-to-talk window every utterance is a command: decoded as a whole, one of the phrases (with
    /// find-object's names written out after "find object"), single words and rivals ("start photo sensor",
    /// "stop photo sensor") too. Four renderings of each, clean and with pink noise 25, 15 and 10 dB under.
    @Test func commandsSaidInAWindowAreDecodedAsAWhole() throws {
        let labels = [
            "read this", "next", "stop", "start photo sensor", "stop photo sensor", "what time is it",
            "find object cup",
        ]
        guard let files = try renderings(labels, count: 4, seed: 17, into: "window") else { return }
        let (stream, spans) = try stream(files)
        let result = try listen(["--mic", "wav:" + stream.path, "--json", "--window"])
        #expect(result.status == 0, "\(result.standardError)")
        var right = 0
        var wrong: [String] = []
        for line in result.lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let start = object["start_ms"] as? Int, let end = object["end_ms"] as? Int,
                let phrase = object["phrase"] as? String
            else { continue }
            let said = [phrase, object["argument"] as? String].compactMap { $0 }.joined(separator: " ")
            if spans.contains(where: { $0.label == said && (start + end) / 2 >= $0.from && (start + end) / 2 <= $0.to })
            {
                right += 1
            } else {
                wrong.append(line)
            }
        }
        print("voice window: \(right) of \(spans.count) right, wrong \(wrong)")
        // Measured: 26 to 28 of 28; the misses were "cup" under 15 and 10 dB of noise heard as "boat".
        #expect(right >= spans.count - 3, "\(right) of \(spans.count): \(result.lines)")
        #expect(wrong.count <= 2, "\(wrong)")
    }

    /// No guessing: in a window an everyday sentence is rejected (`{"rejected":true,...}`), never taken for
    /// the nearest command, and a command inside a short request is kept. Four renderings of each, clean and
    /// with pink noise 25, 15 and 10 dB under the speech.
    @Test func aSentenceSaidInAWindowIsRejectedAndARequestIsKept() throws {
        let requests = ["could you read text now": "read text", "stop please": "stop"]
        let sentences = [
            "the bus stop is just around the corner", "she helped me carry the shopping", "we bought a new kettle",
            "what time does the film start",
        ]
        guard let files = try renderings(Array(requests.keys).sorted() + sentences, count: 4, seed: 23, into: "reject")
        else { return }
        let (stream, spans) = try stream(files)
        let result = try listen(["--mic", "wav:" + stream.path, "--json", "--window"])
        #expect(result.status == 0, "\(result.standardError)")
        var kept = 0
        var rejected = 0
        var acted: [String] = []
        for line in result.lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let start = object["start_ms"] as? Int, let end = object["end_ms"] as? Int,
                let score = object["score"] as? Double,
                let span = spans.first(where: { (start + end) / 2 >= $0.from - 300 && (start + end) / 2 <= $0.to + 300 }
                )
            else { continue }
            #expect((0...1).contains(score), "a confidence: \(line)")
            if object["rejected"] as? Bool == true {
                if sentences.contains(span.label) { rejected += 1 }
            } else if let phrase = object["phrase"] as? String {
                if requests[span.label] == phrase { kept += 1 } else { acted.append("\(phrase) for “\(span.label)”") }
            }
        }
        print("voice window: \(kept) of 8 requests kept, \(rejected) of 16 sentences rejected, acted on \(acted)")
        // Measured on the calibration set: every request kept, 98.5 % of sentences rejected.
        #expect(kept >= 7, "\(result.lines)")
        #expect(rejected >= 15 && acted.count <= 1, "\(acted): \(result.lines)")
    }
}

/// The shell hearing a natural voice at a microphone's pace: each test a run of its own, one at a time (they
/// time what is heard against what is typed); beside the suite above, which only decodes files.
@Suite("Voice commands heard by the shell", .serialized)
struct VoiceShellListenTests: VoiceListening {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("assist-voice") }

    /// The shell with `--voice always` and a natural voice at a microphone's pace: the clock's question
    /// is heard, echoed, and answered as if it had been typed; then a typed "quit" ends the shell (once the
    /// answer is printed, or after 30 s: loading the searches takes about 2 s of a debug build, and a loaded
    /// machine more).
    @Test func theShellActsOnAQuestionHeardLikeATypedOne() throws {
        // Asked up to three times, as a person does when not answered, each a rendering of its own (piper varies
        // its timing and tone from one to the next, as a person does; one rendering in about 20 is not heard at
        // the shipped threshold, so three copies of one failed together): this checks the shell's path from a
        // phrase heard to its effect; how often one saying is heard is the recall the other test and
        // bench/voice.sh measure.
        var sayings: [WavFile] = []
        do {
            sayings = try NaturalVoice.speak(each: Array(repeating: "What time is it?", count: 3))
        } catch {
            print("skipped: \(error)")
            return
        }
        let (lines, traced) = try shellAlways(
            hearing: sayings.map { ($0, 1) },
            typing: [
                ProcessRunner.TypedLine(
                    "quit", after: 30 * ProcessRunner.timeScale,
                    once: { $0.range(of: #"\nIt is \d"#, options: .regularExpression) != nil })
            ])
        #expect(lines.contains("Heard: what time is it."), "\(lines)\n\(traced)")
        let heard = try #require(lines.firstIndex(of: "Heard: what time is it."))
        #expect(
            lines[heard...].contains { $0.range(of: #"^It is \d"#, options: .regularExpression) != nil },
            "the clock answers: \(lines)")
    }

    /// The settings by voice: "settings" at the menu, then a setting by its name alone, then "higher": the rate
    /// goes up a step, is said, and is kept in settings.toml.
    @Test func theSpeechRateIsRaisedByVoice() throws {
        var sayings: [(WavFile, Double)] = []
        do {
            sayings = try NaturalVoice.speak(each: ["Settings.", "Speech rate.", "Higher."]).map { ($0, 5.0) }
        } catch {
            print("skipped: \(error)")
            return
        }
        let config = folder.path("config-\(UUID().uuidString)")
        let (lines, traced) = try shellAlways(
            hearing: sayings,
            typing: [
                ProcessRunner.TypedLine(
                    "quit", after: 40 * ProcessRunner.timeScale,
                    once: { $0.contains("Speech rate: 200 words a minute.") })
            ], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(lines.last == "Goodbye.", "the shell ends: \(lines)")
        // Under a sanitizer the voice thread falls behind the live microphone; the plain lane checks what is heard.
        guard ProcessRunner.timeScale == 1 else { return }
        #expect(lines.contains("Settings. Choose one to change it."), "\(lines)\n\(traced)")
        #expect(lines.contains("Speech rate: 200 words a minute."), "\(lines)\n\(traced)")
        let kept = try String(contentsOf: config.appendingPathComponent("assist/settings.toml"), encoding: .utf8)
        #expect(try ConfigFile.parse(kept)["speech.rate"] == .int(200), "\(kept)")
    }

    /// Open words after "find text" are dictated, said back as a question, and acted on after a spoken yes:
    /// the shell in `always` mode, a natural voice at a microphone's pace (said up to three times, each a
    /// rendering of its own, clean and then with noise 25 and 15 dB under it, as a person does when not
    /// answered). The renderings are repeatable (voice-set.py's seed): piper's own, rendered anew each run,
    /// were dictated as "the merchants the exit" or worse in 7 of 39 (the bench measures dictation; this test
    /// the shell's question and its answer), and a wrong first dictation is confirmed by the "yes" after it.
    @Test func theShellAsksAboutDictatedWordsAndActsOnASpokenYes() throws {
        guard let files = try renderings(["find text emergency exit", "yes"], count: 3, seed: 11, into: "dictation")
        else { return }
        let sayings = try files.filter { $0.0 != "yes" }.map { try WavFile.read($0.1) }
        let yes = try WavFile.read(try #require(files.first { $0.0 == "yes" }).1)
        let (lines, traced) = try shellAlways(
            hearing: sayings.flatMap { [($0, 1), (yes, 1.5)] },
            typing: [
                .init("q", after: 40 * ProcessRunner.timeScale, once: { $0.contains("\nLooking for text: ") }),
                .init(
                    "quit", after: 5 * ProcessRunner.timeScale,
                    once: { $0.hasSuffix("Choose a feature.\n") || $0.contains("Press a number") }),
            ])
        let question = try #require(lines.firstIndex { $0.hasPrefix("Did you say: ") }, "\(lines)\n\(traced)")
        let words = String(lines[question].dropFirst("Did you say: ".count).dropLast())
        #expect(lines[..<question].contains("Heard: find text."), "\(lines)")
        #expect(words.contains("exit"), "dictated: \(words)")
        #expect(lines[question...].contains("Heard: yes."), "\(lines)\n\(traced)")
        #expect(lines[question...].contains("Looking for text: \(words)"), "\(lines)\n\(traced)")
    }

    /// A text question answered aloud on a terminal (docs/voice.md, "Questions answered by voice"): the shell
    /// in `always` mode, find-object launched by typing, its first use allowed, then "What should I find?"
    /// answered by a natural voice at a microphone's pace: "cup" is heard, said back as "Did you say: …?", and
    /// given to find-object only after a spoken yes (which searches, or says the name is not one it knows and
    /// asks again). Said three times (clean, then noise 25 and 15 dB under it), a yes after each, as a person
    /// does who is not answered. What "cup" is heard as depends on the judge's and the dictation's decoders,
    /// which carry what they heard before (measured: "cup", "of" and "gov" for the clean rendering, by the load
    /// on the machine): the flow is what is checked here, docs/voice.md has the figures.
    @Test func aTextQuestionIsAnsweredAloudAndSaidBackFirst() throws {
        guard let files = try renderings(["cup", "yes"], count: 3, seed: 11, into: "answer") else { return }
        let cups = try files.filter { $0.0 == "cup" }.map { try WavFile.read($0.1) }
        let yes = try WavFile.read(try #require(files.first { $0.0 == "yes" }).1)
        let scale = ProcessRunner.timeScale
        let said = try room(hearing: cups.flatMap { [($0, 2), (yes, 2.5)] }, leadSeconds: 6 * scale)
        try "[voice]\nmode = \"always\"\n".write(to: folder.path("always.toml"), atomically: false, encoding: .utf8)
        let trace = folder.path("trace-\(UUID().uuidString).txt")
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "shell", "--no-speech", "--data-dir", folder.path("data").path, "--config",
                folder.path("always.toml").path, "--mic", "live:" + said.path,
            ], environment: ["ASSIST_VOICE_TRACE": trace.path])
        let heard = { Self.readTrace(trace) }
        try #require(screen.waitFor("Choose a feature.", timeout: 20 * scale), "\(screen.text)")
        screen.typeSlowly("find object\r")
        // Y alone: the rest of "yes", typed late on a loaded machine, once became the answer to "What should I find?".
        try #require(screen.allowFirstUse("Find object", answer: "y"), "\(screen.text)")
        #expect(screen.waitFor("What should I find?", timeout: 20 * scale), "\(screen.text)")
        #expect(screen.waitFor("Say your answer, or type it and press Enter."), "\(screen.text)")
        // Under a sanitizer the voice thread falls behind the live microphone; the plain lane checks what is heard.
        guard scale == 1 else { return }
        #expect(screen.waitFor("Heard: yes.", timeout: 40), "\(screen.text)\n\(heard())")
        #expect(screen.waitFor("What should I find?", count: 2, timeout: 10) || screen.waitFor("Looking for object:"))
        let lines = screen.lines
        let question = try #require(lines.firstIndex { $0.contains("Did you say: ") }, "\(screen.text)\n\(heard())")
        let name = String(lines[question].split(separator: ": ", maxSplits: 1)[1].dropLast())
        #expect(
            lines[..<question].contains {
                $0.hasSuffix("What should I find? Type its name, or press Enter for the list.")
            })
        #expect(!lines[..<question].contains { $0.contains("Looking for object") || $0.contains("Object not found") })
        let given = try #require(
            lines.firstIndex {
                $0.hasSuffix("Looking for object: \(name)") || $0.contains("Object not found: \(name).")
            },
            "\(screen.text)\n\(heard())")
        #expect(question < given && lines[question..<given].contains { $0.hasSuffix("Heard: yes.") }, "\(lines)")
    }

    /// A per-person kiosk (docs/kiosk.md): "I'm done." and "Yes." said aloud end the sitting, and the next
    /// person's starts in the same process.
    @Test func aKioskSittingIsEndedByVoice() throws {
        guard let said = try saying([("I'm done.", 2.5), ("Yes.", 6)], after: 2) else { return }
        let scale = ProcessRunner.timeScale
        let etc = folder.path("etc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        let data = folder.path("data-\(UUID().uuidString)")
        let environment = ["ASSIST_SYSCONFDIR": etc.path, "XDG_CONFIG_HOME": folder.path("config").path]
        let pin = try ProcessRunner.run(
            BuildProducts.assist, ["kiosk", "set-pin"], input: "2468\n2468\n", environment: environment)
        try #require(pin.status == 0, "\(pin.standardError)")
        let hash = try ProcessRunner.run(
            BuildProducts.assist, ["kiosk", "hash", "assist.clock", "--data-dir", data.path], environment: environment)
        let allowed = try #require(hash.lines.first { $0.hasPrefix("\"assist.clock\"") }, "\(hash.lines)")
        try "[voice]\nmode = \"always\"\n\n[kiosk]\nsession = \"per-person\"\n\n[kiosk.features]\n\(allowed)\n".write(
            to: etc.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        let trace = folder.path("trace-\(UUID().uuidString).txt")
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            ["kiosk", "--no-speech", "--data-dir", data.path, "--mic", "live:" + said.path],
            environment: environment.merging(["ASSIST_VOICE_TRACE": trace.path]) { $1 })
        let heard = { (try? String(contentsOf: trace, encoding: .utf8)) ?? "(no trace)" }
        #expect(screen.waitFor("End your session?", timeout: 30 * scale), "\(screen.text)\n\(heard())")
        #expect(screen.waitFor("Your session has ended.", timeout: 30 * scale), "\(screen.text)\n\(heard())")
        #expect(screen.waitFor("A new session has started.", count: 2, timeout: 30 * scale), "\(screen.text)")
        let current = try String(contentsOf: data.appendingPathComponent("sittings/current"), encoding: .utf8)
        #expect(current.trimmingCharacters(in: .whitespacesAndNewlines) != "0001", "a new sitting: \(current)")
    }

    /// Issue 34 by voice: at a terminal, Assist's own feature launched by voice ("find object teddy bear", in one
    /// breath at the menu) asks for the camera at first use, and a spoken yes answers it as the Y key would: the
    /// search for what was named starts, and the answer is kept.
    @Test func theFirstUseQuestionIsAnsweredByVoice() throws {
        guard let said = try saying([("Find object teddy bear.", 2), ("Yes.", 4)], after: 1.5) else { return }
        let scale = ProcessRunner.timeScale
        try "[voice]\nmode = \"always\"\n".write(to: folder.path("always.toml"), atomically: false, encoding: .utf8)
        let data = folder.path("data-\(UUID().uuidString)")
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "shell", "--no-speech", "--data-dir", data.path, "--config", folder.path("always.toml").path,
                "--camera", "pattern", "--mic", "live:" + said.path,
            ])
        #expect(
            screen.waitFor("Find object asks for the camera. Allow it? Y or N.", timeout: 30 * scale), "\(screen.text)")
        #expect(screen.waitFor("Heard: yes.", timeout: 30 * scale), "\(screen.text)")
        // The feature starts at once with what was named, and Q leaves it.
        #expect(screen.waitFor("Looking for object: teddy bear", timeout: 30 * scale), "\(screen.text)")
        screen.type("q")
        #expect(screen.waitFor("Choose a feature.", count: 2, timeout: 20 * scale), "\(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Quit Assist? Y or N.", timeout: 20 * scale), "\(screen.text)")
        screen.type("y")
        #expect(screen.waitForExit(timeout: 30 * scale) == 0, "\(screen.text)")
        let kept = try String(contentsOf: data.appendingPathComponent("plugin-permissions.json"), encoding: .utf8)
        #expect(kept.contains("assist.find-object") && kept.contains("camera"), "\(kept)")
    }

    /// Issue 70 by voice: read-text chosen at the shell's menu by voice reads from the camera; "open document"
    /// said there asks for the path as o does, and the document typed is read with its pages.
    @Test func openDocumentSaidAtTheCameraAsksForTheDocument() throws {
        guard let said = try saying([("Read text.", 2), ("Yes.", 5), ("Open document.", 3)], after: 1.5) else {
            return
        }
        let scale = ProcessRunner.timeScale
        let document = folder.path("notice.pdf")
        try PdfWriter(pages: [.text(["The water will be off on Friday."]), .text(["It comes back at noon."])]).data()
            .write(to: document)
        try "[voice]\nmode = \"always\"\n".write(to: folder.path("always.toml"), atomically: false, encoding: .utf8)
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "shell", "--no-speech", "--data-dir", folder.path("data-\(UUID().uuidString)").path, "--config",
                folder.path("always.toml").path, "--camera", "pattern", "--mic", "live:" + said.path,
            ])
        #expect(
            screen.waitFor("Read text asks for the camera. Allow it? Y or N.", timeout: 30 * scale), "\(screen.text)")
        #expect(screen.waitFor("Heard: yes.", timeout: 30 * scale), "\(screen.text)")
        #expect(
            screen.waitFor("Type the path of a document or a picture", timeout: 30 * scale), "\(screen.text)")
        screen.typeSlowly(document.path + "\r", gap: 0.01)
        #expect(screen.waitFor("The water will be off on Friday.", timeout: 30 * scale), "\(screen.text)")
        #expect(screen.waitFor("It comes back at noon.", timeout: 30 * scale), "\(screen.text)")
        kill(screen.processIdentifier, SIGHUP)
        _ = screen.waitForExit()
    }

    /// With the key held down a sentence that is no command is refused ("Sorry"), and the command said next,
    /// the key still down, is heard: the user tries again without letting go. With the key let go at once,
    /// neither is heard.
    @Test func pushToTalkHeldOnAKeyboardDeviceListensWhileTheKeyIsDown() throws {
        let said: [WavFile]
        do {
            said = try NaturalVoice.speak(
                each: ["We bought a new kettle yesterday."] + Array(repeating: "What time is it?", count: 3))
        } catch {
            print("skipped: \(error)")
            return
        }
        // The sentence, 2.5 s of the room (the refusal is spoken there), then the command, asked up to three
        // times with the key still down, each a rendering of its own: piper varies each, and one in about 20 is
        // not heard (CI once heard one as "what can i say", refused). This checks that the held key listens and
        // the released one does not; how often one saying is heard is what bench/voice.sh measures.
        let tries = WavFile(
            format: said[0].format,
            samples: NaturalVoice.inRoom(said[0], gain: 1, noiseDecibels: -50, padSeconds: 1.25).samples
                + said.dropFirst().flatMap {
                    NaturalVoice.inRoom($0, gain: 1, noiseDecibels: -50, padSeconds: 1.25).samples.dropFirst(
                        Int(1.25 * Double($0.format.sampleRateHz)))
                })
        // Held: "quit" as soon as the clock answers (at most 60 s: a loaded run began listening 6 s after the key
        // went down and heard the command after 25). Released: once all have been played (the room heldShell
        // puts first, then the tries, and 3 s), since nothing is printed when they are not heard.
        let played = 6 * ProcessRunner.timeScale + 1.5 + Double(tries.samples.count) / Double(tries.format.sampleRateHz)
        func shell(releaseAfter: Double?) throws -> (lines: [String], trace: String) {
            try heldShell(
                saying: tries, releaseAfter: releaseAfter,
                quitAfter: releaseAfter == nil ? 60 * ProcessRunner.timeScale : played + 3
            ) { $0.range(of: #"\nIt is \d"#, options: .regularExpression) != nil }
        }
        let refusal = "Sorry, I didn't get that. Say help for what you can say."
        let held = try shell(releaseAfter: nil)
        let sorry = try #require(held.lines.firstIndex(of: refusal), "\(held.lines)\n\(held.trace)")
        let heard = try #require(held.lines.firstIndex(of: "Heard: what time is it."), "\(held.lines)\n\(held.trace)")
        #expect(sorry < heard)
        #expect(held.lines.contains { $0.range(of: #"^It is \d"#, options: .regularExpression) != nil })
        let released = try shell(releaseAfter: 1)
        #expect(released.trace.contains("push-to-talk key up"), "\(released.trace)")
        #expect(
            !released.lines.contains("Heard: what time is it.") && !released.lines.contains(refusal),
            "\(released.lines)\n\(released.trace)")

        try "[voice]\nmode = \"push-to-talk\"\nkey-device = \"/dev/input/assist-no-such-event\"\n".write(
            to: folder.path("held.toml"), atomically: false, encoding: .utf8)
        let missing = try ProcessRunner.run(
            BuildProducts.assist,
            [
                "shell", "--no-speech", "--data-dir", folder.path("data").path, "--config",
                folder.path("held.toml").path,
            ],
            input: "quit\n")
        #expect(
            missing.standardOutput.contains(
                "The push-to-talk key device /dev/input/assist-no-such-event cannot be read (No such file or directory): add the user to the input group"
            ), "\(missing.standardOutput)")
        #expect(missing.status == 0)
    }

    /// The push-to-talk key goes down while the shell reads its menu aloud: the reading stops at once and waits
    /// for what is said with the key down; the command's "Heard: …" and its answer are spoken, then the menu
    /// goes on. With the key up again and nothing said, the reading goes on by itself.
    @Test func thePushToTalkKeyHoldsAssistsSpeechUntilTheWindowsOutcome() throws {
        let voice: WavFile
        do { voice = try NaturalVoice.speak("What time is it?") } catch {
            print("skipped: \(error)")
            return
        }
        let scale = ProcessRunner.timeScale
        let refusal = "Sorry, I didn't get that. Say help for what you can say."
        let asked = try heldShell(
            saying: voice, pressAfter: 1 * scale, releaseAfter: nil, speaking: true, quitAfter: 60 * scale
        ) { $0.range(of: #"\nIt is \d"#, options: .regularExpression) != nil || $0.contains(refusal) }
        // (At the menu, a question, what is said is decoded as its answer.) What is understood is other tests'
        // to check: here the canceller is on, and the question was once refused in CI, under load; either
        // answer lets the reading go on.
        let held = try #require(asked.trace.range(of: "speech held for the push-to-talk window"), "\(asked.trace)")
        let answered = try #require(asked.trace.range(of: "speech goes on after the answer"), "\(asked.trace)")
        #expect(held.upperBound <= answered.lowerBound)
        #expect(
            asked.lines.contains("Heard: what time is it.") || asked.lines.contains(refusal),
            "\(asked.lines)\n\(asked.trace)")
        // The answer let the reading go on, so the window did not have to.
        #expect(!asked.trace.contains("speech goes on: the window is over"), "\(asked.trace)")

        let nothing = try heldShell(
            saying: voice, pressAfter: 1 * scale, releaseAfter: 1, speaking: true, quitAfter: 3 * scale + 7
        ) { _ in false }
        let again = try #require(nothing.trace.range(of: "speech held for the push-to-talk window"), "\(nothing.trace)")
        let over = try #require(nothing.trace.range(of: "speech goes on: the window is over"), "\(nothing.trace)")
        #expect(again.upperBound <= over.lowerBound)
        #expect(!nothing.lines.contains("Heard: what time is it."), "\(nothing.lines)")
    }

    /// "Find object" said alone: the shell asks find-object's question ("Specify the object.") and hears the
    /// name said after it, up to 7 s later (find-object.md §2), then starts the search for it.
    @Test func aPhraseSaidAloneIsFollowedByItsQuestionAndTheNameSaidAfter() throws {
        let phrase: WavFile
        let name: WavFile
        do {
            // (A name of two syllables: a lone "Cup." was once heard as "oven".)
            let said = try NaturalVoice.speak(each: ["Find object.", "Teddy bear."])
            (phrase, name) = (said[0], said[1])
        } catch {
            print("skipped: \(error)")
            return
        }
        let (lines, traced) = try shellAlways(
            hearing: [(phrase, 1), (name, 1.5)],
            typing: [
                .init("q", after: 20 * ProcessRunner.timeScale, once: { $0.contains("\nLooking for object: ") }),
                .init("quit", after: 5 * ProcessRunner.timeScale, once: { $0.contains("Press a number") }),
            ])
        #expect(lines.last == "Goodbye.", "\(lines)")
        // Under ThreadSanitizer (the CI run of b4fd989) the voice thread fell so far behind the sound that the
        // phrase was taken as said alone once the name had passed: the sanitizer lanes run this path for races,
        // the plain lane checks what is understood.
        guard ProcessRunner.timeScale == 1 else { return }
        let asked = try #require(lines.firstIndex(of: "Specify the object."), "\(lines)\n\(traced)")
        #expect(lines[asked...].contains("Heard: find object teddy bear."), "\(lines)\n\(traced)")
        #expect(lines[asked...].contains("Looking for object: teddy bear"), "\(lines)")
    }

    /// A sentence said in a push-to-talk window is no command: the shell says so in one sentence and does
    /// nothing, and the menu goes on.
    @Test func aSentenceInAPushToTalkWindowIsRefusedInOneSentence() throws {
        let voice: WavFile
        do { voice = try NaturalVoice.speak("We bought a new kettle.") } catch {
            print("skipped: \(error)")
            return
        }
        let refusal = "Sorry, I didn't get that. Say help for what you can say."
        let (lines, traced) = try heldShell(saying: voice, releaseAfter: nil, quitAfter: 20 * ProcessRunner.timeScale) {
            $0.contains(refusal)
        }
        #expect(lines.last == "Goodbye.", "\(lines)")
        #expect(lines.filter { $0 == refusal }.count <= 1, "\(lines)")
        // An ASan run once took the sentence for a command, with the voice thread four times behind the sound
        // and the key's window timed on the wall clock: the sanitizer lanes run this path for memory, the plain
        // lane checks what is understood.
        guard ProcessRunner.timeScale == 1 else { return }
        #expect(lines.filter { $0 == refusal }.count == 1, "\(lines)\n\(traced)")
        #expect(!lines.contains { $0.hasPrefix("Heard: ") }, "nothing acted on: \(lines)\n\(traced)")
    }
}

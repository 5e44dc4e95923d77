import Audio
import Foundation
import HostTesting
import Testing

/// Barge-in as a person meets it (docs/voice.md, "Barge-in"): a reading rendered by espeak-ng now, its echo made
/// by scripts/echo-room.py as a room would return it (delay, reverberation, noise, as loud as the voice or louder),
/// natural-voice commands (piper's Joe, rendered now by scripts/voice-set.py) said over it; heard through
/// `assist listen --reference` and through the shell itself, whose played file is its reference.
@Suite("Commands said over Assist's own speech", .serialized)
struct EchoListenTests {
    let folder: TemporaryDirectory
    static let python = BuildProducts.packageRoot.appendingPathComponent(".build/voices/bin/python").path
    static let script = BuildProducts.packageRoot.appendingPathComponent("scripts/echo-room.py").path

    init() throws { folder = try TemporaryDirectory("assist-barge-in") }

    var voicesInstalled: Bool {
        if FileManager.default.fileExists(atPath: Self.python) { return true }
        print("skipped: piper-tts is not installed in .build/voices (make voices)")
        return false
    }

    /// Renderings of `labels` (scripts/voice-set.py, `seed`): label → files, in order.
    func renderings(_ labels: [String], count: Int, seed: Int, speakers: String = "joe") throws -> [String: [URL]] {
        let set = folder.path("set-\(seed)")
        let made = try TestMedia.voiceSet(
            ["--renderings", "\(count)", "--negatives", "0", "--seed", "\(seed)", "--speakers", speakers] + labels,
            into: set, python: Self.python)
        try #require(made.status == 0, "\(made.standardError)")
        var files: [String: [URL]] = [:]
        for label in labels {
            files[label] = try FileManager.default.contentsOfDirectory(
                at: set.appendingPathComponent(label.replacingOccurrences(of: " ", with: "_")),
                includingPropertiesForKeys: nil
            ).sorted { $0.path < $1.path }
        }
        return files
    }

    /// A reading of the project's own docs by espeak-ng, `seconds` long: it holds "stop", "next", "help" and
    /// "repeat" (docs/voice.md is read too).
    func reading(seconds: Int) throws -> URL {
        var text = ""
        for name in ["voice.md", "kiosk.md", "survey.md"] {
            text +=
                (try? String(
                    contentsOf: BuildProducts.packageRoot.appendingPathComponent("docs/" + name), encoding: .utf8))
                ?? ""
        }
        text = text.replacingOccurrences(of: #"[`#*|_\[\]()>-]+"#, with: " ", options: .regularExpression)
        let words = text.split(separator: " ").prefix(seconds * 3).joined(separator: " ")
        return try spoken(words, seconds: seconds, name: "reading-\(seconds)")
    }

    /// `text` said by espeak-ng as read-text says it, cut to `seconds`.
    func spoken(_ text: String, seconds: Int, name: String) throws -> URL {
        let whole = folder.path("\(name)-whole.wav")
        let made = try ProcessRunner.run("/usr/bin/espeak-ng", ["-s", "175", "-w", whole.path, text])
        try #require(made.status == 0, "\(made.standardError)")
        let out = folder.path("\(name).wav")
        _ = try ProcessRunner.run("/usr/bin/sox", [whole.path, out.path, "trim", "0", "\(seconds)"])
        return out
    }

    /// A room (scripts/echo-room.py): `arguments` as the script takes them; the folder with mic.wav,
    /// reference.wav and spans.json.
    func room(_ name: String, _ arguments: [String]) throws -> URL {
        let out = folder.path(name)
        let made = try ProcessRunner.run(Self.python, [Self.script, out.path] + arguments, timeoutSeconds: 300)
        try #require(made.status == 0, "\(made.standardError)")
        return out
    }

    func listen(
        _ room: URL, reference: Bool = true, trace: URL? = nil, echoPath: URL? = nil,
        environment: [String: String] = [:]
    ) throws -> (heard: [(phrase: String, middleMs: Int)], errors: String) {
        var arguments = [
            "listen", "--data-dir", folder.path("data").path, "--json", "--mic",
            "wav:" + room.appendingPathComponent("mic.wav").path,
        ]
        if reference { arguments += ["--reference", "wav:" + room.appendingPathComponent("reference.wav").path] }
        if let echoPath { arguments += ["--echo-path", echoPath.path] }
        var environment = environment
        if let trace { environment["ASSIST_VOICE_TRACE"] = trace.path }
        let run = try InProcessApp.listen(arguments, environment: environment, timeoutSeconds: 300)
        #expect(run.status == 0, "\(run.standardError)")
        let heard = run.standardOutput.split(separator: "\n").compactMap { line -> (String, Int)? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["rejected"] == nil, let phrase = object["phrase"] as? String,
                let start = object["start_ms"] as? Int, let end = object["end_ms"] as? Int
            else { return nil }
            return (phrase, (start + end) / 2)
        }
        return (heard, run.standardError)
    }

    func spans(_ room: URL) throws -> [(from: Int, to: Int)] {
        let data = try Data(contentsOf: room.appendingPathComponent("spans.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let commands = try #require(object["commands"] as? [[String: Any]])
        return commands.compactMap { item in
            guard let from = item["from_ms"] as? Int, let to = item["to_ms"] as? Int else { return nil }
            return (from, to)
        }
    }

    @Test func commandsSaidOverAReadingAreHeardThroughItsEchoAndNotWithoutTheReference() throws {
        guard voicesInstalled else { return }
        let labels = ["stop", "pause", "next", "faster", "read text", "what time is it"]
        let voices = try renderings(labels, count: 2, seed: 33)
        let reading = try reading(seconds: 100)
        // Twelve commands from the 20th second on (the canceller learns the room over the first seconds of any
        // session's speech), in two rooms: the echo as loud as the voice after 40 ms, and twice as loud after 140.
        var said: [(String, URL)] = []
        for round in 0..<2 { for label in labels { said.append((label, voices[label]![round])) } }
        var heardWith = 0
        var heardWithout = 0
        var heldAfterEnd: [Int] = []
        for (echo, delay) in [(0, 40), (6, 140)] {
            var arguments = [
                "--reading", reading.path, "--lead-seconds", "0", "--echo-db", "\(echo)", "--delay-ms", "\(delay)",
                "--rt60-ms", "350", "--seed", "\(echo + 1)",
            ]
            for (index, (_, file)) in said.enumerated() { arguments += ["--say", "\(file.path)@\(20 + index * 6)"] }
            let room = try room("room-\(echo)", arguments)
            let spans = try spans(room)
            func count(_ heard: [(phrase: String, middleMs: Int)]) -> Int {
                zip(said, spans).filter { item, span in
                    heard.contains {
                        $0.phrase == item.0 && span.from - 300 <= $0.middleMs && $0.middleMs <= span.to + 300
                    }
                }.count
            }
            let trace = folder.path("trace-\(echo).txt")
            let with = try listen(room, trace: trace)
            // The right reference, in a reverberant room with a person speaking over it: found, nothing said.
            #expect(!with.errors.contains("was not found"), "echo \(echo) dB: \(with.errors)")
            let without = try listen(room, reference: false)
            // When each command was first reported over Assist's sound (the sound is held then), against where its
            // voice ends.
            let text = try String(contentsOf: trace, encoding: .utf8)
            #expect(text.contains("search reports promptly"), "echo \(echo) dB: the searches never became prompt")
            let pattern = #/heard \{.*?"start_ms":(\d+),"end_ms":(\d+).*?\} at (\d+) ms over Assist's/#
            let reports = text.matches(of: pattern).map {
                (middle: (Int($0.output.1)! + Int($0.output.2)!) / 2, fed: Int($0.output.3)!)
            }
            for ((_, file), span) in zip(said, spans) {
                let end = span.from + (try Self.voiceEndMs(file))
                if let fed = reports.filter({ span.from - 300 <= $0.middle && $0.middle <= span.to + 300 })
                    .map(\.fed).min()
                {
                    heldAfterEnd.append(fed - end)
                }
            }
            heardWith += count(with.heard)
            heardWithout += count(without.heard)
            // Nothing heard that was not said.
            let stray = with.heard.filter { heard in
                !spans.contains { $0.from - 300 <= heard.middleMs && heard.middleMs <= $0.to + 300 }
            }
            #expect(stray.isEmpty, "echo \(echo) dB: heard \(stray) where nothing was said")
            #expect(with.errors.contains(#""echo_delay_ms":"#), "\(with.errors)")
        }
        // bench/voice.sh measures the rate on many more; here, most are heard, and none without the canceller.
        #expect(heardWith >= 16, "heard \(heardWith) of 24 through the canceller")
        #expect(heardWithout <= 2, "heard \(heardWithout) of 24 with the echo left in")
        // Over Assist's sound the searches report a phrase the moment it passes its threshold (docs/voice.md,
        // "At once"). Measured on the bench's commands of these kinds (40 in each room): three in four were
        // reported by 70 and 80 ms after the voice's end, where the steady search took 140 and 130 ms.
        heldAfterEnd.sort()
        #expect(
            heldAfterEnd.count >= 16 && heldAfterEnd[heldAfterEnd.count * 3 / 4] <= 110,
            "reported after the voice's end: \(heldAfterEnd) ms")
    }

    /// Where the voice in a rendering ends, ms from its start (as bench/barge_in_bench.py finds it): the last
    /// 10 ms block over 8 times the quietest fifth's RMS and within 18 dB of the loudest.
    static func voiceEndMs(_ file: URL) throws -> Int {
        let wav = try WavFile.read(file)
        let step = wav.format.sampleRateHz / 100
        let rms = stride(from: 0, to: wav.samples.count - step, by: step).map { start in
            (wav.samples[start..<start + step].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(step)).squareRoot()
        }
        let floor = rms.sorted()[rms.count / 5]
        let threshold = max(8 * floor, (rms.max() ?? 1) / 8)
        return ((rms.lastIndex { $0 > threshold } ?? 0) + 1) * 10
    }

    @Test func theReadingAloneActsOnNothingThoughItSaysTheCommandsWords() throws {
        guard voicesInstalled else { return }
        // Assist reading its own help ("stop", "next", "repeat", "help" in it), twice as loud as a voice would be.
        let text = try String(
            contentsOf: BuildProducts.packageRoot.appendingPathComponent("docs/voice.md"), encoding: .utf8)
        let reading = try reading(seconds: 90)
        #expect(text.contains("stop"))
        let room = try room("alone", ["--reading", reading.path, "--echo-db", "6", "--delay-ms", "90"])
        let heard = try listen(room)
        #expect(heard.heard.isEmpty, "acted on Assist's own voice: \(heard.heard)")
    }

    @Test func aReferenceThatCannotBeUsedIsSaidOnce() throws {
        guard voicesInstalled else { return }
        let reading = try reading(seconds: 30)
        let room = try room("bad", ["--reading", reading.path, "--echo-db", "0", "--delay-ms", "60"])
        func run(_ reference: String) throws -> ProcessResult {
            try InProcessApp.listen(
                [
                    "listen", "--data-dir", folder.path("data").path, "--json", "--mic",
                    "wav:" + room.appendingPathComponent("mic.wav").path, "--reference", reference,
                ], timeoutSeconds: 300)
        }
        // Not a file at all, or not a WAV.
        let missing = try run("wav:" + folder.path("nowhere.wav").path)
        #expect(missing.status == 66)
        #expect(missing.standardError.contains("cannot be read"), "\(missing.standardError)")
        let alsa = try run("alsa")
        #expect(alsa.status == 64)
        #expect(alsa.standardError.contains("--reference takes wav:PATH"), "\(alsa.standardError)")
        // Silent: said, and nothing is taken out.
        let silent = folder.path("silent.wav")
        try WavFile(format: VoiceListener16k.format, samples: [Int16](repeating: 0, count: 16_000 * 30)).data.write(
            to: silent)
        let quiet = try run("wav:" + silent.path)
        #expect(quiet.status == 0)
        #expect(quiet.standardError.contains("is silent"), "\(quiet.standardError)")
        // Two seconds late (its sound comes after its echo): not found, and said once.
        let late = folder.path("late.wav")
        let played = try WavFile.read(room.appendingPathComponent("reference.wav"))
        try WavFile(format: played.format, samples: [Int16](repeating: 0, count: 32_000) + played.samples).data.write(
            to: late)
        let wrong = try run("wav:" + late.path)
        #expect(wrong.status == 0)
        let lines = wrong.standardError.split(separator: "\n").filter { $0.contains("--reference") }
        #expect(lines.count == 1, "\(wrong.standardError)")
        #expect(!wrong.standardOutput.contains(#""phrase""#), "acted on a guess: \(wrong.standardOutput)")
    }
}

extension EchoListenTests {
    /// The shell in `always` mode with speech on, reading its menu into `--audio-out wav:` while `--mic live:`
    /// plays `mic` and, with `room` ("DELAY_MS,LEVEL_DB,RT60_MS", `ASSIST_TEST_ROOM`), what the speakers play
    /// comes back into the microphone as a room would return it: what it printed, and what its speakers played
    /// on the microphone's time line (the trace's FILE.played.raw, 16 kHz mono).
    func shell(_ name: String, mic: URL, room: String?) throws -> (lines: [String], played: [Int16], trace: String) {
        try "[voice]\nmode = \"always\"\n".write(to: folder.path("always.toml"), atomically: false, encoding: .utf8)
        // Every run says the same: the tour's offer, said once per data folder, is taken as said already.
        try FileManager.default.createDirectory(at: folder.path("data"), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder.path("data/.said-tour-offer").path, contents: nil)
        let trace = folder.path("trace-\(name).txt")
        var environment = ["ASSIST_VOICE_TRACE": trace.path]
        if let room { environment["ASSIST_TEST_ROOM"] = room }
        let run = try InProcessApp.typing(
            [
                "shell", "--data-dir", folder.path("data").path, "--config", folder.path("always.toml").path,
                "--audio-out", "wav:" + folder.path("out-\(name).wav").path, "--mic", "live:" + mic.path,
            ],
            // Quit once the 26 s of sound have been heard (later where the voice thread runs behind: sanitizers).
            lines: [ProcessRunner.TypedLine("quit", after: 25 + 5 * (ProcessRunner.timeScale - 1))],
            environment: environment, timeoutSeconds: 30)
        let raw = (try? Data(contentsOf: URL(fileURLWithPath: trace.path + ".played.raw"))) ?? Data()
        let played = raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return (
            run.output.split(separator: "\n").map(String.init), played,
            (try? String(contentsOf: trace, encoding: .utf8)) ?? "(no trace)"
        )
    }

    /// The loudest sample of each 100 ms of `samples` from their first sound on.
    static func loudness(_ samples: [Int16]) -> [Int] {
        let blocks = stride(from: 0, to: samples.count - 1_600, by: 1_600).map { start in
            samples[start..<(start + 1_600)].map { abs(Int($0)) }.max() ?? 0
        }
        return Array(blocks.drop { $0 < 300 })
    }

    /// The RMS level in dBFS of the 100 ms blocks of `samples` that sound (speech, not its pauses).
    static func speechLevel(_ samples: [Int16]) -> Double {
        var powers: [Double] = []
        for start in stride(from: 0, to: samples.count - 1_600, by: 1_600) {
            var sum = 0.0
            for sample in samples[start..<(start + 1_600)] { sum += Double(sample) * Double(sample) }
            let power = sum / 1_600
            if power > 90_000 { powers.append(power) }
        }
        guard !powers.isEmpty else { return -100 }
        let mean = powers.reduce(0, +) / Double(powers.count)
        return 10 * log10(mean) - 20 * log10(32_768.0)
    }

    @Test func theShellStopsReadingWhenToldOverItsVoiceAndNeverByItsOwnWords() throws {
        guard voicesInstalled else { return }
        // The shell reads its menu ("… 7. Quit. … Control R repeats; Escape cancels.") for about 20 s in a room
        // that returns it 300 ms late with a 300 ms tail (ASSIST_TEST_ROOM), at the speakers' level, and nobody
        // speaks: nothing of its own is acted on.
        let quiet = folder.path("quiet.wav")
        _ = try ProcessRunner.run(
            "/usr/bin/sox",
            ["-n", "-r", "16000", "-c", "1", "-b", "16", quiet.path, "synth", "26", "pinknoise", "vol", "0.002"])
        let own = try shell("own", mic: quiet, room: "300,0,300")
        let menu = Self.loudness(own.played)
        try #require(menu.count > 100, "the menu was not read: \(own.lines)\n\(own.trace)")
        // In the sanitizer lanes (time scale over 1) the voice thread runs several times behind the sound it
        // hears, and whether a word is caught in time is a matter of speed there: those lanes run this path for
        // memory and races; the plain lane, which runs this suite by itself, checks what is heard.
        let plain = ProcessRunner.timeScale == 1
        if plain {
            #expect(
                !own.lines.contains { $0.hasPrefix("Heard:") }, "acted on its own voice: \(own.lines)\n\(own.trace)")
            #expect(!own.lines.contains { $0.hasPrefix("Sorry") }, "answered its own voice: \(own.lines)")
            #expect(own.trace.contains("echo: the delay is"), "\(own.trace)")
        }

        // "Stop" said at 15 s (and again at 17 s, as a person would if not heard), in room noise, while the room
        // returns the menu as loud as the voice (a voice at -26 dBFS, echo-room.py's): the speakers fall silent
        // when it is heard, and so does their echo.
        let echoLevel = -26 - Self.speechLevel(own.played)
        let stop = try renderings(["stop"], count: 1, seed: 34)["stop"]![0]
        let said = try self.room(
            "menu-stop",
            [
                "--reading", quiet.path, "--lead-seconds", "0", "--tail-seconds", "0", "--echo-db", "-40",
                "--say", "\(stop.path)@15", "--say", "\(stop.path)@17",
            ])
        let stopped = try shell(
            "stopped", mic: said.appendingPathComponent("mic.wav"),
            room: "300,\(String(format: "%.1f", echoLevel)),300")
        guard plain else { return }
        // What was heard and what became of it (the whole trace is longer than a CI report shows).
        let account = stopped.trace.split(separator: "\n").filter {
            $0.contains("heard {") || $0.contains("decoded as") || $0.contains("delay is") || $0.contains("answer:")
                || $0.contains("dropped") || $0.contains("holding") || $0.contains("sure {") || $0.contains("window ")
        }.joined(separator: "\n")
        #expect(stopped.lines.contains("Heard: stop."), "\(stopped.lines)\n\(account)")
        // The first thing it acted on is the person's "stop": nothing of its own before it. What follows the
        // first is not its own voice (the speakers fell silent), and a second "stop" may be misheard. How soon
        // the sound stops is measured by bench/voice.sh (a timed figure, not a test's).
        let heard = stopped.lines.filter { $0.hasPrefix("Heard:") }
        #expect(heard.first.map { $0 == "Heard: stop." } ?? true, "\(stopped.lines)\n\(account)")
    }
}

/// The recogniser's format, for writing a reference.
enum VoiceListener16k {
    static let format = AudioFormat(sampleRateHz: 16_000, channels: 1)
}

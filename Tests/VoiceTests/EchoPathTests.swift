import Audio
import Foundation
import HostTesting
import Testing
import Voice

/// The room remembered (docs/voice.md): what one session's echo canceller learnt is taught to the next one's
/// before its first sound, so that Assist's voice is taken out of the microphone from the reading's first second.
/// The rooms are EchoCancellerTests'; `assist listen --echo-path` runs in process.
@Suite("Echo path kept between sessions")
struct EchoPathTests {
    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("assist-echo-path") }

    static let earlier = """
        The first session reads a letter. Dear friend, the garden is green again and the pond is full of frogs. \
        We walked to the village on Sunday and bought bread, cheese and apples at the market by the church.
        """

    /// How much of Assist's voice is taken out, dB, over `range` (samples) where it played.
    static func enhancement(mic: [Int16], left: [Int16], in range: Range<Int>) -> Double {
        let heard = EchoCancellerTests.energy(mic[range])
        let kept = EchoCancellerTests.energy(left[range])
        return 10 * log10(heard / max(kept, 1))
    }

    /// A session in the room: its reading and what the microphone heard of it.
    func session(_ text: String, delayMs: Int = 80) throws -> (played: [Int16], mic: [Int16]) {
        let played = try SyntheticVoice.speak(text, in: folder)
        return (played, EchoCancellerTests.echo(of: played, delayMs: delayMs))
    }

    /// What a canceller learnt over an earlier session in the room.
    func learnt(devices: String = "test", delayMs: Int = 80) throws -> EchoPath {
        let (played, mic) = try session(Self.earlier + " " + Self.earlier, delayMs: delayMs)
        let canceller = try EchoCanceller(reference: played)
        _ = EchoCancellerTests.cancel(mic, canceller)
        return try #require(canceller.learntPath(devices: devices), "nothing worth keeping was learnt")
    }

    @Test func theNextSessionTakesAssistsVoiceOutFromItsFirstSecond() throws {
        let path = try learnt()
        #expect(path.taps.count == EchoCanceller.pathTaps)
        #expect(path.enhancementDecibels >= EchoCanceller.pathEnhancementDecibels)
        // The next session reads another text in the same room.
        let (played, mic) = try session(EchoCancellerTests.text)
        let fresh = try EchoCanceller(reference: played)
        let taught = try EchoCanceller(reference: played, remembered: path)
        #expect(fresh.startedFrom == nil)
        #expect(taught.startedFrom == path)
        let freshLeft = EchoCancellerTests.cancel(mic, fresh)
        let taughtLeft = EchoCancellerTests.cancel(mic, taught)
        // The first second and a half: a canceller starting afresh is still learning; one taught the room is not.
        let firstSeconds = 0..<24_000
        let afresh = Self.enhancement(mic: mic, left: freshLeft, in: firstSeconds)
        let kept = Self.enhancement(mic: mic, left: taughtLeft, in: firstSeconds)
        #expect(kept >= 12, "\(kept) dB taken out in the first 1.5 s from the room kept, \(afresh) dB afresh")
        #expect(kept >= afresh + 10, "\(kept) dB from the room kept against \(afresh) dB afresh")
        // And later it is no worse than one that learnt the room by itself.
        let later = 48_000..<min(mic.count, 96_000)
        let laterKept = Self.enhancement(mic: mic, left: taughtLeft, in: later)
        let laterAfresh = Self.enhancement(mic: mic, left: freshLeft, in: later)
        #expect(laterKept >= laterAfresh - 3, "later: \(laterKept) dB against \(laterAfresh) dB afresh")
    }

    @Test func aCancellerThatHeardTooLittleKeepsNothing() throws {
        let (played, mic) = try session("Stop here.")
        let canceller = try EchoCanceller(reference: played)
        _ = EchoCancellerTests.cancel(mic, canceller)
        #expect(canceller.learntPath(devices: "test") == nil)
        // Nothing played at all (headphones): nothing to keep either.
        let quiet = try EchoCanceller(reference: [Int16](repeating: 0, count: 160_000))
        _ = EchoCancellerTests.cancel([Int16](repeating: 3, count: 160_000), quiet)
        #expect(quiet.learntPath(devices: "test") == nil)
    }

    @Test func aPathKeptForOtherDevicesOrDamagedIsNotUsed() throws {
        let path = try learnt(devices: "the speakers → alsa:default")
        let data = path.encoded()
        #expect(EchoPath.decode(data, devices: "the speakers → alsa:default") == .success(path))
        #expect(
            EchoPath.decode(data, devices: "the file out.wav → alsa:default")
                == .failure(.otherDevices("the speakers → alsa:default")))
        #expect(EchoPath.decode(data.prefix(data.count / 2), devices: "x") == .failure(.unreadable))
        #expect(EchoPath.decode(Data("{}".utf8), devices: "x") == .failure(.unreadable))
        var shorter = path
        shorter.taps.removeLast(160)
        #expect(
            EchoPath.decode(shorter.encoded(), devices: "the speakers → alsa:default")
                == .failure(.otherCanceller))
        var otherFormat = path
        otherFormat.format = EchoPath.currentFormat + 1
        #expect(
            EchoPath.decode(otherFormat.encoded(), devices: "the speakers → alsa:default")
                == .failure(.otherCanceller))
        // Numbers no canceller gives (a damaged file): a delay of -4.6e18 blocks stopped `assist listen` on an
        // overflow when it printed the delay. Every delay and shift a canceller can reach is taken.
        for (lag, shift) in [(Int.min / 2, 0), (EchoPath.lags.upperBound + 1, 0), (5, -1_000), (5, Int.max)] {
            var damaged = path
            (damaged.lagBlocks, damaged.shiftBlocks) = (lag, shift)
            let refused =
                EchoPath.decode(damaged.encoded(), devices: "the speakers → alsa:default") == .failure(.otherCanceller)
            #expect(refused, "delay \(lag), shift \(shift)")
        }
        for lag in [EchoPath.lags.lowerBound, 1, EchoPath.lags.upperBound] {
            var small = path
            (small.lagBlocks, small.shiftBlocks) = (lag, lag - EchoCanceller.marginBlocks)
            let taken = EchoPath.decode(small.encoded(), devices: "the speakers → alsa:default") == .success(small)
            #expect(taken, "delay \(lag), shift \(lag - EchoCanceller.marginBlocks)")
        }
        // A canceller is never taught a filter of another size (the library refuses it too).
        let taught = try EchoCanceller(reference: [Int16](repeating: 0, count: 16_000), remembered: shorter)
        #expect(taught.startedFrom == nil)
    }

    /// `assist listen --reference --echo-path FILE` keeps the room in FILE (0600) and starts from it the next time;
    /// a damaged FILE is said once and written anew; `--echo-path` alone is a usage error.
    @Test func listenKeepsTheRoomInTheFileNamed() throws {
        let room = folder.path("room")
        try FileManager.default.createDirectory(at: room, withIntermediateDirectories: true)
        let (played, mic) = try session(Self.earlier + " " + Self.earlier)
        try WavFile(format: .recognition, samples: played).data.write(to: room.appendingPathComponent("reference.wav"))
        try WavFile(format: .recognition, samples: mic).data.write(to: room.appendingPathComponent("mic.wav"))
        let file = folder.path("echo-path.json")
        try Data("{\"format\": 1, \"taps\": [1, 2".utf8).write(to: file)
        func listen(_ extra: [String]) throws -> ProcessResult {
            try InProcessApp.listen(
                [
                    "listen", "--data-dir", folder.path("data").path, "--json", "--phrase", "stop", "--mic",
                    "wav:" + room.appendingPathComponent("mic.wav").path,
                ] + extra)
        }
        let reference = ["--reference", "wav:" + room.appendingPathComponent("reference.wav").path]
        let first = try listen(reference + ["--echo-path", file.path])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardError.contains("The echo path \(file.path) is not used: it cannot be read."))
        #expect(first.standardError.contains(#""started_from_kept_room":false"#))
        let kept = try Data(contentsOf: file)
        guard
            case .success(let path) = EchoPath.decode(
                kept, devices: EchoPath.recordingDevices)
        else {
            Issue.record("the room kept cannot be read back: \(String(decoding: kept.prefix(200), as: UTF8.self))")
            return
        }
        #expect(
            (7...9).contains(path.lagBlocks ?? 0), "the delay kept: \(path.lagBlocks.map { "\($0 * 10) ms" } ?? "none")"
        )
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let second = try listen(reference + ["--echo-path", file.path])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardError.contains(#""started_from_kept_room":true"#), "\(second.standardError)")
        #expect(!second.standardError.contains("is not used"))
        let alone = try listen(["--echo-path", file.path])
        #expect(alone.status == 64)
        #expect(
            alone.standardError.contains("--echo-path keeps the room the echo canceller learns: give --reference too."))
    }

    /// The shell keeps the room in its data folder (voice/echo-path.json, 0600) as it listens through its own
    /// reading, and the next session's canceller starts from it. In process; the room is `ASSIST_TEST_ROOM`'s.
    @Test func theShellKeepsTheRoomForItsNextSession() throws {
        let quiet = folder.path("quiet.wav")
        let made = try ProcessRunner.run(
            "/usr/bin/sox",
            ["-n", "-r", "16000", "-c", "1", "-b", "16", quiet.path, "synth", "45", "pinknoise", "vol", "0.002"])
        try #require(made.status == 0, "\(made.standardError)")
        let data = folder.path("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: data.appendingPathComponent(".said-tour-offer").path, contents: nil)
        func session(_ name: String, lines: [ProcessRunner.TypedLine]) throws -> String {
            let trace = folder.path("trace-\(name).txt")
            _ = try InProcessApp.typing(
                [
                    "shell", "--data-dir", data.path, "--voice", "always", "--audio-out",
                    "wav:" + folder.path("out.wav").path, "--mic", "live:" + quiet.path,
                ],
                lines: lines, environment: ["ASSIST_VOICE_TRACE": trace.path, "ASSIST_TEST_ROOM": "150,0,300"],
                timeoutSeconds: 30)
            return (try? String(contentsOf: trace, encoding: .utf8)) ?? "(no trace)"
        }
        let scale = ProcessRunner.timeScale
        // The menu is read for about 20 s, and once more ("repeat") from the 12th second: the voice thread, which
        // starts seconds late on a loaded machine (4 s in a rehearsal's test half, which then heard 12 s of the
        // menu and kept nothing), hears well over the 10 s of Assist's sound a room is kept after.
        let first = try session(
            "first",
            lines: [
                ProcessRunner.TypedLine("repeat", after: 12 * scale),
                ProcessRunner.TypedLine("quit", after: 20 * scale),
            ])
        let file = data.appendingPathComponent("voice/echo-path.json")
        #expect(first.contains("echo: the room kept in \(file.path)"), "\(first)")
        #expect(!first.contains("starts from the room kept"))
        let kept = try #require(try? Data(contentsOf: file), "no room kept:\n\(first)")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let folderMode =
            try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions]
            as? Int
        #expect(folderMode == 0o700)
        #expect(String(decoding: kept, as: UTF8.self).contains("out.wav"), "the devices it holds for are named")
        let second = try session("second", lines: [ProcessRunner.TypedLine("quit", after: 4 * scale)])
        #expect(second.contains("echo: the canceller starts from the room kept in \(file.path)"), "\(second)")
    }
}

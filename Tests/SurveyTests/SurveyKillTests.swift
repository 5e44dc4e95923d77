import Audio
import Foundation
import HostTesting
import Testing

/// `assist survey` killed with SIGKILL at each stage (mid-take, after saving, mid-upload) loses no answer and
/// sends nothing twice: the next run picks up where the files and rows say it was.
@Suite("assist survey under kill -9", .serialized)
struct SurveyKillTests {
    /// A running `assist survey`, fed lines and read as it speaks.
    final class Child {
        let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private let seen = Collected<String>()
        /// What the child prints, read on a thread of its own (`PipeDrain`).
        private var drain: PipeDrain?

        init(_ arguments: [String], environment: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: BuildProducts.assist)
            process.arguments = arguments
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let seen = self.seen
            try process.run()
            drain = PipeDrain(output.fileHandleForReading) { seen.append(String(decoding: $0, as: UTF8.self)) }
        }

        var text: String { seen.values.joined() }

        /// Waits until the output holds `needle` `count` times.
        @discardableResult
        func waitFor(_ needle: String, count: Int = 1, timeout: Double = 20) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if text.components(separatedBy: needle).count - 1 >= count { return true }
                Thread.sleep(forTimeInterval: 0.03)
            }
            return false
        }

        func send(_ line: String) { try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }

        /// Sends `line` once the output has grown past what it was, so each line meets the question it answers.
        func answer(_ line: String, expecting needle: String) {
            let before = text.components(separatedBy: needle).count - 1
            send(line)
            #expect(waitFor(needle, count: before + 1), "after \(line): \(text.suffix(300))")
        }

        func kill9() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            drain?.waitForEnd(seconds: 10)
        }

        func quit() {
            send("quit")
            process.waitUntilExit()
            drain?.waitForEnd(seconds: 10)
        }
    }

    let folder: TemporaryDirectory
    let server: Covid19SoundsServer

    init() throws {
        try self.init(folderOnly: TemporaryDirectory("assist-survey-kill9"))
    }

    init(folderOnly folder: TemporaryDirectory) throws {
        self.folder = folder
        server = try Covid19SoundsServer()
        try SurveyHarness.noise(seconds: 1.5, rate: 44_100).write(to: folder.path("short.wav"))
        try SurveyHarness.noise(seconds: 12, rate: 44_100).write(to: folder.path("long.wav"))
    }

    /// Options for a run: the fake server (or a closed port), fast retries, a microphone.
    func arguments(mic: String, serverURL: String? = nil) throws -> [String] {
        let config = folder.path("config-\(UUID().uuidString).toml")
        try """
        [survey]
        server-url = "\(serverURL ?? server.baseURL)"
        client-id = "\(server.clientID)"
        client-secret = "\(server.clientSecret)"
        preauth-password = "\(server.preauthPassword)"
        preauth-email = "\(server.preauthEmail)"
        retry-seconds = "0.3,0.6"

        [outbox]
        retry-base-seconds = 0.2
        """.write(to: config, atomically: true, encoding: .utf8)
        return ["survey", "--no-speech", "--data-dir", folder.path("data").path, "--config", config.path, "--mic", mic]
    }

    /// From the age gate to the first recording.
    func answerQuestions(_ child: Child) {
        #expect(child.waitFor("How your data is used."))
        child.answer("continue", expecting: "Press Y for")
        child.answer("yes", expecting: "Question 2 of")
        child.answer("2", expecting: "chosen")
        child.answer("continue", expecting: "Question 3 of")
        child.answer("3", expecting: "chosen")
        child.answer("continue", expecting: "Question 4 of")
        child.answer("3", expecting: ", on.")
        child.answer("continue", expecting: "Question 5 of")
        child.answer("1", expecting: "chosen")
        child.answer("continue", expecting: "Question 6 of")
        child.answer("3", expecting: ", on.")
        child.answer("continue", expecting: "Question 7 of")
        child.answer("4", expecting: "chosen")
        child.answer("continue", expecting: "Question 8 of")
        child.answer("1", expecting: "chosen")
        child.answer("continue", expecting: "Question 9 of")
    }

    /// Records the takes still to do and saves.
    func recordAndSave(_ child: Child, takes: Int, reminders: Bool = false) {
        for _ in 0..<takes {
            child.answer("record", expecting: "Recorded")
            child.answer("continue", expecting: "Question")
        }
        #expect(child.waitFor("latitude and longitude"))
        child.answer("52.2,0.12", expecting: "Your answers:")
        child.answer("continue", expecting: "Your answers are saved.")
        // The end offers reminders; without, the run ends once the upload settles.
        #expect(child.waitFor("Would you like a reminder to answer again?"))
        if reminders {
            child.answer("yes", expecting: "Reminders are on")
        } else {
            child.answer("no", expecting: "No reminders.")
        }
    }

    /// The end of a survey offers reminders (the original's end screen did); yes installs the user's systemd
    /// timer, through a stand-in `systemctl` that records what it was asked, and the run still ends when sent.
    @Test func theEndOffersRemindersAndYesTurnsThemOn() throws {
        let bin = folder.path("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let asked = folder.path("systemctl.log")
        try "#!/bin/sh\necho \"$@\" >> '\(asked.path)'\n".write(
            to: bin.appendingPathComponent("systemctl"), atomically: true, encoding: .utf8)
        chmod(bin.appendingPathComponent("systemctl").path, 0o755)
        let config = folder.path("xdg-config")
        let child = try Child(
            arguments(mic: "wav:\(folder.path("short.wav").path)"),
            environment: [
                "PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                "XDG_CONFIG_HOME": config.path,
            ])
        answerQuestions(child)
        recordAndSave(child, takes: 3, reminders: true)
        #expect(child.waitFor("Sent."))
        child.process.waitUntilExit()
        #expect(child.text.contains("Reminders are on: a check every day at "), "\(child.text.suffix(400))")
        let timer = config.appendingPathComponent("systemd/user/assist-survey-covid19-sounds.timer")
        #expect(FileManager.default.fileExists(atPath: timer.path), "the timer unit is written")
        let calls = (try? String(contentsOf: asked, encoding: .utf8)) ?? ""
        #expect(calls.contains("--user enable --now assist-survey-covid19-sounds.timer"), "\(calls)")
        #expect(server.uploads.count == 1)
    }

    var mediaFiles: [String] {
        let root = folder.path("data/plugins/assist.survey/media").path
        let names = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        return names.filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder)
                && !isFolder.boolValue
        }
    }

    @Test func killedMidTakeResumesAtThatRecordingWithNoHalfTakeKept() throws {
        let first = try Child(arguments(mic: "live:\(folder.path("long.wav").path)"))
        answerQuestions(first)
        first.send("record")
        #expect(first.waitFor("Recording in 3, 2, 1."))
        Thread.sleep(forTimeInterval: 1.5)  // a second and more into the take
        first.kill9()
        #expect(mediaFiles.count == 1, "the half take is on disk: \(mediaFiles)")

        let second = try Child(arguments(mic: "wav:\(folder.path("short.wav").path)"))
        #expect(second.waitFor("unfinished survey"))
        second.answer("1", expecting: "Question 9 of")
        #expect(!second.text.contains("is kept"), "no take was accepted")
        #expect(mediaFiles.isEmpty, "the half take is swept: \(mediaFiles)")
        recordAndSave(second, takes: 3)
        #expect(second.waitFor("Sent."))
        second.process.waitUntilExit()
        #expect(server.uploads.count == 1)
        #expect(server.uploads.first?.parts.count == 5)
    }

    @Test func killedAfterSavingSendsTheSubmissionOnceAtTheNextRun() throws {
        // The first run cannot reach the server: it saves, fails a try, and is killed while waiting to retry.
        let first = try Child(arguments(mic: "wav:\(folder.path("short.wav").path)", serverURL: "http://127.0.0.1:1"))
        answerQuestions(first)
        recordAndSave(first, takes: 3)
        #expect(first.waitFor("will be sent later"))
        first.kill9()
        #expect(mediaFiles.filter { $0.hasSuffix(".wav") }.count == 3)

        let second = try Child(arguments(mic: "wav:\(folder.path("short.wav").path)"))
        #expect(second.waitFor("Sent."), "\(second.text)")
        second.quit()
        #expect(server.uploads.count == 1)
        let upload = try #require(server.uploads.first)
        #expect(upload.part("initial.json") != nil && upload.json("daily.json")?["symptoms"] == "fever")
        #expect(mediaFiles.isEmpty)
    }

    /// `assist survey sync`, which a per-person kiosk runs in a departed person's folder: what waits is sent
    /// with nobody to answer anything, exactly once, and the run ends by itself.
    @Test func syncSendsWhatWaitsWithNobodyThereAndEnds() throws {
        let first = try Child(arguments(mic: "wav:\(folder.path("short.wav").path)", serverURL: "http://127.0.0.1:1"))
        answerQuestions(first)
        recordAndSave(first, takes: 3)
        #expect(first.waitFor("will be sent later"))
        first.kill9()
        #expect(server.uploads.isEmpty)

        // Without the server's settings nothing can go: exit status 1, so nothing is taken for sent.
        let bare = folder.path("bare.toml")
        try "[outbox]\nretry-base-seconds = 0.2\n".write(to: bare, atomically: true, encoding: .utf8)
        let unset = try ProcessRunner.run(
            BuildProducts.assist,
            [
                "survey", "sync", "--wait", "5", "--no-speech", "--data-dir", folder.path("data").path, "--config",
                bare.path,
            ],
            input: "")
        #expect(unset.status == 1, "\(unset.standardError)")
        #expect(unset.lines.last == "Sending is not set up on this device; answers are kept.", "\(unset.lines)")

        // The same options, without the microphone: the verb goes after "survey".
        let options = Array(try arguments(mic: "null").dropFirst().dropLast(2))
        let sync = try ProcessRunner.run(
            BuildProducts.assist, ["survey", "sync", "--wait", "60"] + options, input: "",
            timeoutSeconds: 90)
        #expect(sync.status == 0, "\(sync.standardError)")
        #expect(server.uploads.count == 1, "sent once, whole")
        #expect(mediaFiles.isEmpty, "the takes are gone once sent")
        let again = try ProcessRunner.run(
            BuildProducts.assist, ["survey", "sync", "--wait", "5"] + options, input: "")
        #expect(again.status == 0 && server.uploads.count == 1, "nothing waits: nothing sent again")
    }

    @Test func killedMidUploadCompletesExactlyOnceAtTheNextRun() throws {
        server.readUploadsSlowly(60_000)  // about 8 s for the three takes
        let first = try Child(arguments(mic: "wav:\(folder.path("short.wav").path)"))
        answerQuestions(first)
        recordAndSave(first, takes: 3)
        let deadline = Date().addingTimeInterval(20)
        while server.uploadsStarted == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 1)
        first.kill9()
        #expect(server.uploads.isEmpty, "the first upload never completed")

        server.readUploadsSlowly(nil)
        let second = try Child(arguments(mic: "wav:\(folder.path("short.wav").path)"))
        #expect(second.waitFor("Sent."), "\(second.text)")
        second.quit()
        #expect(server.uploads.count == 1, "sent once, whole")
        #expect(server.calls.filter { $0.0 == .createUser }.count == 1)
        #expect(mediaFiles.isEmpty)
    }
}

/// "Play recording" through the host's real mixer into `--audio-out wav:PATH`: the take is heard.
@Suite("assist survey playback")
struct SurveyPlaybackTests {
    @Test func playingATakeBackSendsItToTheSoundOutput() throws {
        let folder = try TemporaryDirectory("assist-survey-play")
        // The take is a 3 kHz tone, easy to tell from speech and the earcons in the output.
        let signal = (0..<66_150).map { Int16(8_000 * sin(2 * Double.pi * 3_000 * Double($0) / 44_100)) }
        let take = WavFile(format: AudioFormat(sampleRateHz: 44_100, channels: 1), samples: signal).data
        try take.write(to: folder.path("mic.wav"))
        let out = folder.path("out.wav")
        let child = try SurveyKillTests.Child([
            "survey", "--data-dir", folder.path("data").path, "--mic",
            "wav:\(folder.path("mic.wav").path)", "--audio-out", "wav:\(out.path)",
        ])
        let kill = try SurveyKillTests(folderOnly: folder)
        kill.answerQuestions(child)
        child.answer("record", expecting: "Recorded")
        child.send("play recording")
        // The 1.5 s take plays in real time; a sanitized, loaded machine starts it later.
        Thread.sleep(forTimeInterval: 2.5 * ProcessRunner.timeScale)
        child.quit()
        let sound = try SoundAnalysis(url: out)
        let tone = sound.strength(ofHz: 3_000, channel: 0)
        let beside = sound.strength(ofHz: 3_370, channel: 0)
        #expect(tone > 10 * beside, "the take's 3 kHz tone is in the output (\(tone) against \(beside))")
    }
}

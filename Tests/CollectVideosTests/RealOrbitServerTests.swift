import Digest
import Foundation
import HostTesting
import Testing

/// The whole flow against the real ORBIT Data server (tobyspark/orbit_data, `phasetwo`) that
/// `scripts/orbit-server-for-tests.sh` starts on loopback for `make test`: consent, a thing, a clip filmed from
/// the video camera source, its upload (checked by the server's own SHA-256), staff validation, status,
/// rename, a `kill -9` mid-upload that leaves exactly one copy, delete. Skipped, saying why, without it.
@Suite("collect-videos against the real ORBIT Data server", .serialized)
struct RealOrbitServerTests {
    /// ORBIT_URL, ORBIT_SCRIPT and ORBIT_RUN from the script, or nil.
    static let server: [String: String]? = {
        let file = BuildProducts.packageRoot.appendingPathComponent(".build/orbit-server.env")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values["ORBIT_URL"] == nil ? nil : values
    }()

    let folder: TemporaryDirectory

    init() throws { folder = try TemporaryDirectory("assist-orbit-real") }
    init(folder: TemporaryDirectory) { self.folder = folder }

    func orbit(_ arguments: [String]) throws -> [[String: Any]] {
        guard let server = Self.server, let script = server["ORBIT_SCRIPT"] else { return [] }
        let result = try ProcessRunner.run(
            "/bin/bash", [script] + arguments, environment: ["ORBIT_RUN": server["ORBIT_RUN"] ?? ""],
            timeoutSeconds: 120)
        return result.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    func run(_ arguments: [String], camera: String = "camera.mp4") throws -> ProcessResult {
        try OrbitFixtures.run(arguments, in: folder, camera: camera, timeout: 120)
    }

    @Test func theWholeFlowWorksAgainstTheRealServer() throws {
        guard let server = Self.server, let url = server["ORBIT_URL"] else {
            print("skipped: the real ORBIT server is not running (scripts/orbit-server-for-tests.sh up)")
            return
        }
        try OrbitFixtures.writeConfig(to: folder.path("config.toml"), serverURL: url)
        try OrbitFixtures.camera(folder.path("camera.mp4"), size: "1280x720")
        try OrbitFixtures.camera(folder.path("other.mp4"), pattern: "testsrc2", size: "1280x720")
        let email = "ada-\(UUID().uuidString.prefix(8))@example.org"
        let consent = try run(["consent", "--name", "Ada Lovelace", "--email", email, "--agree-all"])
        #expect(
            consent.lines.last == "Consent received. You are now taking part in the ORBIT study.", "\(consent.lines)")
        let label = "Mug \(UUID().uuidString.prefix(6))"
        _ = try run(["thing", "add", label])
        let recorded = try run(["record", label, "--kind", "testing", "--seconds", "3"])
        #expect(recorded.lines.last == "Stopped at 3 seconds. Testing video 1 of 2 saved.", "\(recorded.lines)")
        #expect(try run(["sync", "--wait", "60"]).lines.last == "Everything is sent.")

        // What the server stored: our thing, one video, the very bytes we filmed.
        let stored = try orbit(["status"])
        let thing = try #require(
            stored.first { $0["type"] as? String == "thing" && $0["label_participant"] as? String == label })
        let thingID = try #require(thing["id"] as? Int)
        let videos = stored.filter { $0["type"] as? String == "video" && $0["thing"] as? Int == thingID }
        #expect(videos.count == 1 && videos.first?["technique"] as? String == "S")
        let cached = try #require(
            FileManager.default.enumerator(at: folder.path("data/cache"), includingPropertiesForKeys: nil)?
                .allObjects.compactMap { $0 as? URL }.first { $0.pathExtension == "mp4" })
        let digest = SHA256Digest.hex(of: try Data(contentsOf: cached))
        #expect(videos.first?["sha256_file"] as? String == digest, "the server has exactly the clip filmed")
        let participant = try #require(
            stored.first {
                $0["type"] as? String == "participant" && ($0["pii"] as? [String: Any])?["email"] as? String == email
            })
        #expect(participant["in_study"] as? Bool == true)

        // Staff checks it; the next sync says so.
        let videoID = try #require(videos.first?["id"] as? Int)
        _ = try orbit(["validate", "\(videoID)", "C"])
        _ = try run(["sync", "--wait", "60"])
        let status = try run(["status"])
        #expect(status.lines.last?.contains("Testing video 1 of 2, recorded") == true, "\(status.lines)")
        #expect(status.lines.last?.contains("uploaded, checked and suitable, not yet published") == true)

        // Renamed on the server too.
        _ = try run(["thing", "rename", label, label + " blue"])
        _ = try run(["sync", "--wait", "60"])
        #expect(
            try orbit(["status"]).contains {
                $0["type"] as? String == "thing" && $0["id"] as? Int == thingID
                    && $0["label_participant"] as? String == label + " blue"
            })

        // A second clip, and a kill -9 while it is being sent: after the next sync the server has it once.
        _ = try run(["record", label + " blue", "--kind", "testing", "--seconds", "3"], camera: "other.mp4")
        let child = Process()
        child.executableURL = URL(fileURLWithPath: BuildProducts.assist)
        child.arguments = [
            "run", "collect-videos", "sync", "--no-speech", "--data-dir", folder.path("data").path, "--config",
            folder.path("config.toml").path,
        ]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        Thread.sleep(forTimeInterval: 0.4)
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(try run(["sync", "--wait", "60"]).lines.last == "Everything is sent.")
        let after = try orbit(["status"]).filter { $0["type"] as? String == "video" && $0["thing"] as? Int == thingID }
        #expect(after.count == 2, "\(after)")
        #expect(Set(after.compactMap { $0["sha256_file"] as? String }).count == 2, "no clip twice")

        // Deleted here and there.
        _ = try run(["thing", "delete", label + " blue", "--yes"])
        #expect(try run(["sync", "--wait", "60"]).lines.last == "Everything is sent.")
        #expect(!(try orbit(["status"]).contains { $0["type"] as? String == "thing" && $0["id"] as? Int == thingID }))
    }

    /// Staff end the participant's collection period: the real server then refuses things (403) while
    /// `participant/` still answers; the plugin says so once and keeps everything.
    @Test func afterThePeriodTheRealServerRefusesAndTheUserHearsItOnce() throws {
        guard let server = Self.server, let url = server["ORBIT_URL"] else {
            print("skipped: the real ORBIT server is not running (scripts/orbit-server-for-tests.sh up)")
            return
        }
        try OrbitFixtures.writeConfig(to: folder.path("config.toml"), serverURL: url)
        let email = "grace-\(UUID().uuidString.prefix(8))@example.org"
        let consent = try run(["consent", "--name", "Grace Hopper", "--email", email, "--agree-all"])
        try #require(consent.status == 0, "\(consent.lines)")
        let participant = try #require(
            try orbit(["status"]).first {
                $0["type"] as? String == "participant" && ($0["pii"] as? [String: Any])?["email"] as? String == email
            })
        let id = try #require(participant["id"] as? Int)
        let expired = try ProcessRunner.run(
            BuildProducts.packageRoot.appendingPathComponent("scripts/orbit-server-for-tests.sh").path,
            ["expire", "\(id)"], environment: ["ORBIT_RUN": server["ORBIT_RUN"] ?? ""], timeoutSeconds: 120)
        try #require(expired.status == 0, "\(expired.standardError)")
        let label = "Keys \(UUID().uuidString.prefix(6))"
        // The refusal may come back before `thing add` exits (the host lets a send under way end): said once.
        let added = try run(["thing", "add", label])
        let synced = try run(["sync", "--wait", "60"])
        let said = (added.lines + synced.lines).filter {
            $0 == "The collection period has ended. Your videos stay on this device."
        }
        #expect(said.count == 1, "\(added.lines) then \(synced.lines)")
        #expect(synced.lines.last == "1 change kept on this device: the collection period has ended.")
        #expect(synced.status == 1, "not everything reached the server")
        let again = try run(["sync", "--wait", "60"])
        #expect(!again.lines.contains { $0.hasPrefix("The collection period has ended.") }, "said once")
        #expect(
            !(try orbit(["status"]).contains {
                $0["type"] as? String == "thing" && $0["label_participant"] as? String == label
            }))
    }
    /// One clip deleted by its slot: gone from the server and from the disk, the slot empty; a second try, an
    /// empty slot and a missing --yes each get one sentence and change nothing. Then the study is left: the
    /// server deletes the thing and its other clip.
    @Test func oneClipDeletedAndThenTheStudyLeftLeaveNothing() throws {
        guard let server = Self.server, let url = server["ORBIT_URL"] else {
            print("skipped: the real ORBIT server is not running (scripts/orbit-server-for-tests.sh up)")
            return
        }
        try OrbitFixtures.writeConfig(to: folder.path("config.toml"), serverURL: url)
        try OrbitFixtures.camera(folder.path("camera.mp4"), size: "640x480", seconds: 4)
        try OrbitFixtures.camera(folder.path("other.mp4"), pattern: "testsrc2", size: "640x480", seconds: 4)
        let email = "katherine-\(UUID().uuidString.prefix(8))@example.org"
        try #require(try run(["consent", "--name", "Katherine Johnson", "--email", email, "--agree-all"]).status == 0)
        let label = "Wallet \(UUID().uuidString.prefix(6))"
        _ = try run(["thing", "add", label])
        for camera in ["camera.mp4", "other.mp4"] {  // two different clips: the server keeps one copy of a file
            let recorded = try run(["record", label, "--kind", "training", "--seconds", "2"], camera: camera)
            try #require(recorded.status == 0, "\(recorded.lines) \(recorded.standardError)")
        }
        try #require(try run(["sync", "--wait", "60"]).lines.last == "Everything is sent.")
        let thingID = try #require(
            try orbit(["status"]).first {
                $0["type"] as? String == "thing" && $0["label_participant"] as? String == label
            }?["id"] as? Int)
        func serverVideos() throws -> [[String: Any]] {
            try orbit(["status"]).filter { $0["type"] as? String == "video" && $0["thing"] as? Int == thingID }
        }
        try #require(try serverVideos().count == 2)
        func clips() -> [String] {
            (FileManager.default.enumerator(at: folder.path("data"), includingPropertiesForKeys: nil)?.allObjects ?? [])
                .compactMap { ($0 as? URL)?.lastPathComponent }.filter { $0.hasSuffix(".mp4") }
        }
        #expect(clips().count == 2)

        let unsure = try run(["video", "delete", label, "--kind", "training", "--slot", "1"])
        #expect(unsure.status != 0)
        #expect(
            unsure.lines.last
                == "Deleting training video 1 of 5 of \(label) removes it from this device and from the study. Add --yes to delete it.",
            "\(unsure.lines)")
        let deleted = try run(["video", "delete", label, "--kind", "training", "--slot", "1", "--yes"])
        #expect(deleted.lines.last == "Training video 1 of 5 of \(label) deleted.", "\(deleted.lines)")
        #expect(try run(["sync", "--wait", "60"]).lines.last == "Everything is sent.")
        let left = try serverVideos()
        #expect(left.count == 1, "the other clip stays: \(left)")
        #expect(clips().count == 1, "the deleted clip's file is gone from the cache: \(clips())")
        let status = try run(["status"]).lines.last ?? ""
        #expect(status.contains("\(label). 1 of 7 videos."), "\(status)")
        #expect(!status.contains("Training video 1 of 5,") && status.contains("Training video 2 of 5, recorded"))

        let again = try run(["video", "delete", label, "--kind", "training", "--slot", "1", "--yes"])
        #expect(again.status != 0)
        #expect(
            again.lines.last == "Training video 1 of 5 of \(label) is empty: there is nothing to delete.",
            "\(again.lines)")
        let noSlot = try run(["video", "delete", label, "--kind", "training", "--yes"])
        #expect(noSlot.lines.last == "Say which video: --slot N, from 1 to 5 for training videos.", "\(noSlot.lines)")
        #expect(try serverVideos().count == 1, "nothing more went")

        // Leaving the study: the real server deletes the thing and its last clip; nothing stays here.
        let leaving = try run(["leave", "--yes"])
        #expect(
            leaving.lines.last == "The study's server deleted the 1 thing you sent, with their videos.",
            "\(leaving.lines)")
        #expect(try serverVideos().isEmpty)
        #expect(!(try orbit(["status"]).contains { $0["type"] as? String == "thing" && $0["id"] as? Int == thingID }))
        #expect(clips().isEmpty)
    }
}

/// A per-person kiosk (docs/kiosk.md): a participant films a clip while the network is down and leaves; the
/// kiosk starts the next person's sitting and, in the background, sends the departed participant's thing and
/// clip to the real ORBIT server from their own folder, then deletes that folder.
@Suite("collect-videos in a per-person kiosk, against the real ORBIT Data server", .serialized)
struct RealOrbitKioskTests {
    @Test func aDepartedParticipantsClipStillReachesTheServerAndTheirFolderGoes() throws {
        guard let server = RealOrbitServerTests.server, let url = server["ORBIT_URL"] else {
            print("skipped: the real ORBIT server is not running (scripts/orbit-server-for-tests.sh up)")
            return
        }
        let folder = try TemporaryDirectory("assist-orbit-kiosk")
        let etc = folder.path("etc")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        let device = folder.path("data")
        let first = device.appendingPathComponent("sittings/0001")
        let environment = [
            "ASSIST_SYSCONFDIR": etc.path, "XDG_CONFIG_HOME": first.appendingPathComponent("config").path,
        ]
        func assist(_ arguments: [String], offline: Bool = false) throws -> ProcessResult {
            // libcurl sends through `http_proxy`: a closed port stands in for a network that is down.
            try ProcessRunner.run(
                BuildProducts.assist, arguments + ["--no-speech"],
                environment: environment.merging(offline ? ["http_proxy": "http://127.0.0.1:9"] : [:]) { $1 },
                timeoutSeconds: 120)
        }
        let pin = try ProcessRunner.run(
            BuildProducts.assist, ["kiosk", "set-pin"], input: "2468\n2468\n", environment: environment)
        try #require(pin.status == 0, "\(pin.standardError)")
        let hash = try assist(["kiosk", "hash", "assist.collect-videos", "--data-dir", device.path])
        let allowed = try #require(hash.lines.first { $0.hasPrefix("\"assist.collect-videos\"") }, "\(hash.lines)")
        try OrbitFixtures.writeConfig(
            to: etc.appendingPathComponent("config.toml"), serverURL: url,
            extra: "\n[kiosk]\nsession = \"per-person\"\n\n[kiosk.features]\n\(allowed)\n")
        try OrbitFixtures.camera(folder.path("camera.mp4"), size: "640x480", seconds: 4)

        // The participant, in their sitting: consent online, then a thing and a clip with the network down.
        let sitting = ["--data-dir", first.path]
        let email = "mary-\(UUID().uuidString.prefix(8))@example.org"
        let consent = try assist(
            ["run", "collect-videos", "consent", "--name", "Mary Jackson", "--email", email, "--agree-all"] + sitting)
        try #require(consent.status == 0, "\(consent.lines) \(consent.standardError)")
        let label = "Cane \(UUID().uuidString.prefix(6))"
        _ = try assist(["run", "collect-videos", "thing", "add", label] + sitting, offline: true)
        let recorded = try assist(
            [
                "run", "collect-videos", "record", label, "--kind", "testing", "--seconds", "2", "--camera",
                "video:" + folder.path("camera.mp4").path,
            ] + sitting, offline: true)
        try #require(recorded.status == 0, "\(recorded.lines) \(recorded.standardError)")
        func serverHasTheClip() throws -> Bool {
            let stored = try RealOrbitServerTests(folder: folder).orbit(["status"])
            guard let thing = stored.first(where: { $0["label_participant"] as? String == label }) else { return false }
            return stored.contains { $0["type"] as? String == "video" && $0["thing"] as? Int == thing["id"] as? Int }
        }
        try #require(try !serverHasTheClip(), "nothing reached the server yet")

        // The next person's sitting starts; the first's thing and clip go from their own folder, which then goes.
        let screen = try PseudoTerminal(
            BuildProducts.assist, ["kiosk", "--no-speech", "--data-dir", device.path],
            environment: ["ASSIST_SYSCONFDIR": etc.path, "XDG_CONFIG_HOME": folder.path("config").path])
        #expect(screen.waitFor("A new session has started."), "\(screen.text)")
        let deadline = Date().addingTimeInterval(180 * ProcessRunner.timeScale)
        while FileManager.default.fileExists(atPath: first.path), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
        }
        #expect(!FileManager.default.fileExists(atPath: first.path), "deleted once everything was sent")
        #expect(try serverHasTheClip(), "the departed participant's clip is on the server")
        #expect(!screen.text.contains(label) && !screen.text.contains(email), "nothing of theirs on the screen")
        let everywhere = FileManager.default.enumerator(atPath: device.path)?.allObjects.compactMap { $0 as? String }
        #expect(
            (everywhere ?? []).allSatisfy { name in
                (try? Data(contentsOf: device.appendingPathComponent(name)))?.range(of: Data(label.utf8)) == nil
            }, "no file on the device names their thing")
    }
}

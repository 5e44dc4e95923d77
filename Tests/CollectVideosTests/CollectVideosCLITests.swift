import Foundation
import HostTesting
import Testing

/// `assist run collect-videos …` through the real binary and plugin against the loopback ORBIT server.
@Suite("assist run collect-videos", .serialized)
struct CollectVideosCLITests {
    let folder: TemporaryDirectory
    let server: FakeOrbitServer

    init() throws {
        folder = try TemporaryDirectory("assist-orbit")
        server = try FakeOrbitServer()
        try configure(credential: FakeOrbitServer.appCredential)
    }

    func configure(credential: String?, url: String? = nil) throws {
        var text = "[collect-videos]\nserver-url = \"\(url ?? server.baseURL)\"\ncontact = \"orbit@example.org\"\n"
        if let credential { text += "app-credential = \"\(credential)\"\n" }
        text += "[outbox]\nretry-base-seconds = 0.1\n"
        try text.write(to: folder.path("config.toml"), atomically: true, encoding: .utf8)
    }

    func run(_ arguments: [String]) throws -> ProcessResult {
        try InProcessApp.run(
            ["run", "collect-videos"] + arguments + [
                "--no-speech", "--data-dir", folder.path("data").path, "--config", folder.path("config.toml").path,
            ], timeoutSeconds: 60)
    }

    /// Everything a run printed, on either stream.
    func all(_ result: ProcessResult) -> String { result.standardOutput + result.standardError }

    var dataFiles: [URL] {
        let walker = FileManager.default.enumerator(at: folder.path("data"), includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { !$0.hasDirectoryPath }
    }

    func consent() throws {
        let result = try run(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
        #expect(result.status == 0, "\(result.lines) \(result.standardError)")
        #expect(result.lines.last == "Consent received. You are now taking part in the ORBIT study.", "\(result.lines)")
    }

    @Test func consentKeepsOnlyTheCredentialAndNeverTheNameOrEmail() throws {
        let refused = try run(["consent", "--name", "Ad", "--email", "ada at example", "--agree-all"])
        #expect(refused.status != 0)
        #expect(all(refused).contains("Name is too short. Email address is not valid."), "\(refused.standardError)")
        #expect(server.calls.isEmpty, "nothing is sent while a field is wrong")
        try consent()
        let printed = try run(["status"])
        #expect(printed.lines.last?.hasPrefix("You are taking part. 0 of 5 things.") == true, "\(printed.lines)")
        let credential = folder.path("data/plugins/assist.collect-videos/credential")
        let mode = try FileManager.default.attributesOfItem(atPath: credential.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try String(contentsOf: credential, encoding: .utf8).hasPrefix("Basic "))
        #expect(server.participantEmails == ["ada@example.org"])
        // Not in any file under the data folder: the outbox's database, the journal, logs, the plugin's own.
        for file in dataFiles {
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data("ada@example.org".utf8)) == nil, "the email is in \(file.lastPathComponent)")
            #expect(bytes.range(of: Data("Lovelace".utf8)) == nil, "the name is in \(file.lastPathComponent)")
        }
        let again = try run(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
        #expect(all(again).contains("already taking part"))
    }

    @Test func thingsAreCreatedRenamedAndDeletedOnTheServer() throws {
        try consent()
        #expect(try run(["thing", "add", "Mug"]).lines.last == "Mug added. 1 of 5 things.")
        let tooLong = try run(["thing", "add", String(repeating: "x", count: 51)])
        #expect(tooLong.status != 0 && all(tooLong).contains("use at most 50 characters, it has 51"))
        #expect(all(try run(["thing", "add", "ab"])).contains("too short"))
        let synced = try run(["sync", "--wait", "20"])
        #expect(synced.lines.last == "Everything is sent.", "\(synced.lines) \(synced.standardError)")
        #expect(server.things.values.sorted() == ["Mug"])
        _ = try run(["thing", "rename", "Mug", "Blue mug"])
        #expect(try run(["sync", "--wait", "20"]).lines.last == "Everything is sent.")
        #expect(server.things.values.sorted() == ["Blue mug"])
        #expect(server.calls.contains { $0.hasPrefix("PATCH /phasetwo/api/thing/") })
        let status = try run(["status", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect((object["things"] as? [[String: Any]])?.first?["server_id"] as? Int == 1)
        #expect(object["study_end"] as? String == FakeOrbitServer.day(30))
        let unconfirmed = try run(["thing", "delete", "Blue", "mug"])
        #expect(all(unconfirmed).contains("Add --yes to delete it."))
        _ = try run(["thing", "delete", "Blue", "mug", "--yes"])
        #expect(try run(["sync", "--wait", "20"]).lines.last == "Everything is sent.")
        #expect(server.things.isEmpty)
    }

    /// Issue 38: a rename to a name another thing has (in any case) is refused, so a delete can never take the
    /// other thing and its videos; a thing may change the case of its own name.
    @Test func aNameAnotherThingHasIsRefusedAndDeleteTakesTheThingNamed() throws {
        // Issue 38: before consent nothing may be named or filmed, from the command line either.
        for verb in [["thing", "add", "Blue mug"], ["record", "Blue mug", "--kind", "testing"]] {
            let early = try run(verb)
            #expect(early.status != 0, "\(verb)")
            #expect(all(early).contains("You have not given consent on this device yet"), "\(verb): \(all(early))")
        }
        try consent()
        _ = try run(["thing", "add", "Blue mug"])
        _ = try run(["thing", "add", "Red mug"])
        let clash = try run(["thing", "rename", "Red mug", "blue MUG"])
        #expect(clash.status != 0)
        #expect(all(clash).contains("You already have a thing called Blue mug; choose another name."), "\(all(clash))")
        let exact = try run(["thing", "rename", "Red mug", "Blue mug"])
        #expect(exact.status != 0 && all(exact).contains("You already have a thing called Blue mug"))
        let added = try run(["thing", "add", "RED MUG"])
        #expect(added.status != 0 && all(added).contains("You already have a thing called Red mug"))
        let own = try run(["thing", "rename", "Red mug", "Red Mug"])
        #expect(own.status == 0, "\(all(own))")
        _ = try run(["thing", "delete", "Blue mug", "--yes"])
        let status = try run(["status", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        let labels = (object["things"] as? [[String: Any]])?.compactMap { $0["label"] as? String }
        #expect(labels == ["Red Mug"], "\(status.standardOutput)")
        // How long to film, and which video: a number in range, or one sentence saying what is.
        for seconds in ["0", "-1", "0.5", "abc", "21", "nan"] {
            let bad = try run(["record", "Red Mug", "--kind", "testing", "--seconds", seconds])
            #expect(bad.status != 0, "\(seconds)")
            #expect(
                all(bad).contains("--seconds takes how long to film, from 1 to 20 seconds for a testing video."),
                "\(seconds): \(all(bad))")
        }
        let slot = try run(["record", "Red Mug", "--kind", "training", "--slot", "6"])
        #expect(all(slot).contains("--slot takes a training video's number, from 1 to 5."), "\(all(slot))")
    }

    /// Issue 73: names heard the same are one name (two spaces, full-width letters, a no-break or zero-width space,
    /// case), filler words alone are no name, and the study's five things hold from the command line too.
    @Test func namesHeardTheSameAreOneAndTheStudyKeepsFiveThings() throws {
        try consent()
        #expect(try run(["thing", "add", "Red cup"]).status == 0)
        for alike in ["Red  cup", "Ｒｅｄ cup", "red\u{00a0}cup", "RED\u{200b} CUP"] {
            let refused = try run(["thing", "add", alike])
            #expect(refused.status != 0, "\(alike)")
            #expect(all(refused).contains("You already have a thing called Red cup."), "\(alike): \(all(refused))")
        }
        for filler in ["the", "my thing"] {
            let refused = try run(["thing", "add", filler])
            #expect(refused.status != 0 && all(refused).contains("does not tell your things apart"), "\(all(refused))")
        }
        for label in ["Blue  mug", "Green jug", "Tea pot", "Old shoe"] {
            #expect(try run(["thing", "add", label]).status == 0, "\(label)")
        }
        let sixth = try run(["thing", "add", "Sixth box"])
        #expect(sixth.status != 0)
        #expect(all(sixth).contains("You have 5 things, as many as the study asks for."), "\(all(sixth))")
        let clash = try run(["thing", "rename", "Blue mug", "red\u{00a0}CUP"])
        #expect(
            clash.status != 0 && all(clash).contains("You already have a thing called Red cup; choose another name."))
        _ = try run(["thing", "delete", "RED  CUP", "--yes"])
        let status = try run(["status", "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        let labels = (object["things"] as? [[String: Any]])?.compactMap { $0["label"] as? String }
        #expect(labels?.sorted() == ["Blue mug", "Green jug", "Old shoe", "Tea pot"], "\(status.standardOutput)")
    }

    /// Issue 35: collect-videos speaks the session's language, its menus too; the study's own texts are the
    /// study's, in English, and that is said.
    @Test func itSpeaksRussianAndChinese() throws {
        func run(_ language: String, _ arguments: [String], input: String? = nil) throws -> ProcessResult {
            try InProcessApp.run(
                [
                    "run", "--lang", language, "--no-speech", "--data-dir", folder.path("data").path, "--config",
                    folder.path("config.toml").path, "collect-videos",
                ] + arguments, input: input, timeoutSeconds: 60)
        }
        let status = try run("ru", ["status"])
        #expect(
            status.lines.last == "Вы ещё не дали согласие на этом устройстве. Предметов: 0 из 5.", "\(all(status))")
        let early = try run("zh", ["thing", "add", "Mug"])
        #expect(early.status != 0 && all(early).contains("你还没有在这台设备上表示同意"), "\(all(early))")
        let menu = try run("ru", [], input: "4\n")
        #expect(
            menu.lines.contains("Тексты исследования — на английском, как их написало исследование."), "\(menu.lines)")
        #expect(menu.lines.contains("Участие в исследовании ORBIT."), "\(menu.lines)")
        #expect(menu.lines.contains("2. C: дать согласие"), "\(menu.lines)")
        try consent()
        let short = try run("zh", ["thing", "add", "ab"])
        #expect(all(short).contains("名称ab太短：至少要 3 个字符。"), "\(all(short))")
        let added = try run("ru", ["thing", "add", "Чашка"])
        #expect(added.lines.last == "«Чашка» добавлен. Предметов: 1 из 5.", "\(all(added))")
        let things = try run("zh", [], input: "5\n")
        #expect(things.lines.contains("你的物品：1/5。"), "\(things.lines)")
        #expect(things.lines.contains("1. Чашка，视频：0/7"), "\(things.lines)")
        #expect(things.lines.contains("还需添加4个物品。"), "\(things.lines)")
    }

    @Test func badSetupsAndBadServersGetOneSentence() throws {
        // Issue 38: an address that is none is named as such, not "Update Assist".
        for url in ["not a url", "ftp://orbit.example.org"] {
            try configure(credential: "Basic d3Jvbmc6d3Jvbmc=", url: url)
            let address = try run(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
            #expect(address.status != 0)
            #expect(
                all(address).contains("collect-videos.server-url is \"\(url)\", which is not a web address"),
                "\(all(address))")
            #expect(!all(address).contains("Update Assist"))
        }
        try configure(credential: nil)
        let unconfigured = try run(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
        #expect(all(unconfigured).contains("collect-videos.app-credential is missing. Ask the study team"))
        try configure(credential: "Basic d3Jvbmc6d3Jvbmc=")
        let wrong = try run(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
        #expect(
            wrong.lines.last == "Server did not accept this device's setup. Contact: orbit@example.org.",
            "\(wrong.lines)")
        try configure(credential: FakeOrbitServer.appCredential)
        server.failRoute(
            "POST /phasetwo/api/createparticipant/",
            [.answer(status: 200, body: Data("<html>maintenance</html>".utf8))])
        let html = try run(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
        #expect(
            html.lines.last == "Unexpected reply from the server (200). Contact: orbit@example.org.", "\(html.lines)")
        try configure(credential: FakeOrbitServer.appCredential, url: "http://127.0.0.1:9/phasetwo/")
        let unreachable = try run(["consent", "--name", "Ada Lovelace", "--email", "ada@example.org", "--agree-all"])
        #expect(
            unreachable.lines.last == "Could not reach the server. Contact: orbit@example.org.", "\(unreachable.lines)")
        #expect(
            !FileManager.default.fileExists(atPath: folder.path("data/plugins/assist.collect-videos/credential").path))
    }
}

import AssistCore
import Foundation
import HostTesting
import PluginHost
import Testing

/// Values set at run time survive a restart; credentials go to a private file of their own.
@Suite("Saved settings and secrets")
struct SettingsFilesTests {
    let folder: TemporaryDirectory
    let files: SettingsFiles

    init() throws {
        folder = try TemporaryDirectory("assist-settings")
        files = SettingsFiles(
            settings: folder.path("assist/settings.toml"), secrets: folder.path("assist/secrets.toml"))
    }

    @Test func valuesSetNowAreThereAfterARestart() throws {
        let first = SettingsStore()
        #expect(first.keep(in: files).isEmpty)
        try first.set("read-text.area", .string("full \"page\""))
        try first.set("speech.rate", .int(260))
        try first.set("cues.enabled", .bool(false))
        try first.set("find-object.names", .list(["cup", "mug"]))
        let second = SettingsStore()
        #expect(second.keep(in: files).isEmpty)
        #expect(second.value("read-text.area") == .string("full \"page\""))
        #expect(second.value("speech.rate") == .int(260))
        #expect(second.value("cues.enabled") == .bool(false))
        #expect(second.value("find-object.names") == .list(["cup", "mug"]))
        let mode = try FileManager.default.attributesOfItem(atPath: files.settings.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func credentialsGoToTheSecretsFileOnly() throws {
        let store = SettingsStore()
        _ = store.keep(in: files)
        try store.set("collect-videos.server-url", .string("https://orbit.example/api"))
        try store.set("collect-videos.password", .string("hunter2"))
        try store.set("survey.api-token", .string("t0k3n"))
        let settings = try String(contentsOf: files.settings, encoding: .utf8)
        let secrets = try String(contentsOf: files.secrets, encoding: .utf8)
        #expect(settings.contains("orbit.example") && !settings.contains("hunter2") && !settings.contains("t0k3n"))
        #expect(secrets.contains("hunter2") && secrets.contains("t0k3n") && !secrets.contains("orbit.example"))
        let mode = try FileManager.default.attributesOfItem(atPath: files.secrets.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Someone loosened the file's mode: it is private again when read.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: files.secrets.path)
        let reloaded = SettingsStore()
        _ = reloaded.keep(in: files)
        #expect(reloaded.value("collect-videos.password") == .string("hunter2"))
        #expect(
            try FileManager.default.attributesOfItem(atPath: files.secrets.path)[.posixPermissions] as? Int == 0o600)
    }

    @Test func lockedKeysStayAsTheAdministratorSetThem() throws {
        let store = SettingsStore()
        store.apply(["admin.locked": .list(["read-text.save"]), "read-text.save": .string("off")], admin: true)
        _ = store.keep(in: files)
        #expect(throws: SettingsError.locked("read-text.save")) { try store.set("read-text.save", .string("on")) }
        // A saved value from before the lock does not override it either.
        try SettingsFiles.write(["read-text.save": .string("on")], to: files.settings)
        let later = SettingsStore()
        later.apply(["admin.locked": .list(["read-text.save"]), "read-text.save": .string("off")], admin: true)
        _ = later.keep(in: files)
        #expect(later.value("read-text.save") == .string("off"))
    }

    @Test func aDamagedSavedFileIsReportedNotFatal() throws {
        try FileManager.default.createDirectory(
            at: files.settings.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("speech.rate = fast\n".utf8).write(to: files.settings)
        let store = SettingsStore()
        let problems = store.keep(in: files)
        #expect(problems.count == 1 && problems[0].contains("line 1"))
    }
}

import AssistCore
import PluginHost
import Testing

@Suite("Settings and config files")
struct SettingsTests {
    @Test func parsesTheSubsetWeUse() throws {
        let entries = try ConfigFile.parse(
            """
            language = "ru"   # the user's language
            [find-object]
            auto-pause = 120
            feedback = 'both'
            [speech]
            rate-normal = 175
            volume = 0.8
            enabled = true
            [admin]
            locked = ["find-object.auto-pause", "read-text.save"]
            """)
        #expect(entries["language"] == .string("ru"))
        #expect(entries["find-object.auto-pause"] == .int(120))
        #expect(entries["find-object.feedback"] == .string("both"))
        #expect(entries["speech.volume"] == .double(0.8))
        #expect(entries["speech.enabled"] == .bool(true))
        #expect(entries["admin.locked"] == .list(["find-object.auto-pause", "read-text.save"]))
    }

    @Test func badLinesNameTheirNumber() {
        #expect(throws: ConfigFile.ParseError.self) { try ConfigFile.parse("a = 1\nb = unquoted text\n") }
        do {
            _ = try ConfigFile.parse("a = 1\n[[x]]\n")
        } catch {
            #expect(error.line == 2)
        }
    }

    @Test func adminLocksWin() throws {
        let store = SettingsStore()
        store.apply(
            try ConfigFile.parse("[admin]\nlocked = [\"read-text.save\"]\n[read-text]\nsave = \"off\""), admin: true)
        store.apply(try ConfigFile.parse("[read-text]\nsave = \"on\"\norder = \"rows\""), admin: false)
        #expect(store.value("read-text.save") == .string("off"))
        #expect(store.value("read-text.order") == .string("rows"))
        #expect(throws: SettingsError.locked("read-text.save")) { try store.set("read-text.save", .string("on")) }
        #expect(SettingsStore.qualify("auto-pause", namespaces: ["find-object"]) == "find-object.auto-pause")
        #expect(SettingsStore.qualify("speech.rate", namespaces: ["find-object"]) == "speech.rate")
    }

    @Test func versionsCompare() {
        #expect(SemanticVersion("1.2") == SemanticVersion(1, 2, 0))
        #expect(SemanticVersion("1.10.0")! > SemanticVersion("1.9.9")!)
        #expect(SemanticVersion("1.x") == nil)
        #expect(SemanticVersion("") == nil)
    }
}

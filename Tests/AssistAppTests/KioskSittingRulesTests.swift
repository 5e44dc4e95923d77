import AssistApp
import AssistCore
import Foundation
import HostTesting
import Kiosk
import Testing

/// A per-person kiosk's rules without a terminal: the sittings' folders, the idle watch and the set-up's
/// sentences for values that cannot be used.
@Suite("Per-person kiosk rules")
struct KioskSittingRulesTests {
    func mode(_ url: URL) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
    }

    @Test func aSittingGoesOnUntilItEndsAndOnlyDepartedOnesAreDeleted() throws {
        let folder = try TemporaryDirectory("assist-sittings")
        let sittings = Sittings(device: folder.url)
        #expect(sittings.current == nil && sittings.all.isEmpty)
        let first = try sittings.begin()
        #expect(first.name == "0001" && first.isNew)
        #expect(try mode(sittings.folder) == 0o700 && mode(first.root) == 0o700)
        #expect(try mode(sittings.folder.appendingPathComponent("current")) == 0o600)
        // A restart (a crash, the admin's) goes on with the same person.
        let again = try sittings.begin()
        #expect(again.name == "0001" && !again.isNew)
        try sittings.end()
        #expect(sittings.current == nil && sittings.departed == ["0001"])
        #expect(FileManager.default.fileExists(atPath: first.root.appendingPathComponent("ended").path))
        let second = try sittings.begin()
        #expect(second.name == "0002" && second.isNew)
        #expect(sittings.departed == ["0001"])
        // The sitting going on is never deleted; names that are not sittings are never touched.
        try sittings.remove("0002")
        try sittings.remove("../..")
        #expect(FileManager.default.fileExists(atPath: second.root.path))
        try FileManager.default.createDirectory(
            at: sittings.folder.appendingPathComponent("notes"), withIntermediateDirectories: true)
        #expect(sittings.all == ["0001", "0002"])
        try sittings.remove("0001")
        #expect(sittings.all == ["0002"] && sittings.departed.isEmpty)
        // A sitting marked ended in its own folder is not taken up again, even where `current` still names it
        // (it could not be removed).
        try PrivateFile.write(Data("0002\n".utf8), to: sittings.folder.appendingPathComponent("current"))
        try Data().write(to: second.root.appendingPathComponent("ended"))
        #expect(sittings.current == nil && sittings.departed == ["0002"])
        try FileManager.default.removeItem(at: second.root.appendingPathComponent("ended"))
        #expect(sittings.current == "0002")
        // `current` naming a folder that is gone (deleted by hand) starts a new sitting after the highest.
        try FileManager.default.removeItem(at: second.root)
        let third = try sittings.begin()
        #expect(third.name == "0001" && third.isNew, "numbers count from what is there")
    }

    @Test func anIdleSittingIsWarnedAMinuteBeforeItEndsAndAnUnusedOneNeverEnds() {
        var unused = IdleWatch(seconds: 300, used: false, now: 0)
        #expect(unused.step(at: 10_000) == .none)
        var watch = IdleWatch(seconds: 300, used: false, now: 0)
        watch.touched(at: 100)
        #expect(watch.step(at: 339) == .none)
        #expect(watch.step(at: 340) == .warn)
        #expect(watch.step(at: 350) == .none, "warned once")
        watch.touched(at: 380)
        #expect(watch.step(at: 620) == .warn, "a key starts the count again, and the warning with it")
        #expect(watch.step(at: 680) == .end)
        // Under two minutes there is no room for a minute's warning.
        var short = IdleWatch(seconds: 60, used: true, now: 0)
        #expect(short.step(at: 59) == .none)
        #expect(short.step(at: 60) == .end)
    }

    func config(_ lines: String) throws -> KioskConfig {
        let settings = SettingsStore()
        settings.apply(
            try ConfigFile.parse("[kiosk.features]\n\"assist.clock\" = \"x\"\n[kiosk]\n" + lines), admin: true)
        return KioskConfig(settings: settings)
    }

    @Test func idleMinutesOutOfRangeAndAnUnknownSessionAreEachOneSentence() throws {
        let ok = try config("session = \"per-person\"\nidle-minutes = 15\n")
        #expect(ok.perPerson && ok.idleMinutes == 15 && ok.problems.isEmpty)
        #expect(try config("").perPerson == false && config("").idleMinutes == 10)
        let zero = try config("session = \"per-person\"\nidle-minutes = 0\n")
        #expect(zero.idleMinutes == 1)
        #expect(
            zero.problems.map(\.text) == [
                "kiosk.idle-minutes is 0; a sitting ends after 1 to 240 minutes without input; 1 is used"
            ])
        let huge = try config("idle-minutes = 10000\n")
        #expect(huge.idleMinutes == 240 && huge.problems.count == 1 && !huge.problems[0].blocking)
        let words = try config("idle-minutes = \"soon\"\n")
        #expect(words.idleMinutes == 10 && words.problems.first?.text.hasSuffix("10 is used") == true)
        let unknown = try config("session = \"sometimes\"\n")
        #expect(!unknown.perPerson)
        #expect(
            unknown.problems.map(\.text) == [
                "kiosk.session is \"sometimes\"; write \"per-person\" (each person starts clean) or \"shared\"; the kiosk is shared"
            ])
        // A fraction of a minute is the nearest whole one (1.5 was the default 10); a session given as a list
        // or a number keeps the kiosk from starting (run shared by mistake, the next person would find the last
        // one's data).
        let fraction = try config("session = \"per-person\"\nidle-minutes = 1.5\n")
        #expect(fraction.idleMinutes == 2)
        #expect(
            fraction.problems.map(\.text) == [
                "kiosk.idle-minutes is 1.5; a sitting ends after 1 to 240 whole minutes without input; 2 is used"
            ])
        for value in ["[\"per-person\"]", "1"] {
            let odd = try config("session = \(value)\n")
            #expect(!odd.perPerson && odd.problems.count == 1 && odd.problems[0].blocking, "\(value)")
            #expect(odd.problems.first?.text.hasSuffix("or \"shared\", in quotes, one of them") == true, "\(value)")
        }
        // The admin menu's "off" takes back a feature an admin file allowed.
        #expect(try config("").allowed.keys.sorted() == ["assist.clock"])
        let settings = SettingsStore()
        settings.apply(["kiosk.features.assist.clock": .string("x")], admin: true)
        settings.apply(["kiosk.features.assist.clock": .string(KioskConfig.turnedOff)], admin: true)
        #expect(KioskConfig(settings: settings).allowed.isEmpty)
    }
}

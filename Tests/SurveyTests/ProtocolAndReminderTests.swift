import Foundation
import HostTesting
import Testing

@testable import SurveyCore

@Suite("survey protocol pieces")
struct ProtocolPiecesTests {
    @Test func tokensAreReusedWithMoreThanSixtySecondsLeftElseRefreshedElsePasswordGrant() {
        var account = SurveyStore.Account(definitionID: "d", uploadedInitial: false)
        #expect(Covid19SoundsProtocol.nextStep(account: account, token: nil, now: 0) == .createUser)
        account.username = "u"
        account.password = "p"
        #expect(Covid19SoundsProtocol.nextStep(account: account, token: nil, now: 0) == .passwordGrant)
        var token = SurveyStore.Token(accessToken: "a", refreshToken: "r", expiresAt: 161, forcePasswordGrant: false)
        #expect(Covid19SoundsProtocol.nextStep(account: account, token: token, now: 100) == .upload)
        #expect(Covid19SoundsProtocol.nextStep(account: account, token: token, now: 101) == .refresh)
        token.forcePasswordGrant = true
        #expect(Covid19SoundsProtocol.nextStep(account: account, token: token, now: 0) == .passwordGrant)
    }

    @Test func theTokenExpiryCountsFromItsArrival() {
        let body = Data(#"{"access_token":"a","refresh_token":"r","expires_in":36000}"#.utf8)
        #expect(Covid19SoundsProtocol.token(body, receivedAt: 1_000)?.expiresAt == 37_000)
        #expect(Covid19SoundsProtocol.token(Data("<html>".utf8), receivedAt: 0) == nil)
    }

    @Test func theDeviceIsModelOSAndVersionWithoutInnerCommas() throws {
        let root = try TemporaryDirectory("assist-device")
        try FileManager.default.createDirectory(at: root.path("sys/class/dmi/id"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.path("etc"), withIntermediateDirectories: true)
        try "ThinkPad X1, Gen 9\n".write(
            to: root.path("sys/class/dmi/id/product_name"), atomically: true, encoding: .utf8)
        try "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n".write(
            to: root.path("etc/os-release"), atomically: true, encoding: .utf8)
        #expect(Covid19SoundsProtocol.device(root: root.url.path + "/") == "ThinkPad X1  Gen 9,Debian GNU/Linux,12")
        let empty = try TemporaryDirectory("assist-device-none")
        #expect(Covid19SoundsProtocol.device(root: empty.url.path + "/").hasPrefix("PC,"))
    }

    @Test func usernamesAreTwelveLettersAndDigits() {
        let names = (0..<50).map { _ in Covid19SoundsProtocol.randomUsername() }
        #expect(names.allSatisfy { $0.count == 12 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        #expect(Set(names).count == 50)
    }

    @Test func locationTextIsTwoOrThreeNumbersInRange() {
        #expect(LocationText.parse("52.2, 0.12", defaultAccuracy: 1000) == "52.2,0.12,1000.0")
        #expect(LocationText.parse("52.2,0.12,65", defaultAccuracy: 1000) == "52.2,0.12,65.0")
        #expect(LocationText.parse("north of here", defaultAccuracy: 1000) == nil)
        #expect(LocationText.parse("95,0", defaultAccuracy: 1000) == nil)
        #expect(LocationText.parse("1,2,3,4", defaultAccuracy: 1000) == nil)
    }

    @Test func eligibilityIs47HoursAndAFutureLastCompletedCountsAsEligible() {
        #expect(!Eligibility.isEligible(lastCompleted: 1_000, now: 1_000 + 169_200, after: 169_200))
        #expect(Eligibility.isEligible(lastCompleted: 1_000, now: 1_001 + 169_200, after: 169_200))
        #expect(Eligibility.isEligible(lastCompleted: 5_000, now: 1_000, after: 169_200))
        #expect(!Eligibility.reminderDue(lastCompleted: nil, lastReminded: 0, now: 100, after: 10, spacing: 169_200))
        #expect(Eligibility.reminderDue(lastCompleted: nil, lastReminded: 0, now: 169_200, after: 10, spacing: 169_200))
    }

    @Test func takeLevelsTellSilenceAndClipping() {
        var silent = TakeLevel()
        silent.add(ArraySlice([Int16](repeating: 3, count: 44_100)))
        #expect(silent.isSilent && !silent.isClipped)
        var clipped = TakeLevel()
        let samples: [Int16] = (0..<44_100).map { (index: Int) -> Int16 in
            index % 50 == 0 ? Int16.max : Int16((index % 200) * 50)
        }
        clipped.add(ArraySlice(samples))
        #expect(clipped.isClipped && !clipped.isSilent)
    }
}

@Suite("survey reminders")
struct ReminderTests {
    let units = ReminderUnits(
        definitionID: "covid19-sounds", executable: "/usr/bin/assist", time: "09:00", testMode: false)

    @Test func theUnitsRunRemindDailyAndCatchUpAfterBoot() throws {
        #expect(units.service.contains("ExecStart=/usr/bin/assist survey remind --definition covid19-sounds\n"))
        #expect(units.service.contains("Type=oneshot"))
        #expect(units.timer.contains("OnCalendar=*-*-* 09:00:00\nPersistent=true"))
        #expect(units.timer.contains("WantedBy=timers.target"))
        var test = units
        test.testMode = true
        #expect(test.timer.contains("OnCalendar=*:0/10"))
        #expect(ReminderUnits.validTime("7:5") == "07:05" && ReminderUnits.validTime("25:00") == nil)
        guard let analyze = ProcessRunner.which("systemd-analyze") else { return }
        let folder = try TemporaryDirectory("assist-units")
        try units.service.write(to: folder.path("\(units.name).service"), atomically: true, encoding: .utf8)
        try units.timer.write(to: folder.path("\(units.name).timer"), atomically: true, encoding: .utf8)
        let result = try ProcessRunner.run(
            analyze, ["verify", folder.path("\(units.name).timer").path, folder.path("\(units.name).service").path])
        #expect(
            !result.standardError.contains("Unknown") && !result.standardError.contains("Invalid"),
            "\(result.standardError)")
    }

    @Test func onAndOffAreIdempotentAndCallSystemctl() throws {
        let folder = try TemporaryDirectory("assist-systemd")
        let calls = Collected<String>()
        let installer = ReminderInstaller(folder: folder.url) { arguments in
            _ = calls.append(arguments.joined(separator: " "))
            return true
        }
        #expect(installer.install(units) == .done)
        #expect(installer.install(units) == .done)
        #expect(installer.isInstalled(units))
        #expect(calls.values.contains("enable --now assist-survey-covid19-sounds.timer"))
        #expect(installer.remove(units) == .done)
        #expect(!installer.isInstalled(units))
        let before = calls.values.count
        #expect(installer.remove(units) == .done, "removing twice is fine")
        #expect(calls.values.count == before, "nothing to disable the second time")
        let failing = ReminderInstaller(folder: folder.url) { _ in false }
        #expect(failing.install(units) == .systemdUnavailable)
    }
}

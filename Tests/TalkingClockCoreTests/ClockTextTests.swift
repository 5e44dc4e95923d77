import Foundation
import Testing

@testable import TalkingClockCore

@Suite("Talking clock words")
struct ClockTextTests {
    let moment = Date(timeIntervalSince1970: 1_795_271_100)  // 2026-11-21 14:25 UTC, a Saturday
    let utc = TimeZone(identifier: "UTC") ?? .current

    @Test func englishUsesTwelveHours() {
        let text = ClockText(
            timePattern: "It is {time}.", datePattern: "Today is {date}.", language: "en", twentyFourHour: false)
        #expect(text.time(moment, timeZone: utc).lowercased() == "it is 2:25 pm.")
        #expect(text.date(moment, timeZone: utc).contains("Saturday"))
        #expect(text.date(moment, timeZone: utc).contains("November"))
    }

    @Test func russianAndChineseUseTwentyFourHours() {
        let ru = ClockText(
            timePattern: "Сейчас {time}.", datePattern: "Сегодня {date}.", language: "ru", twentyFourHour: false)
        #expect(ru.time(moment, timeZone: utc) == "Сейчас 14:25.")
        #expect(ru.date(moment, timeZone: utc).contains("суббота"))
        #expect(!ru.date(moment, timeZone: utc).hasSuffix(".."), "\(ru.date(moment, timeZone: utc)) has one full stop")
        let zh = ClockText(timePattern: "现在是{time}。", datePattern: "今天是{date}。", language: "zh", twentyFourHour: false)
        #expect(zh.time(moment, timeZone: utc) == "现在是14:25。")
    }
}

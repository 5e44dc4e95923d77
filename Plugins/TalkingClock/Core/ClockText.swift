import Foundation

/// Words for a moment in time, in the user's language. Pure: the caller passes the date, time zone and
/// phrase table.
public struct ClockText: Sendable {
    /// `{time}` and `{date}` patterns, from `Plugins/TalkingClock/share/phrases.<lang>.json`.
    public var timePattern: String
    public var datePattern: String
    /// "en", "ru" or "zh".
    public var language: String
    /// True for a 24-hour clock.
    public var twentyFourHour: Bool

    /// "It is 8:05 PM." for `date` in `timeZone`.
    public func time(_ date: Date, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        // English speakers hear "8:05 PM"; Russian and Chinese use the 24-hour clock.
        formatter.dateFormat = twentyFourHour || language != "en" ? "HH:mm" : "h:mm a"
        return Self.fill(timePattern, "{time}", formatter.string(from: date))
    }

    /// "Today is Saturday, 21 November 2026." for `date` in `timeZone`.
    public func date(_ date: Date, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.setLocalizedDateFormatFromTemplate("EEEEdMMMMy")
        return Self.fill(datePattern, "{date}", formatter.string(from: date))
    }

    /// `pattern` with `placeholder` replaced by `value`; a value that ends with the full stop the pattern
    /// puts after it ("2026 г." in "Сегодня {date}.") does not stutter one.
    static func fill(_ pattern: String, _ placeholder: String, _ value: String) -> String {
        var value = value
        if value.hasSuffix("."), pattern.contains(placeholder + ".") { value.removeLast() }
        return pattern.replacingOccurrences(of: placeholder, with: value)
    }

    private var locale: Locale {
        switch language {
        case "ru": return Locale(identifier: "ru_RU")
        case "zh": return Locale(identifier: "zh_CN")
        case "es": return Locale(identifier: "es_ES")
        default: return Locale(identifier: "en_GB")
        }
    }
}

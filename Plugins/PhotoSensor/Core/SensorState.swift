import Foundation
import PluginKit

/// How the last sync run ended, as `status` says it: "Last sync 12 minutes ago, 40 photos sent."
public struct LastSync: Equatable, Sendable {
    /// Unix seconds when the run ended.
    public var at: Double
    public var ok: Bool
    /// Photo rows the server took.
    public var sent: Int
    public var error: String?

    public init(at: Double, ok: Bool, sent: Int, error: String?) {
        self.at = at
        self.ok = ok
        self.sent = sent
        self.error = error
    }

    /// As kept in the sensor's settings table: JSON.
    var stored: String {
        var object: [String: Any] = ["at": at, "ok": ok, "sent": sent]
        if let error { object["error"] = error }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The record in `text`, or nil when there is none or it is damaged.
    init?(stored text: String?) {
        guard let text, let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let at = (object["at"] as? NSNumber)?.doubleValue, let ok = object["ok"] as? Bool,
            let sent = (object["sent"] as? NSNumber)?.intValue
        else { return nil }
        self.init(at: at, ok: ok, sent: sent, error: object["error"] as? String)
    }

    /// "Last sync 12 minutes ago, 40 photos sent." or "Last sync 3 hours ago failed: the server answered 500."
    public func sentence(now: Double, phrases: PhraseTable) -> String {
        let when = Self.ago(now - at, phrases: phrases)
        guard ok else {
            return phrases.text(
                "last-sync-failed", ["when": when, "reason": error ?? phrases.text("unknown-reason")])
        }
        return phrases.text("last-sync", count: sent, ["when": when])
    }

    /// "just now", "1 minute ago", "12 minutes ago", "3 hours ago", "2 days ago".
    static func ago(_ seconds: Double, phrases: PhraseTable) -> String {
        let minutes = Int(max(0, seconds) / 60)
        if minutes < 1 { return phrases.text("ago-now") }
        if minutes < 120 { return phrases.text("ago-minutes", count: minutes) }
        if minutes < 48 * 60 { return phrases.text("ago-hours", count: minutes / 60) }
        return phrases.text("ago-days", count: minutes / (24 * 60))
    }
}

/// A pause of the sensor ("pause for one hour"): nothing taken meanwhile is recorded, ever.
public enum SensorPause {
    /// The minutes a pause may last: up to a day.
    public static let minutes = 1...1_440
    /// The pause when none is given.
    public static let defaultMinutes = 60

    /// Unix seconds the pause stored in `text` ends, when it is still on at `now`.
    public static func until(_ text: String?, now: Double) -> Double? {
        guard let text, let until = Double(text), until > now else { return nil }
        return until
    }

    /// "17:45", local time, for saying when a pause ends.
    public static func clock(_ unix: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.dateFormat = "HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: unix))
    }
}

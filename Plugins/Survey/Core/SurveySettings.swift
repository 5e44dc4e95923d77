import Foundation

/// The survey's own settings (`[survey]` in config.toml), each read and checked in one place: a value that cannot
/// be used is a problem naming the key, what it holds and what it takes, and the default stands in for it (an
/// admin's `sample-rate = 8000` recorded at 44,100 Hz without a word).
public struct SurveySettings: Sendable, Equatable {
    /// One value that cannot be used: the key, what it holds, and the phrase key that says what it takes.
    public struct Problem: Sendable, Equatable {
        public var key: String
        public var value: String
        /// `setting-takes-<what>` in the survey's phrase files.
        public var takes: String

        public init(key: String, value: String, takes: String) {
            self.key = key
            self.value = value
            self.takes = takes
        }
    }

    public var sampleRate = 44_100
    public var reminderTime = "09:00"
    /// The admin's override of the definition's wait between surveys (nil: none).
    public var eligibleAfterSeconds: Double?
    public var retrySeconds: [Double] = [30, 120]
    public var manualLocationAccuracy: Double = 1_000
    /// A `lat,lon[,accuracy]` sent instead of asking, as it is sent.
    public var fixedLocation: String?
    public private(set) var problems: [Problem] = []

    /// The rates a take may be recorded at.
    public static let sampleRates = [44_100, 16_000]

    /// Reads every key through `setting` (nil: not set).
    public init(_ setting: (String) -> String?) {
        func read<Value>(_ key: String, takes: String, _ parse: (String) -> Value?) -> Value? {
            guard let text = setting(key) else { return nil }
            if let value = parse(text.trimmingCharacters(in: .whitespaces)) { return value }
            problems.append(Problem(key: key, value: text, takes: takes))
            return nil
        }
        sampleRate =
            read("sample-rate", takes: "sample-rate") { text in
                Double(text).flatMap { Self.sampleRates.contains(Int(exactly: $0) ?? 0) ? Int($0) : nil }
            }
            ?? sampleRate
        reminderTime = read("reminder-time", takes: "time", ReminderUnits.validTime) ?? reminderTime
        eligibleAfterSeconds = read("eligible-after-seconds", takes: "seconds") { text in
            Double(text).flatMap { (0...31_536_000).contains($0) ? $0 : nil }
        }
        retrySeconds =
            read("retry-seconds", takes: "retry") { text in
                let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
                    Double($0.trimmingCharacters(in: .whitespaces))
                }
                let numbers = parts.compactMap { $0 }.filter { $0 > 0 && $0 <= 86_400 }
                return parts.count == 2 && numbers.count == 2 ? numbers : nil
            } ?? retrySeconds
        manualLocationAccuracy =
            read("manual-location-accuracy-m", takes: "accuracy") { text in
                Double(text).flatMap { (1...100_000).contains($0) ? $0 : nil }
            } ?? manualLocationAccuracy
        let accuracy = manualLocationAccuracy
        fixedLocation = read("fixed-location", takes: "location") { LocationText.parse($0, defaultAccuracy: accuracy) }
        _ = read("test-mode", takes: "flag") { ["true", "false"].contains($0) ? true : nil }
    }
}

import Foundation
import PluginAPI
import PluginKit

/// The talking clock: says the time when started (and the date with `--date`), then finishes. While it
/// runs, "d" or "date" says the date; the host's repeat says the last sentence again.
public final class TalkingClock: PluginFeature {
    private let host: PluginHostHandle
    private let text: ClockText
    private let phrases: [String: String]
    private let now: () -> Date

    /// Creates the feature for `host`; `now` is replaceable for tests.
    public init(host: PluginHostHandle, now: @escaping () -> Date = Date.init) {
        self.host = host
        self.now = now
        let phrases = ClockPhrases.load(directory: host.shareDirectory, language: host.language)
        self.phrases = phrases
        self.text = ClockText(
            timePattern: phrases["time"] ?? "It is {time}.", datePattern: phrases["date"] ?? "Today is {date}.",
            language: host.language, twentyFourHour: false
        )
    }

    public func start(arguments: [String]) throws(PluginError) {
        if arguments == ["--help"] || arguments == ["-h"] {
            host.print(phrases["usage"] ?? "assist run clock [--date] [--stay]")
            host.finish()
            return
        }
        let unknown = arguments.filter { $0 != "--date" && $0 != "--stay" }
        guard unknown.isEmpty else {
            let pattern = phrases["unknown-option"] ?? "Unknown option {option}. The clock takes --date and --stay."
            throw PluginError(pattern.replacingOccurrences(of: "{option}", with: unknown[0]))
        }
        try? host.registerCommand(id: "date", label: "Say the date", key: "d", phrase: "date")
        host.say(text.time(now(), timeZone: .current))
        if arguments.contains("--date") { host.say(text.date(now(), timeZone: .current)) }
        if !arguments.contains("--stay") { host.finish() }
    }

    public func handle(command: String, argument: String?) {
        switch command {
        case "date", ASSIST_CMD_NEXT: host.say(text.date(now(), timeZone: .current))
        case ASSIST_CMD_HELP: break  // the host has already listed the commands
        default: host.say(text.time(now(), timeZone: .current))
        }
    }
}

/// Reads the clock's phrase table, English as the fallback.
enum ClockPhrases {
    static func load(directory: String?, language: String) -> [String: String] {
        guard let directory else { return [:] }
        func table(_ lang: String) -> [String: String] {
            let url = URL(fileURLWithPath: directory).appendingPathComponent("phrases.\(lang).json")
            guard let data = try? Data(contentsOf: url) else { return [:] }
            return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
        }
        return table("en").merging(table(language)) { _, localised in localised }
    }
}

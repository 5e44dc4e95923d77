import Foundation

/// The host's own settings, with the kind of value each takes, so a config file that gives `speech.rate =
/// "fast"` hears which file, line and key are wrong and what was expected, instead of the value being ignored.
/// Plugins' keys are theirs to check.
package enum SettingsSchema {
    /// What a setting takes.
    package enum Kind: Equatable, Sendable {
        case wholeNumber(ClosedRange<Int64>)
        case number(ClosedRange<Double>)
        case flag
        case text
        case oneOf([String])
        case list

        /// "a whole number from 80 to 450", for messages.
        var expected: String {
            switch self {
            case .wholeNumber(let range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
            case .number(let range):
                return "a number from \(Self.plain(range.lowerBound)) to \(Self.plain(range.upperBound))"
            case .flag: return "true or false"
            case .text: return "text in quotes"
            case .oneOf(let choices): return "one of " + choices.map { "\"\($0)\"" }.joined(separator: ", ")
            case .list: return "a list of texts, like [\"a\", \"b\"]"
            }
        }

        private static func plain(_ number: Double) -> String {
            number == number.rounded() ? String(Int64(number)) : String(number)
        }

        /// nil when `value` is usable as it is; else what the host does instead. Reads values as the host's
        /// readers do (`SettingValue.integer`, `.number`, `.flag`), which clamp numbers to their range.
        func problem(with value: SettingValue) -> String? {
            switch self {
            case .wholeNumber(let range):
                guard let number = value.integer else { return "the default is used" }
                return range.contains(number) ? nil : "the nearest allowed value is used"
            case .number(let range):
                guard let number = value.number else { return "the default is used" }
                return range.contains(number) ? nil : "the nearest allowed value is used"
            case .flag: return value.flag == nil ? "the default is used" : nil
            case .text:
                if case .string = value { return nil }
                return "the default is used"
            case .oneOf(let choices):
                if case .string(let text) = value, choices.contains(text) { return nil }
                // A feature's choices of numbers ("0", "60") written as TOML numbers read as the same text.
                if case .int(let number) = value, choices.contains(String(number)) { return nil }
                return "the default is used"
            case .list:
                if case .list = value { return nil }
                return "it is ignored"
            }
        }
    }

    /// What the low-vision view's settings take (docs/view.md): the config file's checker, the page and Settings
    /// by ear (`ViewSettings`) all read these.
    package enum View {
        /// The colour schemes, each at least 7:1.
        package static let schemes = [
            "system", "black-on-white", "white-on-black", "yellow-on-black", "black-on-yellow",
        ]
        package static let fonts = ["dejavu-sans", "noto-sans", "system"]
        package static let textSizes: ClosedRange<Int64> = 24...160
        package static let lineSpacings: ClosedRange<Double> = 1...2.5
        /// How the camera's preview is coloured: as it is, inverted, or its brightness in yellow on black.
        package static let previewColours = ["normal", "inverted", "yellow-on-black"]
        package static let zooms: ClosedRange<Double> = 1...8
    }

    /// The host's keys (the README's "Sound settings", the camera and the outbox).
    package static let host: [String: Kind] = [
        "speech.backend": .oneOf(["espeak-ng", "speech-dispatcher"]),
        "speech.rate": .wholeNumber(80...450),
        "speech.volume": .number(0...1),
        "speech.voice": .oneOf(["standard", "female", "classic"]),
        "cues.volume": .number(0...1),
        "cues.enabled": .flag,
        "cues.low-pitch": .flag,
        "camera.source": .text,
        "camera.hfov-degrees": .number(10...180),
        "language": .oneOf(["en", "ru", "zh", "es"]),
        "shell.digit-wait-seconds": .number(0.5...10),
        "outbox.retry-base-seconds": .number(0.001...86_400),
        "outbox.stall-seconds": .wholeNumber(1...86_400),
        "outbox.connect-seconds": .number(0.1...600),
        "storage.quota-mb": .wholeNumber(1...100_000_000),
        "storage.statement-seconds": .number(0.1...600),
        "storage.memory-mb": .wholeNumber(16...65_536),
        "voice.mode": .oneOf(["push-to-talk", "wake-word", "always", "off"]),
        "voice.headphones": .flag,
        "voice.echo-cancel": .oneOf(["on", "off", "headphones"]),
        "voice.key": .text,
        "voice.key-device": .text,
        "voice.wake-phrase": .text,
        "admin.locked": .list,
        // Where plugins run (docs/plugin-isolation.md): ids forced into a helper process ("*" for all), ids
        // forced into the host's process, and how long the host waits for a helper that says nothing.
        "plugins.isolated": .list,
        "plugins.in-process": .list,
        "plugins.helper-timeout-ms": .wholeNumber(100...600_000),
        // The helper's sandbox (docs/security.md): on unless turned off; required (a plugin the kernel cannot
        // shut in fully is refused); its address space and open files.
        "plugins.sandbox": .flag,
        "plugins.require-sandbox": .flag,
        // Install only packages signed by a publisher in trusted-keys.d (docs/security.md).
        "plugins.require-signature": .flag,
        // Ask at a terminal, the first time one of Assist's own features starts, for each device and the
        // network it declares (docs/security.md); off: what it declares is given.
        "plugins.ask-first-use": .flag,
        "plugins.helper-memory-mb": .wholeNumber(64...1_048_576),
        "plugins.helper-open-files": .wholeNumber(32...65_536),
        // The kiosk's (docs/kiosk.md); `kiosk.features.ID` entries are read by `KioskConfig`.
        "kiosk.start": .text,
        "kiosk.menu": .flag,
        "kiosk.voice": .flag,
        "kiosk.quiet-hours": .text,
        "kiosk.pin-file": .text,
        "kiosk.admin-key": .text,
        "kiosk.admin-presses": .wholeNumber(3...10),
        "kiosk.admin-seconds": .number(1...10),
        "kiosk.view": .flag,
        // The low-vision view (docs/view.md); the page's own are offered by ear too (ViewSettings).
        "view.port": .wholeNumber(0...65_535),
        "view.browser": .text,
        "view.text-size": .wholeNumber(View.textSizes),
        "view.scheme": .oneOf(View.schemes),
        "view.font": .oneOf(View.fonts),
        "view.line-spacing": .number(View.lineSpacings),
        "view.highlight": .flag,
        "view.preview-colours": .oneOf(View.previewColours),
        "view.preview-contrast": .flag,
        "view.preview-zoom": .number(View.zooms),
    ]

    /// One line per entry whose value the host cannot use: the file, the line, the key, what it is and what
    /// was expected, and that the default stays.
    package static func problems(in entries: [ConfigFile.Entry], file: String) -> [String] {
        var firstLine: [String: Int] = [:]
        return entries.compactMap { entry in
            if let first = firstLine[entry.key] {
                return "\(file) line \(entry.line): \(entry.key) is set again (first on line \(first)); "
                    + "this later value is used"
            }
            firstLine[entry.key] = entry.line
            guard let kind = host[entry.key] else {
                return unknown(entry.key).map { "\(file) line \(entry.line): \($0)" }
            }
            guard let instead = kind.problem(with: entry.value) else { return nil }
            return "\(file) line \(entry.line): \(entry.key) is \(describe(entry.value)), but it takes "
                + "\(kind.expected); \(instead)"
        }
    }

    /// One line per entry of a feature's declared setting (its manifest's `user_settings`, as `declared`) whose
    /// value the feature cannot use, said as the host's own are: `read-text.streaming = "maybe"` names the
    /// file, the line and what the setting takes. Keys a feature reads without declaring them stay its own.
    package static func problems(
        in entries: [ConfigFile.Entry], file: String, declared: [String: Kind]
    ) -> [String] {
        entries.compactMap { entry in
            guard host[entry.key] == nil, let kind = declared[entry.key],
                let instead = kind.problem(with: entry.value)
            else { return nil }
            return "\(file) line \(entry.line): \(entry.key) is \(describe(entry.value)), but it takes "
                + "\(kind.expected); \(instead)"
        }
    }

    /// The tables the host's own keys live in; a key there that the host does not know is a slip.
    static let hostTables: Set<String> = [
        "speech", "cues", "camera", "voice", "outbox", "storage", "plugins", "admin", "kiosk",
    ]

    /// Kiosk keys whose values `KioskConfig` reads and checks itself, so `assist kiosk check` and the journal
    /// say one sentence for a wrong value, with what is used instead.
    static let kioskChecked: Set<String> = ["kiosk.session", "kiosk.idle-minutes"]

    /// Why `key` (not one of the host's) is worth a line: in a host table, or a letter or two from a host key
    /// ("speach.rate"); nil for a feature's own key, which is the feature's to read.
    static func unknown(_ key: String) -> String? {
        if key.hasPrefix("kiosk.features.") || kioskChecked.contains(key) { return nil }
        let table = key.split(separator: ".").first.map(String.init) ?? key
        // A key far longer than any of the host's is no slip of one (and is not compared letter by letter).
        let nearest =
            key.count > 64
            ? nil : host.keys.map { ($0, EditDistance.between($0, key)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
        guard hostTables.contains(table) || nearest != nil else { return nil }
        let guess = nearest.map { " (did you mean \($0)?)" } ?? ""
        return "\(PlainText.value(key, limit: 80)) is not a setting Assist knows\(guess); it is ignored"
    }

    private static func describe(_ value: SettingValue) -> String {
        switch value {
        case .string(let text): return "the text \"\(PlainText.value(text, limit: 40))\""
        case .int(let number): return "\(number)"
        case .double(let number): return "\(number)"
        case .bool(let flag): return flag ? "true" : "false"
        case .list: return "a list"
        }
    }
}

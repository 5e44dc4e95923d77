import AssistCore
import Digest
import Foundation
import Interaction

/// Something wrong with a kiosk set-up, in one line that says what and what to do. A `blocking` problem
/// would leave a kiosk nobody could leave or trust (no PIN, a PIN file others can read, no admin gesture):
/// the kiosk refuses to start. The others take something away (a feature refused) and are said at start.
package struct KioskProblem: Error, Equatable, Sendable, CustomStringConvertible {
    package var text: String
    package var blocking: Bool

    package init(_ text: String, blocking: Bool = false) {
        self.text = text
        self.blocking = blocking
    }

    package var description: String { text }
}

/// The `[kiosk]` part of the admin's configuration (`/etc/assist/config.toml`, `conf.d/*.toml`, or the
/// kiosk's `--config`):
///
///     [kiosk]
///     start = "assist.read-text"      # the feature to start in (none: the menu)
///     menu = true                      # the menu of allowed features; false keeps to `start`
///     voice = true                     # voice commands as voice.mode says; false turns them off
///     quiet-hours = "22:00-07:00"      # nothing starts or speaks by itself in these hours
///     pin-file = "/etc/assist/kiosk-pin"
///     admin-key = "f12"                # the admin gesture: this key pressed
///     admin-presses = 5                #   this many times
///     admin-seconds = 3                #   within this many seconds
///     session = "per-person"           # each person starts clean ("shared": one data folder for all)
///     idle-minutes = 10                # a per-person sitting ends after this long without input
///
///     [kiosk.features]                 # the features allowed, each with its library's SHA-256
///     "assist.read-text" = "9f86d0…"
package struct KioskConfig: Sendable {
    /// Allowed feature ids and the SHA-256 their library must have (as written, checked by `problems`).
    package var allowed: [String: String] = [:]
    package var start: String?
    package var showsMenu = true
    package var voice = true
    package var quietHours: QuietHours?
    package var pinFile: URL
    package var adminKey: Key = .function(12)
    package var adminPresses = 5
    package var adminSeconds = 3.0
    /// Each person's sitting has a data folder of its own (`session = "per-person"`, `Sittings`).
    package var perPerson = false
    /// A per-person sitting ends after this many minutes without input.
    package var idleMinutes = 10
    /// The range of `idle-minutes`.
    package static let idleRange = 1...240
    /// What could not be read of the settings themselves.
    package var problems: [KioskProblem] = []

    /// Reads the `kiosk.` keys of `settings`; the PIN file defaults to `<system folder>/kiosk-pin`.
    /// `kiosk.session` as a list (`["per-person"]`) or a number: the admin meant something, and run shared by
    /// mistake the next person would find the last one's data, so the kiosk does not start until it says which.
    static func unreadableSession(_ value: String) -> KioskProblem {
        KioskProblem(
            "kiosk.session is \(value); write \"per-person\" (each person starts clean) or \"shared\", in quotes, one of them",
            blocking: true)
    }

    package init(settings: SettingsStore, systemFolder: URL = SettingsStore.systemFolder()) {
        pinFile = systemFolder.appendingPathComponent("kiosk-pin")
        for (key, value) in settings.snapshot() where key.hasPrefix("kiosk.features.") {
            let id = String(key.dropFirst("kiosk.features.".count))
            // "off": the admin menu took back a feature an admin file allowed.
            if value.description != Self.turnedOff { allowed[id] = value.description }
        }
        if case .string(let id) = settings.value("kiosk.start"), !id.isEmpty { start = id }
        showsMenu = settings.value("kiosk.menu")?.flag ?? true
        voice = settings.value("kiosk.voice")?.flag ?? true
        if case .string(let text) = settings.value("kiosk.quiet-hours"), !text.isEmpty {
            if let hours = QuietHours(text) {
                quietHours = hours
            } else {
                problems.append(
                    KioskProblem(
                        "kiosk.quiet-hours is \"\(PlainText.value(text, limit: 40))\"; write it like \"22:00-07:00\"; there are no quiet hours"
                    ))
            }
        }
        if case .string(let path) = settings.value("kiosk.pin-file"), !path.isEmpty {
            pinFile = URL(fileURLWithPath: path)
        }
        if let name = settings.value("kiosk.admin-key")?.description {
            if let key = Key(name: name), Self.gestureKeys.contains(key) {
                adminKey = key
            } else {
                problems.append(
                    KioskProblem(
                        "kiosk.admin-key is \"\(PlainText.value(name, limit: 20))\", which is not a key the admin gesture can use; use a function key from f1 to f12",
                        blocking: true))
            }
        }
        if let presses = settings.value("kiosk.admin-presses")?.integer {
            adminPresses = Int(min(10, max(3, presses)))
        }
        if let seconds = settings.value("kiosk.admin-seconds")?.number { adminSeconds = min(10, max(1, seconds)) }
        if let mode = settings.value("kiosk.session") {
            switch mode {
            case .string("per-person"): perPerson = true
            case .string("shared"): perPerson = false
            case .string(let text):
                problems.append(
                    KioskProblem(
                        "kiosk.session is \"\(PlainText.value(text, limit: 20))\"; write \"per-person\" (each person starts clean) or \"shared\"; the kiosk is shared"
                    ))
            case .list:
                problems.append(Self.unreadableSession("a list"))
            default:
                problems.append(Self.unreadableSession(PlainText.value(mode.description, limit: 20)))
            }
        }
        if let minutes = settings.value("kiosk.idle-minutes") {
            let range = Self.idleRange
            // A fraction of a minute is taken to the nearest whole one (1.5 was 10, the default, before).
            let whole = minutes.integer ?? minutes.number.flatMap { $0.isFinite ? Int64($0.rounded()) : nil }
            if let number = minutes.integer, range.contains(Int(clamping: number)) {
                idleMinutes = Int(number)
            } else {
                let nearest = whole.map { Int(clamping: $0) }.map { min(range.upperBound, max(range.lowerBound, $0)) }
                idleMinutes = nearest ?? idleMinutes
                let unit = minutes.integer == nil && whole != nil ? "whole minutes" : "minutes"
                problems.append(
                    KioskProblem(
                        "kiosk.idle-minutes is \(PlainText.value(minutes.description, limit: 20)); a sitting ends after \(range.lowerBound) to \(range.upperBound) \(unit) without input; \(idleMinutes) is used"
                    ))
            }
        }
        if allowed.isEmpty {
            problems.append(
                KioskProblem(
                    "no feature is allowed: add a [kiosk.features] table with each feature's id and its library's SHA-256 (assist kiosk hash prints them)"
                ))
        }
        if let start, allowed[start] == nil {
            problems.append(
                KioskProblem("kiosk.start is \(start), which is not in kiosk.features; the kiosk starts in its menu"))
            self.start = nil
        }
    }

    /// The value of a `[kiosk.features]` entry that the admin menu turned off.
    package static let turnedOff = "off"

    /// Function keys only: no one presses F12 five times by chance, and no feature uses them for text.
    package static let gestureKeys: Set<Key> = Set((1...12).map { Key.function($0) })

    /// How the admin gesture is said: "F12 five times within 3 seconds".
    package var gestureDescription: String {
        let seconds = adminSeconds == adminSeconds.rounded() ? String(Int(adminSeconds)) : String(adminSeconds)
        return "\(adminKey.description.uppercased()) \(adminPresses) times within \(seconds) seconds"
    }

    /// The SHA-256 written for `id`, normalised (lowercase, an optional "sha256:" taken off); nil when it is
    /// not 64 hexadecimal digits.
    package func expectedHash(of id: String) -> String? {
        guard var text = allowed[id]?.lowercased().trimmingCharacters(in: .whitespaces) else { return nil }
        if text.hasPrefix("sha256:") { text.removeFirst(7) }
        guard text.count == 64, text.allSatisfy(\.isHexDigit) else { return nil }
        return text
    }

    /// Why the feature `id`, whose library is `library`, may not run in this kiosk; nil when it may. The hash
    /// is taken before the library is ever opened, so a changed library never runs a line of its code.
    package func refusal(id: String, library: URL) -> String? {
        guard allowed[id] != nil else { return "it is not allowed on this kiosk" }
        guard let expected = expectedHash(of: id) else {
            return "its SHA-256 in kiosk.features is not 64 hexadecimal digits"
        }
        guard let actual = SHA256Digest.hex(ofFileAt: library) else {
            return "its library \(library.path) cannot be read"
        }
        guard actual == expected else {
            return "its library \(library.path) has changed since the admin allowed it (its SHA-256 is now \(actual))"
        }
        return nil
    }

    /// Every problem with this set-up: the settings, the installed features (`installed`: id → library), the
    /// keys the admin locked, and the PIN file.
    package func check(
        installed: [String: URL], lockedKeys: [String], pluginNamespaces: Set<String>,
        credentials: [String: String] = ProcessInfo.processInfo.environment
    ) -> [KioskProblem] {
        var found = problems
        for id in allowed.keys.sorted() {
            guard let library = installed[id] else {
                let names = installed.keys.sorted().joined(separator: ", ")
                found.append(
                    KioskProblem(
                        "kiosk.features names \(id), but no installed feature has that id (installed: \(names.isEmpty ? "none" : names))"
                    ))
                continue
            }
            if let reason = refusal(id: id, library: library) { found.append(KioskProblem("\(id): \(reason)")) }
        }
        let hostNamespaces = Set(
            SettingsSchema.host.keys.compactMap { $0.split(separator: ".").first.map(String.init) })
        for key in lockedKeys {
            let namespace = key.split(separator: ".").first.map(String.init) ?? key
            let known =
                SettingsSchema.host[key] != nil || (pluginNamespaces.contains(namespace) && key.contains("."))
            if !known {
                let why =
                    hostNamespaces.contains(namespace)
                    ? "Assist has no setting of that name" : "no installed feature has settings under \(namespace)"
                found.append(KioskProblem("admin.locked names \(key): \(why); check the spelling"))
            }
        }
        if case .failure(let problem) = KioskPIN.load(from: pinFile, environment: credentials) { found.append(problem) }
        return found
    }
}

/// Hours in which nothing starts or speaks by itself, like "22:00-07:00" (overnight) or "12:00-13:30".
package struct QuietHours: Equatable, Sendable, CustomStringConvertible {
    /// Minutes after midnight.
    package var from: Int
    package var until: Int

    package init?(_ text: String) {
        let parts = text.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let from = Self.minutes(parts[0]), let until = Self.minutes(parts[1]), from != until
        else { return nil }
        self.from = from
        self.until = until
    }

    private static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[1].count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
            (0...23).contains(hours), (0...59).contains(minutes)
        else { return nil }
        return hours * 60 + minutes
    }

    /// True when `minute` (after midnight) is inside the hours.
    package func contains(minute: Int) -> Bool {
        from < until ? (from..<until).contains(minute) : minute >= from || minute < until
    }

    /// True at `date` in the device's time zone.
    package func contains(_ date: Date, calendar: Calendar = .current) -> Bool {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return contains(minute: (parts.hour ?? 0) * 60 + (parts.minute ?? 0))
    }

    package var description: String { "\(Self.clock(from))-\(Self.clock(until))" }
    package var endDescription: String { Self.clock(until) }

    private static func clock(_ minutes: Int) -> String {
        String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}

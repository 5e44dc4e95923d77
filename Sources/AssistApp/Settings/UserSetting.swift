import AssistCore
import Foundation
import Interaction
import Kiosk
import PluginHost

/// A setting the user changes by ear in the shell's settings (issue 35): its key, its spoken label, what it
/// takes, and how a change is heard at once. The host's come from `host(_:)`, a plugin's from its manifest's
/// `user_settings`.
package struct UserSetting: Sendable {
    package enum Kind: Sendable, Equatable {
        /// A number from `range`, changed by `step`; `unit` says it ("{value} words a minute"), or a percentage
        /// when `percent`.
        case number(ClosedRange<Double>, step: Double, unit: String, percent: Bool)
        case flag
        /// One of `choices`, each a value kept and its label.
        case choice([UserSettingDeclaration.Choice])
    }

    /// What is heard after a change, so the user judges it before leaving.
    package enum Preview: Sendable {
        /// A sample sentence at the new rate or volume.
        case sample
        /// A cue at the new volume or pitch.
        case cue
        /// Nothing now: it applies from the next start, and says so.
        case nextStart
        /// Nothing to hear: the feature reads it when it next starts.
        case none
    }

    package var key: String
    package var label: String
    package var kind: Kind
    package var defaultValue: SettingValue
    package var preview: Preview

    /// The value now: the one set, else the default; a number held to its range.
    package func current(in settings: SettingsStore) -> SettingValue {
        let value = settings.value(key) ?? defaultValue
        switch kind {
        case .number(let range, _, _, _):
            let number = value.number ?? defaultValue.number ?? range.lowerBound
            return stored(min(range.upperBound, max(range.lowerBound, number)))
        case .flag: return .bool(value.flag ?? defaultValue.flag ?? false)
        case .choice: return value
        }
    }

    /// A number as it is kept: whole for a whole step, else to two places.
    package func stored(_ number: Double) -> SettingValue {
        guard case .number(_, let step, _, _) = kind, step != step.rounded() else {
            return .int(Int64(number.rounded()))
        }
        return .double((number * 100).rounded() / 100)
    }

    /// `value` in words: "175 words a minute", "80 percent", "on", "2 minutes".
    package func words(_ value: SettingValue, phrases: PhraseBook) -> String {
        switch kind {
        case .number(_, _, let unit, let percent):
            let number = value.number ?? 0
            if percent { return phrases.text("settings.percent", ["value": String(Int((number * 100).rounded()))]) }
            let text = number == number.rounded() ? String(Int64(number)) : String(number)
            return unit.replacingOccurrences(of: "{value}", with: text)
        case .flag: return phrases.text(value.flag == true ? "settings.on" : "settings.off")
        case .choice(let choices):
            return choices.first { $0.value == value.description }?.label ?? value.description
        }
    }

    /// The host's own, in the order the menu says them.
    package static func host(_ phrases: PhraseBook) -> [UserSetting] {
        let label = { (key: String) in phrases.text("settings.\(key)") }
        let choices = { (key: String, values: [String]) in
            values.map { UserSettingDeclaration.Choice(value: $0, label: phrases.text("settings.\(key)-\($0)")) }
        }
        return [
            UserSetting(
                key: "speech.rate", label: label("speech.rate"),
                kind: .number(80...450, step: 25, unit: phrases.text("settings.unit-rate"), percent: false),
                defaultValue: .int(175), preview: .sample),
            UserSetting(
                key: "speech.volume", label: label("speech.volume"),
                kind: .number(0.1...1, step: 0.1, unit: "", percent: true), defaultValue: .double(1), preview: .sample),
            UserSetting(
                key: "speech.voice", label: label("speech.voice"),
                kind: .choice(choices("speech.voice", ["standard", "female", "classic"])),
                defaultValue: .string("standard"), preview: .sample),
            UserSetting(
                key: "cues.volume", label: label("cues.volume"),
                kind: .number(0...1, step: 0.1, unit: "", percent: true), defaultValue: .double(0.8), preview: .cue),
            UserSetting(
                key: "cues.enabled", label: label("cues.enabled"), kind: .flag, defaultValue: .bool(true),
                preview: .cue),
            UserSetting(
                key: "cues.low-pitch", label: label("cues.low-pitch"), kind: .flag, defaultValue: .bool(false),
                preview: .cue),
            // Not saved, the language is the one the session speaks (from LANG or --lang), not English.
            UserSetting(
                key: "language", label: label("language"),
                kind: .choice(choices("language", ["en", "ru", "zh", "es"])), defaultValue: .string(phrases.language),
                preview: .nextStart),
            UserSetting(
                key: "voice.mode", label: label("voice.mode"),
                kind: .choice(choices("voice.mode", ["push-to-talk", "wake-word", "always", "off"])),
                defaultValue: .string("push-to-talk"), preview: .nextStart),
        ]
    }

    /// The kiosk's own, for its admin menu: they apply from the kiosk's next start.
    package static func kiosk(_ phrases: PhraseBook) -> [UserSetting] {
        let label = { (key: String) in phrases.text("settings.\(key)") }
        let session = ["per-person", "shared"].map {
            UserSettingDeclaration.Choice(value: $0, label: phrases.text("settings.kiosk.session-\($0)"))
        }
        let minutes = KioskConfig.idleRange
        return [
            UserSetting(
                key: "kiosk.session", label: label("kiosk.session"), kind: .choice(session),
                defaultValue: .string("shared"), preview: .nextStart),
            UserSetting(
                key: "kiosk.idle-minutes", label: label("kiosk.idle-minutes"),
                kind: .number(
                    Double(minutes.lowerBound)...Double(minutes.upperBound), step: 5,
                    unit: phrases.text("settings.unit-minutes"), percent: false),
                defaultValue: .int(10), preview: .nextStart),
            UserSetting(
                key: "kiosk.menu", label: label("kiosk.menu"), kind: .flag, defaultValue: .bool(true),
                preview: .nextStart),
            UserSetting(
                key: "kiosk.voice", label: label("kiosk.voice"), kind: .flag, defaultValue: .bool(true),
                preview: .nextStart),
        ]
    }

    /// What a feature's declared setting takes, and its value when the declaration gives no default; nil
    /// for a declaration that cannot be offered (a number without a range, a choice without values).
    static func kind(of declaration: UserSettingDeclaration, language: String) -> (Kind, fallback: SettingValue)? {
        switch declaration.type {
        case "flag":
            return (.flag, .bool(false))
        case "number":
            guard let min = declaration.min, let max = declaration.max, min < max else { return nil }
            let percent = declaration.unit == nil && max <= 1
            return (
                .number(min...max, step: declaration.step ?? 1, unit: declaration.unit ?? "{value}", percent: percent),
                .double(min)
            )
        default:
            let choices = (declaration.choices ?? []).map {
                UserSettingDeclaration.Choice(value: $0.value, label: $0.labels?[language] ?? $0.label)
            }
            guard let first = choices.first else { return nil }
            return (.choice(choices), .string(first.value))
        }
    }

    /// What a feature's declared setting takes, for checking config files: nil for a declaration the menu
    /// cannot offer either.
    package static func schemaKind(_ declaration: UserSettingDeclaration) -> SettingsSchema.Kind? {
        switch kind(of: declaration, language: "en")?.0 {
        case .flag: return .flag
        case .number(let range, _, _, _): return .number(range)
        case .choice(let choices): return .oneOf(choices.map(\.value))
        case nil: return nil
        }
    }

    /// A plugin's, as its manifest declares them, labelled in `language` where it gives one.
    package static func declared(by manifest: PluginManifest, language: String, phrases: PhraseBook) -> [UserSetting] {
        (manifest.userSettings ?? []).compactMap { declaration in
            guard let taken = kind(of: declaration, language: language) else { return nil }
            var fallback = taken.fallback
            switch declaration.default {
            case .flag(let flag): fallback = .bool(flag)
            case .number(let number): fallback = .double(number)
            case .text(let text): fallback = .string(text)
            case nil: break
            }
            let label = phrases.text(
                "settings.of-feature",
                ["feature": manifest.name(in: language), "label": declaration.label(in: language)])
            return UserSetting(
                key: declaration.key, label: label, kind: taken.0, defaultValue: fallback, preview: .none)
        }
    }
}

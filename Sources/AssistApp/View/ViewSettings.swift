import AssistCore
import Interaction
import PluginHost

/// The low-vision view's settings (docs/view.md): what the page is given, what a page may change, and which of
/// them Settings offers by ear (while a view is open). The config file's checker has them in SettingsSchema.
package enum ViewSettings {
    package static let schemes = SettingsSchema.View.schemes
    package static let fonts = SettingsSchema.View.fonts
    package static let textSizes = SettingsSchema.View.textSizes
    package static let lineSpacings = SettingsSchema.View.lineSpacings
    package static let previewColours = SettingsSchema.View.previewColours
    package static let zooms = SettingsSchema.View.zooms

    /// The values the page is given, each read as the config file's checker reads it, the default where unset or
    /// unusable.
    package static func forPage(_ settings: SettingsStore) -> [String: String] {
        let size =
            settings.value("view.text-size")?.integer.map { min(max($0, textSizes.lowerBound), textSizes.upperBound) }
            ?? 48
        let spacing =
            settings.value("view.line-spacing")?.number.map {
                min(max($0, lineSpacings.lowerBound), lineSpacings.upperBound)
            } ?? 1.5
        let scheme = settings.value("view.scheme")?.description
        let font = settings.value("view.font")?.description
        let colours = settings.value("view.preview-colours")?.description
        return [
            "view.text-size": String(size),
            "view.scheme": scheme.flatMap { schemes.contains($0) ? $0 : nil } ?? "system",
            "view.font": font.flatMap { fonts.contains($0) ? $0 : nil } ?? "dejavu-sans",
            "view.line-spacing": String(spacing),
            "view.highlight": (settings.value("view.highlight")?.flag ?? true) ? "true" : "false",
            "view.preview-colours": colours.flatMap { previewColours.contains($0) ? $0 : nil } ?? "normal",
            "view.preview-contrast": (settings.value("view.preview-contrast")?.flag ?? false) ? "true" : "false",
            "view.preview-zoom": String(
                settings.value("view.preview-zoom")?.number.map { min(max($0, zooms.lowerBound), zooms.upperBound) }
                    ?? 1),
        ]
    }

    /// `text` from a page as the value kept for `key`; nil when the key is not one a page may change or the value
    /// is not one it takes.
    package static func value(_ text: String, for key: String) -> SettingValue? {
        switch key {
        case "view.text-size":
            guard let size = Int64(text), textSizes.contains(size) else { return nil }
            return .int(size)
        case "view.line-spacing":
            guard let spacing = Double(text), lineSpacings.contains(spacing) else { return nil }
            return .double((spacing * 100).rounded() / 100)
        case "view.scheme": return schemes.contains(text) ? .string(text) : nil
        case "view.font": return fonts.contains(text) ? .string(text) : nil
        case "view.highlight", "view.preview-contrast":
            return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case "view.preview-colours": return previewColours.contains(text) ? .string(text) : nil
        case "view.preview-zoom":
            guard let zoom = Double(text), zooms.contains(zoom) else { return nil }
            return .double(zoom)
        default: return nil
        }
    }

    /// The ones Settings offers by ear, after the sound settings.
    package static func byEar(_ phrases: PhraseBook) -> [UserSetting] {
        let label = { (key: String) in phrases.text("settings.\(key)") }
        let choices = { (key: String, values: [String]) in
            values.map { UserSettingDeclaration.Choice(value: $0, label: phrases.text("settings.\(key)-\($0)")) }
        }
        return [
            UserSetting(
                key: "view.text-size", label: label("view.text-size"),
                kind: .number(
                    Double(textSizes.lowerBound)...Double(textSizes.upperBound), step: 8,
                    unit: phrases.text("settings.unit-pixels"), percent: false),
                defaultValue: .int(48), preview: .none),
            UserSetting(
                key: "view.scheme", label: label("view.scheme"), kind: .choice(choices("view.scheme", schemes)),
                defaultValue: .string("system"), preview: .none),
            UserSetting(
                key: "view.font", label: label("view.font"), kind: .choice(choices("view.font", fonts)),
                defaultValue: .string("dejavu-sans"), preview: .none),
            UserSetting(
                key: "view.line-spacing", label: label("view.line-spacing"),
                kind: .number(lineSpacings, step: 0.25, unit: phrases.text("settings.unit-spacing"), percent: false),
                defaultValue: .double(1.5), preview: .none),
            UserSetting(
                key: "view.highlight", label: label("view.highlight"), kind: .flag, defaultValue: .bool(true),
                preview: .none),
            UserSetting(
                key: "view.preview-colours", label: label("view.preview-colours"),
                kind: .choice(choices("view.preview-colours", previewColours)), defaultValue: .string("normal"),
                preview: .none),
            UserSetting(
                key: "view.preview-contrast", label: label("view.preview-contrast"), kind: .flag,
                defaultValue: .bool(false), preview: .none),
        ]
    }
}

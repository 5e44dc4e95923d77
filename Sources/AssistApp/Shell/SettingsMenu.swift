import AssistCore
import Foundation
import Interaction
import PluginHost

/// The shell's spoken settings (issue 35): each setting with its value in words; choosing one changes it by
/// keys or voice, says the new value, lets the user hear it (a sample sentence at the new rate, the cue at the
/// new volume), and keeps it in `settings.toml`. One the admin locked is said to be locked and left as it is.
/// On the main loop.
package final class SettingsMenu: @unchecked Sendable {  // because: used only on the main loop
    /// Asks a choice and hears the index chosen, nil when cancelled (the shell's `ask`).
    package typealias Ask = (_ prompt: String, _ choices: [String], _ then: @escaping (Int?) -> Void) -> Void

    private let session: HostSession
    private let ask: Ask
    private let done: () -> Void
    /// Where a change is kept: the user's `settings.toml` (nil), or the kiosk admin's file, for everyone who
    /// starts after. The admin's own menu may change what it locked for everyone else.
    private let keep: ((String, SettingValue) throws -> Void)?

    /// Settings said before the host's (the kiosk's own, in its admin menu).
    private let first: [UserSetting]

    package init(
        session: HostSession, ask: @escaping Ask, keep: ((String, SettingValue) throws -> Void)? = nil,
        first: [UserSetting] = [], done: @escaping () -> Void
    ) {
        self.session = session
        self.ask = ask
        self.keep = keep
        self.first = first
        self.done = done
    }

    /// The host's settings, then those of each usable feature that declares any.
    package var settings: [UserSetting] {
        let phrases = session.phrases
        let language = phrases.language
        let declared = session.features.records.filter(\.isUsable).compactMap(\.manifest).flatMap {
            UserSetting.declared(by: $0, language: language, phrases: phrases)
        }
        // The large print's own only while a view is open: nobody else is made to hear them.
        let view = session.view != nil ? ViewSettings.byEar(phrases) : []
        return first + UserSetting.host(phrases) + view + declared
    }

    /// The list of settings; Back or Escape is `done`.
    package func show() {
        let all = settings
        let phrases = session.phrases
        let store = session.settings
        let labels = all.map { setting in
            phrases.text(
                "settings.entry",
                ["label": setting.label, "value": setting.words(setting.current(in: store), phrases: phrases)])
        }
        // The menu lives while a question of its own waits (each answer holds it).
        ask(phrases.text("settings.title"), labels + [phrases.text("shell.back")]) { [self] index in
            guard let index, index < all.count else { return done() }
            open(all[index])
        }
    }

    /// One setting: a flag turns over at once; a number offers up, down and done; a choice its values.
    private func open(_ setting: UserSetting) {
        let phrases = session.phrases
        guard keep != nil || !session.settings.isLocked(setting.key) else {
            session.announcer.say(phrases.text("settings.locked", ["label": setting.label]), priority: .important)
            return show()
        }
        let value = setting.current(in: session.settings)
        switch setting.kind {
        case .flag:
            change(setting, to: .bool(!(value.flag ?? false)))
            show()
        case .choice(let choices):
            let labels = choices.map { choice in
                choice.value == value.description
                    ? phrases.text("settings.current-choice", ["label": choice.label]) : choice.label
            }
            ask(setting.label, labels + [phrases.text("shell.back")]) { [self] index in
                if let index, index < choices.count { change(setting, to: .string(choices[index].value)) }
                show()
            }
        case .number(let range, let step, _, _):
            let number = value.number ?? range.lowerBound
            let up = min(range.upperBound, number + step)
            let down = max(range.lowerBound, number - step)
            let choices = [
                phrases.text("settings.higher", ["value": setting.words(setting.stored(up), phrases: phrases)]),
                phrases.text("settings.lower", ["value": setting.words(setting.stored(down), phrases: phrases)]),
                phrases.text("settings.done"),
            ]
            ask(
                phrases.text(
                    "settings.now", ["label": setting.label, "value": setting.words(value, phrases: phrases)]), choices
            ) { [self] index in
                switch index {
                case 0?, 1?:
                    let next = index == 0 ? up : down
                    if next == number {
                        let edge = index == 0 ? "settings.highest" : "settings.lowest"
                        session.announcer.say(phrases.text(edge, ["label": setting.label]), priority: .important)
                    } else {
                        change(setting, to: setting.stored(next))
                    }
                    open(setting)
                default: show()
                }
            }
        }
    }

    /// Keeps `value`, says it in words and lets it be heard; a value that cannot be kept is said with why,
    /// and the previous one stays.
    private func change(_ setting: UserSetting, to value: SettingValue) {
        let phrases = session.phrases
        do {
            if let keep {
                try keep(setting.key, value)
            } else {
                try session.settings.set(setting.key, value)
            }
        } catch SettingsError.locked {
            session.announcer.say(phrases.text("settings.locked", ["label": setting.label]), priority: .important)
            return
        } catch {
            session.announcer.say(phrases.text("settings.not-kept", ["label": setting.label]), priority: .important)
            return
        }
        session.applySoundSettings()
        if setting.key == "language", case .string(let chosen) = value, chosen != phrases.language {
            // Said in the language chosen, by its voice: the person chose it to understand what is said.
            let theirs = PhraseBook(directory: session.paths.share.appendingPathComponent("host"), language: chosen)
            let said = theirs.text(
                "settings.changed",
                ["label": theirs.text("settings.language"), "value": theirs.text("settings.language-\(chosen)")])
            session.announcer.say(
                theirs.text("settings.changed-next-start", ["said": said]), priority: .important, language: chosen)
            return
        }
        let said = phrases.text(
            "settings.changed", ["label": setting.label, "value": setting.words(value, phrases: phrases)])
        switch setting.preview {
        case .sample:
            session.announcer.say(said, priority: .important)
            session.announcer.say(phrases.text("settings.sample"), remember: false)
        case .cue:
            session.announcer.say(said, priority: .important)
            session.services.sound.cues?.play(.success)
        case .nextStart:
            session.announcer.say(phrases.text("settings.changed-next-start", ["said": said]), priority: .important)
        case .none:
            session.announcer.say(said, priority: .important)
        }
    }
}

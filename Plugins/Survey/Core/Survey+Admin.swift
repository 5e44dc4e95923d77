import Foundation
import PluginKit

/// The admin verbs: `check`, `export`, `reminders on|off`, `remind` and `forget`, each finishing the feature
/// when done.
extension Survey {
    /// `check FILE…`: each problem on its own line with the item id and what to fix; fails when any has one.
    func check(files: [String]) throws(PluginError) {
        guard !files.isEmpty else { throw PluginError("Name the definition file to check: assist survey check FILE.") }
        var failed = false
        for file in files {
            switch DefinitionLoader.load(contentsOf: URL(fileURLWithPath: file)) {
            case .valid(let definition):
                host.say(
                    phrases.text(
                        "check-ok", ["file": file, "id": definition.id, "version": "\(definition.version)"]))
            case .invalid(let problems):
                failed = true
                for problem in problems {
                    host.say(
                        phrases.text("check-problem", ["file": file, "problem": Self.sentence(problem.description)]))
                }
            }
        }
        // The survey's own settings are checked with it: a value that cannot be used fails the check too.
        for problem in settingProblems {
            failed = true
            host.say(problem)
        }
        host.finish(failed ? .invalid : .ok)
    }

    /// Each setting that cannot be used, as the sentence said of it.
    var settingProblems: [String] {
        settings.problems.map {
            phrases.text(
                "setting-problem",
                ["key": $0.key, "value": $0.value, "takes": phrases.text("setting-takes-\($0.takes)")])
        }
    }

    /// `export [--csv]`: every submission kept on this device, as JSON lines or CSV, on standard output.
    func export(definitionID: String, csv: Bool) throws(PluginError) {
        let store = try openStore()
        let definition = try? loadDefinition(definitionID)
        let submissions = ((try? store.submissions(definitionID)) ?? [])
        guard !submissions.isEmpty else {
            host.say(phrases.text("export-none"))
            host.finish()
            return
        }
        let fields =
            definition.map {
                $0.items.compactMap(\.field).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            }
            ?? Array(Set(submissions.flatMap { $0.answers.values.flatMap(\.keys) })).sorted()
        var lines: [String] = []
        if csv {
            lines.append(
                (["submission", "definition", "version", "completed_at", "state"] + fields + ["recordings"]).map(
                    Self.csvField
                ).joined(separator: ","))
        }
        for submission in submissions {
            let values = submission.answers.values.reduce(into: [String: String]()) { $0.merge($1) { _, new in new } }
            let recordings = ((try? store.recordings(of: submission.id)) ?? []).map { mediaPath($0.path) }
            if csv {
                let row =
                    [
                        "\(submission.id)", submission.definitionID, "\(submission.definitionVersion)",
                        Covid19SoundsProtocol.datetime(submission.completedAt), submission.state.rawValue,
                    ]
                    + fields.map { values[$0] ?? "" } + [recordings.joined(separator: " ")]
                lines.append(row.map(Self.csvField).joined(separator: ","))
            } else {
                let object: [String: Any] = [
                    "submission": submission.id, "definition": submission.definitionID,
                    "version": submission.definitionVersion,
                    "completed_at": Covid19SoundsProtocol.datetime(submission.completedAt),
                    "state": submission.state.rawValue, "answers": submission.answers, "recordings": recordings,
                ]
                if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                    lines.append(String(decoding: data, as: UTF8.self))
                }
            }
        }
        host.print(lines.joined(separator: "\n"))
        host.finish()
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { ",\"\n\r".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    var reminderUnits: ReminderUnits {
        let id = definition?.id ?? host.setting("definition") ?? "covid19-sounds"
        var options: [String] = []
        if let dataRoot = host.setting("reminder-data-dir") { options = ["--data-dir", dataRoot] }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "assist"
        return ReminderUnits(
            definitionID: id, executable: executable,
            time: settings.reminderTime, testMode: testMode,
            options: options)
    }

    var reminderInstaller: ReminderInstaller {
        ReminderInstaller(folder: host.setting("systemd-user-dir").map { URL(fileURLWithPath: $0) })
    }

    var remindersInstalled: Bool { reminderInstaller.isInstalled(reminderUnits) }

    /// `reminders on|off`.
    func reminders(_ choice: String?, definitionID: String) throws(PluginError) {
        definition = try loadDefinition(definitionID)
        guard choice == "on" || choice == "off" else {
            throw PluginError(phrases.text("reminders-usage"))
        }
        for problem in settingProblems where choice == "on" { host.say(problem) }
        let ok = setReminders(choice == "on")
        host.finish(ok ? .ok : .io)
    }

    /// Installs or removes the timer, saying the outcome; true when it worked.
    @discardableResult
    func setReminders(_ on: Bool) -> Bool {
        let units = reminderUnits
        let installer = reminderInstaller
        let outcome = on ? installer.install(units) : installer.remove(units)
        switch outcome {
        case .done:
            host.say(on ? phrases.text("reminders-on", ["time": units.time]) : phrases.text("reminders-off"))
            return true
        case .systemdUnavailable, .cannotWrite:
            host.log(.warning, "reminders: \(outcome) in \(installer.folder.path)")
            if on { _ = installer.remove(units) }
            let reason = on && outcome == .systemdUnavailable ? "reminders-no-systemd" : "reminders-failed"
            host.say(phrases.text(reason, ["folder": installer.folder.path]))
            return false
        }
    }

    func toggleReminders() { setReminders(!remindersInstalled) }

    /// The end of a survey offers reminders when they are off (the original's end screen did): Y or "yes"
    /// installs them, N or "no" says how to later, Escape leaves them as they are.
    func offerReminders() {
        guard !remindersInstalled else { return }
        offeringReminders = true
        openDialog = true
        host.askChoice(
            phrases.text("offer-reminders", ["time": reminderUnits.time]), choices: [yesWord, noWord], defaultIndex: nil
        ) { [weak self] answer in
            guard let self else { return }
            openDialog = false
            offeringReminders = false
            if answer == 0 {
                setReminders(true)
            } else if answer == 1 {
                host.say(phrases.text("reminders-declined"))
            }
            if finishAfterOffer {
                finishAfterOffer = false
                host.finish()
            }
        }
    }

    /// Ends the session once the reminder offer, if one is open, is answered.
    func finishSession() {
        if offeringReminders { finishAfterOffer = true } else { host.finish() }
    }

    /// `remind`: speaks the reminder when one is due (eligible, the last one old enough), else stays quiet.
    /// Only participants are reminded: someone who has saved a survey here, or turned reminders on; a user who
    /// never joined the study is not nagged because the plugin is installed.
    func remind(definitionID: String) throws(PluginError) {
        let definition = try loadDefinition(definitionID)
        let store = try openStore()
        var account = (try? store.account(definition.id)) ?? .init(definitionID: definition.id, uploadedInitial: false)
        let after = eligibleAfterSeconds(definition)
        let spacing = testMode ? 600 : definition.reminderSpacingSeconds
        let participates = account.lastCompleted != nil || remindersInstalled
        if participates,
            Eligibility.reminderDue(
                lastCompleted: account.lastCompleted, lastReminded: account.lastReminded, now: now(), after: after,
                spacing: spacing)
        {
            account.lastReminded = now()
            try? store.save(account)
            host.say(phrases.text("reminder"))
        }
        host.finish()
    }

    /// `forget --yes`, or "forget me" after a confirmation: the account, tokens, drafts and submissions go.
    func forget(definitionID: String, confirmed: Bool) throws(PluginError) {
        guard confirmed else { throw PluginError("Add --yes to delete everything of the survey \(definitionID).") }
        definition = try loadDefinition(definitionID)
        _ = try openStore()
        forgetEverything()
        host.finish()
    }

    func askToForget() {
        openDialog = true
        host.askChoice(phrases.text("forget-confirm"), choices: [noWord, yesWord], defaultIndex: 0) {
            [weak self] answer in
            guard let self else { return }
            openDialog = false
            if answer == 1 {
                forgetEverything()
                host.finish()
            } else {
                ask()
            }
        }
    }

    private func forgetEverything() {
        guard let definition, let store else { return }
        try? store.forget(definition.id)
        for folder in ["drafts/\(definition.id)"] { try? FileManager.default.removeItem(atPath: mediaPath(folder)) }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: mediaPath("submissions"))) ?? []
        where name.hasPrefix(definition.id + "-") {
            try? FileManager.default.removeItem(atPath: mediaPath("submissions/\(name)"))
        }
        flow = nil
        mode = .finished
        host.say(phrases.text("forgotten"))
    }
}

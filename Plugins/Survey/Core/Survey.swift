import Foundation
import PluginAPI
import PluginKit

/// The survey feature (COVID-19 Sounds port, spec survey.md): one question at a time by ear and keyboard,
/// recordings through the host's audio input, a draft saved after every item, and the upload through the
/// host's outbox. Admin verbs (`check`, `export`, `reminders`, `remind`, `forget`) run when the first argument
/// names them; `assist survey …` passes them on. Every method runs on [main] unless it says otherwise.
public final class Survey: PluginFeature {
    let host: PluginHostHandle
    let phrases: PhraseTable
    /// Unix seconds; replaceable in tests.
    let now: () -> Double
    var store: SurveyStore?
    var definition: SurveyDefinition?
    var flow: SurveyFlow?
    var mode: Mode = .idle
    /// The option Up and Down have reached (0-based).
    var focus = 0
    var recorder: Recorder?
    /// The media name of the take being recorded.
    var pendingName: String?
    /// When the last start tone was asked for (monotonic seconds).
    var toneRequestedAt: Double?
    /// A take just recorded, waiting to be kept, played or replaced.
    var pendingTake: PendingTake?
    /// The last save of the draft failed and the participant was told: said once until a save works again.
    var toldDraftNotSaved = false
    var saidLanguageFallback = false
    /// The survey's settings, read and checked once (`SurveySettings`).
    lazy var settings = SurveySettings { [host] in host.setting($0) }
    var retryTimers: [Int64: UInt64] = [:]
    /// The feature ends by itself once the last upload of this session is settled.
    var finishWhenSettled = false
    var openDialog = false
    /// The end-of-survey reminder offer is open; the session ends when it is answered.
    var offeringReminders = false
    var finishAfterOffer = false
    /// Digits typed toward an option number over 9, and the timer that takes them after a short pause.
    var typedDigits = ""
    var digitTimer: UInt64?
    /// How long a first digit waits for a second when the list is longer than 9: 2 s, as the host's menus wait
    /// (a second digit 1.5 s after the first was taken alone; issue 72, item 9).
    static let digitPauseMilliseconds: UInt32 = 2_000

    enum Mode: Equatable {
        case idle, menu, resumeQuestion, asking, review, finished
    }

    public init(host: PluginHostHandle, now: @escaping () -> Double = { Date().timeIntervalSince1970 }) {
        self.host = host
        self.now = now
        self.phrases = PhraseTable(directory: host.shareDirectory, language: host.language)
    }

    var language: String { host.language }

    // MARK: Lifecycle

    public func start(arguments: [String]) throws(PluginError) {
        var arguments = arguments
        let definitionID = Self.take("--definition", from: &arguments) ?? host.setting("definition") ?? "covid19-sounds"
        switch arguments.first {
        case "--help", "-h":
            host.print(phrases.text("usage"))
            host.finish()
        case "check":
            try check(files: Array(arguments.dropFirst()))
        case "export":
            try export(definitionID: definitionID, csv: arguments.contains("--csv"))
        case "reminders":
            try reminders(arguments.dropFirst().first, definitionID: definitionID)
        case "remind":
            try remind(definitionID: definitionID)
        case "forget":
            try forget(definitionID: definitionID, confirmed: arguments.contains("--yes"))
        case "sync":
            let wait = Self.take("--wait", from: &arguments).flatMap(Double.init) ?? 120
            try sendWaiting(definitionID: definitionID, waitSeconds: min(max(wait, 1), 3600))
        case nil, "start":
            try startInteractive(definitionID: definitionID)
        case let other?:
            throw PluginError(phrases.text("unknown-command", ["command": other]))
        }
    }

    public func stop() {
        finishTakeOnStop()
        if saveDraft() { host.speak(phrases.text("answers-kept"), priority: .important) }
        for (_, timer) in retryTimers { host.cancelTimer(timer) }
        retryTimers = [:]
        host.stopOutcomes()
    }

    static func take(_ option: String, from arguments: inout [String]) -> String? {
        guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...index + 1)
        return value
    }

    /// Loads the definition `id`, throwing the sentence the user hears when it cannot be used.
    func loadDefinition(_ id: String) throws(PluginError) -> SurveyDefinition {
        let entries = SurveyCatalog.load(
            SurveyCatalog.folders(shareDirectory: host.shareDirectory, adminFolder: host.setting("definitions-dir")))
        guard let entry = SurveyCatalog.find(id, in: entries) else {
            throw PluginError(phrases.text("definition-missing", ["id": id]))
        }
        switch entry.result {
        case .valid(let definition): return definition
        case .invalid(let problems):
            throw PluginError(
                phrases.text("definition-invalid", ["id": id, "problem": Self.sentence(problems[0].description)]))
        }
    }

    func openStore() throws(PluginError) -> SurveyStore {
        if let store { return store }
        do {
            let opened = try SurveyStore(host: host)
            store = opened
            return opened
        } catch {
            throw PluginError(error.message)
        }
    }

    private func startInteractive(definitionID: String) throws(PluginError) {
        let definition = try loadDefinition(definitionID)
        self.definition = definition
        let store = try openStore()
        for problem in settingProblems { host.say(problem) }
        registerCommands()
        sweepOrphanFiles()
        startUploads(atHostStart: true)
        if let draft = try? store.draft(definition.id), draft.definitionVersion == definition.version,
            now() - draft.updatedAt < 7 * 86_400,
            let resumed = SurveyFlow(definition: definition, resuming: draft.state)
        {
            mode = .resumeQuestion
            let time = Self.spokenTime(draft.updatedAt, now: now(), language: language)
            openDialog = true
            host.askChoice(phrases.text("resume", ["time": time]), choices: [yesWord, noWord], defaultIndex: 0) {
                [weak self] answer in
                guard let self else { return }
                openDialog = false
                if answer == 0 {
                    flow = resumed
                    mode = .asking
                    ask()
                } else if answer == 1 {
                    discardDraft()
                    begin()
                } else {
                    host.finish(.cancelled)
                }
            }
            return
        } else if (try? store.draft(definition.id)) != nil {
            discardDraft()
        }
        begin()
    }

    var yesWord: String { phrases.text("yes-word") == "yes-word" ? "Yes" : phrases.text("yes-word") }
    var noWord: String { phrases.text("no-word") == "no-word" ? "No" : phrases.text("no-word") }

    /// Starts a new session when the participant may, else speaks when the next one opens and the menu.
    func begin() {
        guard let definition, let store else { return }
        let account =
            (try? store.account(definition.id))
            ?? SurveyStore.Account(definitionID: definition.id, uploadedInitial: false)
        let eligibleAfter = eligibleAfterSeconds(definition)
        guard Eligibility.isEligible(lastCompleted: account.lastCompleted, now: now(), after: eligibleAfter) else {
            let last = account.lastCompleted ?? now()
            host.say(
                phrases.text(
                    "not-eligible",
                    [
                        "ago": Self.spokenTime(last, now: now(), language: language),
                        "when": Self.spokenTime(last + eligibleAfter, now: now(), language: language),
                    ]))
            mode = .menu
            sayMenu(canStart: false)
            return
        }
        let askInitial = !account.uploadedInitial && account.initialAnswers == nil
        let parts = definition.parts.filter { !$0.once || askInitial }.map(\.id)
        guard let started = SurveyFlow(definition: definition, parts: parts) else { return }
        flow = started
        mode = .asking
        host.say(
            phrases.text(
                "intro", count: started.position.count, ["title": localized(definition.title)]))
        ask()
    }

    var testMode: Bool { host.setting("test-mode", default: false) }

    /// 47 h from the definition, 60 s in test mode, or the admin's `survey.eligible-after-seconds`.
    func eligibleAfterSeconds(_ definition: SurveyDefinition) -> Double {
        if let configured = settings.eligibleAfterSeconds { return configured }
        return testMode ? 60 : definition.eligibleAfterSeconds
    }

    func sayMenu(canStart: Bool) {
        let reminders = remindersInstalled ? phrases.text("reminders-off-word") : phrases.text("reminders-on-word")
        host.say(phrases.text(canStart ? "menu" : "menu-no-start", ["reminders": reminders]))
    }

    // MARK: Commands

    private func registerCommands() {
        // Keys 0 to 9 type an option's number (two digits for 10 and over); "14", "fourteen" or "option 14"
        // said or typed after "/" choose at once. Numbers past 9 only where a question has that many options.
        let longest = definition?.items.map(\.options.count).max() ?? 9
        // Labels (the help list) in the session's language: `command.<id>`; the spoken phrases stay English, as
        // the recogniser is.
        var commands: [(String, String, String?, String?)] = (0...min(99, max(9, longest))).map {
            (
                "choose-\($0)", phrases.text("command.choose-any"), $0 <= 9 ? "\($0)" : nil,
                $0 == 0 ? nil : "\($0)"
            )
        }
        let named: [(String, String?, String?)] = [
            ("continue", "enter", "continue"), ("back", "backspace", "back"), ("space", "space", "record"),
            ("focus-previous", "up", nil), ("focus-next", "down", nil), ("yes", "y", "yes"), ("no", "n", "no"),
            ("play-recording", "p", "play recording"), ("record-again", "a", "record again"),
            ("start-survey", "s", "start"), ("uploads", "u", "uploads"), ("reminders", "m", "reminders"),
            ("retry-upload", nil, "retry upload"), ("forget-me", nil, "forget me"), ("privacy", "i", "privacy"),
        ]
        // The words in the session's language (`phrase.<id>`; "olvídame", not "forget me"), and the keys whose
        // letter is a word's (`key.<id>`: in Spanish S is Sí, as in Assist's own questions, and E empieza).
        for (id, key, english) in named {
            let own = phrases.text("key.\(id)")
            commands.append(
                (
                    id, phrases.text("command.\(id)"), own == "key.\(id)" ? key : own,
                    english.map { _ in phrases.text("phrase.\(id)") }
                ))
        }
        // Y answers yes in every language, as Assist's own questions take it.
        if phrases.text("key.yes") != "y" { commands.append(("yes-y", phrases.text("command.yes"), "y", nil)) }
        for (id, label, key, phrase) in commands {
            do {
                try host.registerCommand(id: id, label: label, key: key, phrase: phrase)
            } catch {
                host.log(.warning, "the command \(id) could not be registered: \(error.message)")
            }
        }
        // Typed words that also mean going on, for terminals where Enter sends an empty line.
        try? host.registerCommand(
            id: "continue-words", label: phrases.text("command.continue"), key: nil, phrase: "next")
        try? host.registerCommand(id: "continue-ok", label: "Continue", key: nil, phrase: "ok")
    }

    public func handle(command: String, argument: String?) {
        if recorder != nil {
            // During a take only stopping it counts; nothing else may speak.
            if command == "space" || command == "continue" { recorder?.stop() }
            return
        }
        if command.hasPrefix("choose-"), let number = Int(command.dropFirst("choose-".count)) {
            typeDigit(number)
            return
        }
        // Any other command first takes digits still waiting for a second one ("1", Enter: option 1, go on).
        takeTypedDigits()
        switch command {
        case "continue", "continue-words", "continue-ok", ASSIST_CMD_NEXT: proceed()
        case "back", ASSIST_CMD_PREVIOUS: goBack()
        case "space": space()
        case "focus-previous": moveFocus(-1)
        case "focus-next": moveFocus(1)
        case "yes", "yes-y": answerGate(true)
        case "no": answerGate(false)
        case "play-recording": playTake()
        case "record-again": recordAgain()
        case "start-survey":
            if mode == .menu { begin() }
        case "uploads": reportUploads()
        case "retry-upload": retryUploads()
        case "reminders": toggleReminders()
        case "forget-me": askToForget()
        case "privacy": sayPrivacy()
        case ASSIST_CMD_HELP: explain()
        default: break
        }
    }

    /// I, or "privacy": the study's text on privacy and data use, at the menu or at any question (a survey
    /// without one says so). What was being asked stays; R repeats it.
    /// "help", after the host has said the commands: what this survey asks (questions, those asked only the
    /// first time, recordings) and where to hear why, from the definition itself.
    func explain() {
        guard let definition else { return }
        let questions = definition.parts.flatMap { part in
            part.items.filter { !$0.followUp && [.single, .multi, .gate, .location].contains($0.kind) }
                .map { (item: $0, once: part.once) }
        }
        let recordings = definition.items.filter { $0.kind == .recording }.count
        host.say(
            phrases.text(
                "help-asks",
                [
                    // Counted as the survey numbers them ("Question 3 of 12"): recordings are questions too.
                    "title": localized(definition.title), "total": String(questions.count + recordings),
                    "once": String(questions.filter(\.once).count), "recordings": String(recordings),
                ]))
        host.say(phrases.text(definition.privacyItem == nil ? "help-why-none" : "help-why"))
    }

    func sayPrivacy() {
        guard let definition else { return }
        guard let item = definition.privacyItem else {
            host.say(phrases.text("privacy-none"))
            return
        }
        host.say(localized(item.text))
    }

    // MARK: Asking

    func localized(_ text: LocalizedText) -> String {
        let (value, fellBack) = text.text(language)
        if fellBack, !saidLanguageFallback {
            saidLanguageFallback = true
            host.say(phrases.text("language-fallback"))
        }
        return value
    }

    /// Speaks the current item: the question with its number, the options and what is chosen so far.
    func ask() {
        guard let flow, mode == .asking else { return }
        let item = flow.current
        focus = 0
        clearTypedDigits()
        let (number, count) = flow.position
        var lines: [String] = []
        switch item.kind {
        case .info:
            lines = [localized(item.text), phrases.text(item.privacy ? "privacy-hint" : "info-hint")]
        case .gate:
            lines = [
                localized(item.text), phrases.text("gate-hint", ["confirm": item.confirm.map(localized) ?? yesWord]),
            ]
        case .single, .multi:
            lines.append(
                phrases.text("question", ["number": "\(number)", "count": "\(count)", "text": localized(item.text)]))
            // What is chosen comes before the options: after 18 of them it came a minute late (issue 72).
            let chosen = labels(of: flow.selection(item.id), in: item)
            if !chosen.isEmpty { lines.append(phrases.text("chosen-now", ["labels": chosen])) }
            for (index, option) in item.options.enumerated() {
                lines.append(phrases.text("option", ["number": "\(index + 1)", "label": localized(option.label)]))
            }
            lines.append(phrases.text(item.kind == .single ? "single-hint" : "multi-hint"))
            if item.options.count > 9 {
                lines.append(phrases.text("two-digits-hint"))
            }
        case .recording:
            lines.append(
                phrases.text(
                    "question",
                    [
                        "number": "\(number)", "count": "\(count)",
                        "text": phrases.text(
                            "recording-task",
                            ["task": localized(item.text), "seconds": DefinitionLoader.number(item.maxSeconds)]),
                    ]))
            if let kept = keptTake(for: item) {
                lines.append(phrases.text("recording-kept", ["seconds": Self.seconds(Double(kept.durationMs) / 1000)]))
            }
        case .location:
            if let value = settings.fixedLocation {
                self.flow?.setValue(value, for: item.id)
                saveDraft()
                proceed()
                return
            }
            askLocation(
                prompt: phrases.text(
                    "question", ["number": "\(number)", "count": "\(count)", "text": localized(item.text)]) + " "
                    + phrases.text("location-prompt"))
            return
        }
        host.say(lines.joined(separator: " "))
    }

    var defaultAccuracy: Double { settings.manualLocationAccuracy }

    private func askLocation(prompt: String) {
        guard let item = flow?.current else { return }
        openDialog = true
        host.askText(prompt) { [weak self] text in
            guard let self, mode == .asking, flow?.current.id == item.id else { return }
            openDialog = false
            guard let text else {
                host.finish(.cancelled)  // Escape in the dialog pauses: the draft is kept
                return
            }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if ["back", "previous"].contains(trimmed.lowercased()) {
                goBack()
                return
            }
            if trimmed.isEmpty {
                flow?.setValue("unavailable", for: item.id)
                host.say(phrases.text("location-skipped"))
            } else if let value = LocationText.parse(trimmed, defaultAccuracy: defaultAccuracy) {
                flow?.setValue(value, for: item.id)
                host.say(phrases.text("location-kept", ["value": value]))
            } else {
                askLocation(prompt: phrases.text("location-prompt"))
                return
            }
            saveDraft()
            proceed()
        }
    }

    private func labels(of keys: [String], in item: SurveyItem) -> String {
        item.options.filter { keys.contains($0.key) }.map { localized($0.label) }.joined(separator: ", ")
    }

    /// A short answer echo that "repeat" skips, so R still says the question.
    func echo(_ text: String) {
        host.speak(text, priority: .text)
    }

    /// A digit key, or a number said or typed as a phrase. Up to nine options one digit answers at once; on a
    /// longer list a digit that could begin a number in the list waits for a second digit, Enter or a pause.
    private func typeDigit(_ number: Int) {
        let count = mode == .asking ? flow?.current.options.count ?? 0 : 0
        let digits = typedDigits + String(number)
        guard number <= 9, count > 9, let value = Int(digits), value * 10 <= count, value > 0 else {
            let typed = typedDigits.isEmpty || number > 9 ? number : Int(digits) ?? number
            clearTypedDigits()
            choose(typed)
            return
        }
        typedDigits = digits
        if let digitTimer { host.cancelTimer(digitTimer) }
        digitTimer = host.addTimer(milliseconds: Self.digitPauseMilliseconds, repeating: false) { [weak self] in
            self?.digitTimer = nil
            self?.takeTypedDigits()
        }
    }

    /// Chooses the option whose number waits in `typedDigits`, if any.
    func takeTypedDigits() {
        guard let number = Int(typedDigits) else { return }
        clearTypedDigits()
        choose(number)
    }

    func clearTypedDigits() {
        typedDigits = ""
        if let digitTimer { host.cancelTimer(digitTimer) }
        digitTimer = nil
    }

    private func choose(_ number: Int) {
        guard mode == .asking, var flow else { return }
        let item = flow.current
        guard item.options.indices.contains(number - 1) else {
            if item.kind == .single || item.kind == .multi {
                echo(phrases.text("no-such-option", ["number": "\(number)", "count": "\(item.options.count)"]))
            }
            return
        }
        focus = number - 1
        switch item.kind {
        case .single:
            if let option = flow.choose(number - 1) {
                echo(phrases.text("chosen", ["label": localized(option.label)]))
            }
        case .multi:
            if let toggle = flow.toggle(number - 1) {
                var text = phrases.text(toggle.isOn ? "on" : "off", ["label": localized(toggle.option.label)])
                if toggle.clearedOthers { text += " " + phrases.text("others-cleared") }
                echo(text)
            }
        default:
            return
        }
        self.flow = flow
        saveDraft()
    }

    private func moveFocus(_ step: Int) {
        guard mode == .asking, let flow else { return }
        let item = flow.current
        guard !item.options.isEmpty else { return }
        focus = (focus + step + item.options.count) % item.options.count
        let option = item.options[focus]
        let isOn = item.kind == .multi && flow.selection(item.id).contains(option.key)
        echo(
            phrases.text(
                "focus",
                [
                    "number": "\(focus + 1)", "label": localized(option.label),
                    "state": isOn ? phrases.text("focus-on") : "",
                ]
            ))
    }

    private func space() {
        guard mode == .asking, let flow else { return }
        switch flow.current.kind {
        case .single, .multi: choose(focus + 1)
        case .recording: startTake()
        default: break
        }
    }

    private func answerGate(_ yes: Bool) {
        guard mode == .asking, var flow, flow.current.kind == .gate else { return }
        if yes {
            flow.setValue("confirmed", for: flow.current.id)
            self.flow = flow
            proceed()
        } else {
            // Not the end of the feature (issue 72: a slip of N left at once): the survey's menu, where S
            // starts again and Escape leaves.
            host.say(phrases.text("gate-declined"), priority: .important)
            discardDraft()
            self.flow = nil
            mode = .menu
            sayMenu(canStart: true)
        }
    }

    /// Enter: keeps a pending take, then moves on when the item is answered.
    func proceed() {
        if mode == .review {
            submit()
            return
        }
        guard mode == .asking, var flow else { return }
        if flow.current.kind == .gate, flow.selection(flow.current.id).isEmpty {
            host.say(phrases.text("gate-press"))
            return
        }
        if pendingTake != nil, !acceptTake() { return }
        guard var updated = self.flow else { return }
        flow = updated
        switch updated.advance() {
        case .asking:
            self.flow = updated
            saveDraft()
            ask()
        case .needsChoice(let minimum):
            let key =
                flow.current.kind == .single ? "choose-one" : minimum > 1 ? "choose-at-least-n" : "choose-at-least"
            host.say(phrases.text(key, ["count": "\(minimum)"]))
        case .needsRecording:
            host.say(phrases.text("record-first"))
        case .finished:
            self.flow = updated
            saveDraft()
            review()
        case .declined:
            break
        }
        _ = updated
    }

    private func goBack() {
        guard var flow else { return }
        if mode == .review {
            mode = .asking
            ask()
            return
        }
        guard mode == .asking else { return }
        if pendingTake != nil { discardPendingTake() }
        guard flow.back() else {
            host.say(phrases.text("first-question"))
            return
        }
        self.flow = flow
        saveDraft()
        ask()
    }

    /// The spoken review of every answer before saving (spec §9).
    private func review() {
        guard let flow, let definition else { return }
        mode = .review
        var parts: [String] = []
        for id in flow.state.history + [flow.state.current] {
            guard let item = definition.item(id), item.kind != .info, item.kind != .gate else { continue }
            let chosen = flow.selection(id)
            let answer: String
            switch item.kind {
            case .single, .multi: answer = labels(of: chosen, in: item)
            case .recording:
                answer = keptTake(for: item).map { Self.seconds(Double($0.durationMs) / 1000) + " s" } ?? "-"
            default: answer = chosen.first ?? "-"
            }
            // A follow-up's answer is said too ("When was the positive test: within the last 14 days."): it was
            // left out, and what the server would get could not be heard before saving.
            let shortText = localized(item.text).split(separator: "?").first.map(String.init) ?? ""
            parts.append("\(shortText): \(answer).")
        }
        host.say(phrases.text("review", ["answers": parts.joined(separator: " ")]))
    }

    /// Keeps the answers so far; true when there were answers to keep and they were kept.
    @discardableResult
    func saveDraft() -> Bool {
        guard let flow, let definition, let store, mode == .asking || mode == .review else { return false }
        do {
            try store.saveDraft(flow.state, definition: definition, at: now())
            toldDraftNotSaved = false
            return true
        } catch {
            host.log(.error, "the draft could not be saved: \(error.message)")
            // Said once while saving keeps failing (not at every answer); the answers stay in memory meanwhile.
            if !toldDraftNotSaved {
                toldDraftNotSaved = true
                host.play(.error)
                host.say(phrases.text("draft-not-saved", ["reason": error.message]), priority: .important)
            }
            return false
        }
    }

    func discardDraft() {
        guard let definition, let store else { return }
        let takes = (try? store.draftRecordings(definition.id)) ?? []
        try? store.deleteDraft(definition.id)
        for take in takes { try? host.deleteMedia(take.path) }
        try? FileManager.default.removeItem(atPath: mediaPath("drafts/\(definition.id)"))
    }

    // MARK: Helpers

    /// The full path of `name` inside the plugin's media folder.
    func mediaPath(_ name: String) -> String {
        (host.dataDirectory ?? ".") + "/media/" + name
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f", value) }

    /// "today at 14:05", "on 3 March at 09:00".
    static func spokenTime(_ time: Double, now: Double, language: String) -> String {
        let date = Date(timeIntervalSince1970: time)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language)
        formatter.dateStyle =
            Calendar.current.isDate(date, inSameDayAs: Date(timeIntervalSince1970: now)) ? .none : .medium
        formatter.timeStyle = .short
        return formatter.string(from: date)
    }

    /// A problem as a sentence: capitalised, ending with a full stop.
    static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        let capitalised = first.uppercased() + text.dropFirst()
        return capitalised.hasSuffix(".") ? capitalised : capitalised + "."
    }
}

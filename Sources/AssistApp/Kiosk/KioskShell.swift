import AssistCore
import Digest
import Foundation
import Interaction
import Kiosk
import PluginHost

/// The shell's kiosk rules (`assist kiosk`), on the main loop. Every key, line and phrase passes here first:
/// the keys and words that would leave are answered "This device is in kiosk mode", the admin gesture opens
/// the PIN prompt (a tap per digit, nothing shown or spoken), and a right PIN opens the admin menu. Wrong PINs
/// wait 1, 2, 4 … 60 s, kept across restarts.
package final class KioskShell: @unchecked Sendable {  // because: used only on the main loop
    package let config: KioskConfig
    private let session: HostSession
    private var gesture: AdminGesture
    private var pin: PasswordHash
    private let backoffFile: URL
    private var backoff: PINBackoff
    private var typed: String?
    private var typedTimer: UInt64?
    private var adminMenu: UInt64?
    /// How long the PIN prompt waits for the next digit.
    package static let pinIdleSeconds = 20

    /// How the kiosk ends, once the admin chose: nil while it runs.
    package enum Ending { case stop, restart, service, endSitting }
    package private(set) var ending: Ending?
    /// Asked to end the shell (the admin stopped or restarted the kiosk).
    package var onLeave: () -> Void = {}
    /// When the kiosk started: the start feature is started by itself once, outside quiet hours.
    private var startedOnce = false
    private var relaunches: [Double] = []

    /// The device's data folder: the PIN's back-off and the admin's choices (a sitting's folder is below it).
    package let device: URL
    /// A per-person sitting's idle watch; nil in a shared kiosk.
    private var idle: IdleWatch?
    private var doneQuestion: UInt64?

    package init(session: HostSession, config: KioskConfig, pin: PasswordHash, device: URL? = nil) {
        self.session = session
        self.config = config
        self.pin = pin
        self.device = device ?? session.paths.data
        gesture = AdminGesture(key: config.adminKey, presses: config.adminPresses, seconds: config.adminSeconds)
        backoffFile = self.device.appendingPathComponent("kiosk-backoff.json")
        backoff = PINBackoff.load(from: backoffFile)
    }

    private var phrases: PhraseBook { session.phrases }
    private var announcer: Announcer { session.announcer }
    private static var now: Double { Date().timeIntervalSince1970 }

    /// True in the admin's quiet hours: nothing starts by itself.
    package var isQuiet: Bool { config.quietHours?.contains(Date()) ?? false }

    /// The feature to start now by itself, if any: `kiosk.start` once at start, and again whenever it ends
    /// when there is no menu (three quick ends in a minute give the menu instead); never in quiet hours.
    package func featureToStart() -> String? {
        guard let start = config.start, !isQuiet, ending == nil else { return nil }
        if !startedOnce {
            startedOnce = true
            return start
        }
        guard !config.showsMenu else { return nil }
        let now = Self.now
        relaunches = relaunches.filter { now - $0 < 60 } + [now]
        return relaunches.count <= 3 ? start : nil
    }

    /// The features the menu offers: all allowed, or only the start feature when there is no menu.
    package func offered(_ records: [PluginRecord]) -> [PluginRecord] {
        guard !config.showsMenu, let start = config.start else { return records }
        return records.filter { $0.id == start }
    }

    /// The phrase `key` with a number of seconds (`key-one` for exactly one).
    private func seconds(_ key: String, _ count: Int) -> String {
        count == 1 ? phrases.text(key + "-one") : phrases.text(key, ["seconds": String(count)])
    }

    /// "This device is in kiosk mode."
    package func refuseEscape() {
        announcer.say(phrases.text("kiosk.refused"), priority: .important, remember: false)
    }

    /// Every input event first; true when the kiosk took it.
    package func intercept(_ event: InputEvent) -> Bool {
        if case .endOfInput = event {} else { idle?.touched(at: ProcessInfo.processInfo.systemUptime) }
        if typed != nil { return takePIN(event) }
        if adminMenu != nil { return false }
        switch event {
        case .key(let key):
            if key == config.adminKey {
                if gesture.press(key, at: ProcessInfo.processInfo.systemUptime) { askForPIN() }
                return true
            }
            _ = gesture.press(key, at: ProcessInfo.processInfo.systemUptime)
            if Self.escapeKeys.contains(key) {
                refuseEscape()
                return true
            }
            return false
        case .line(let text), .phrase(let text):
            guard session.features.focused == nil else { return false }
            if config.perPerson, Self.doneWords.contains(Self.plainWords(text)) {
                askDone()
                return true
            }
            guard Self.leaveWords.contains(CommandRouter.normalise(text)) else { return false }
            refuseEscape()
            return true
        case .typing:
            // A typed letter is a key between admin-key presses all the same: the gesture starts again.
            gesture.reset()
            return false
        case .endOfInput:
            // The terminal is gone (a hang-up): the kiosk goes on (voice, uploads) until systemd stops it.
            return true
        }
    }

    /// Ctrl+C, Ctrl+Z, Ctrl+\ and Ctrl+D: a terminal's ways out.
    package static let escapeKeys: Set<Key> = [.control("c"), .control("z"), .control("\\"), .control("d")]
    /// Words that leave the shell elsewhere.
    package static let leaveWords: Set<String> = [
        "quit", "exit", "q", "logout", "goodbye", "quit assist", "exit assist",
    ]

    /// What a person says or types to end their sitting in a per-person kiosk, as `plainWords` gives them.
    package static let doneWords: Set<String> = [
        "im done", "i am done", "done", "im finished", "i am finished", "finished", "end my session", "end session",
    ]

    /// Lower-case words without apostrophes or end punctuation: "I'm done." is "im done".
    static func plainWords(_ text: String) -> String {
        let kept = text.lowercased().filter { $0.isLetter || $0.isNumber || $0.isWhitespace }
        return CommandRouter.normalise(kept)
    }

    // MARK: A per-person sitting

    /// Starts watching for a sitting left idle (per-person kiosks only): `isNew` sittings end only once
    /// someone used them. The phrase "I'm done" is added to what voice hears.
    package func watchSitting(isNew: Bool) {
        guard config.perPerson else { return }
        let seconds =
            ProcessInfo.processInfo.environment["ASSIST_KIOSK_IDLE_SECONDS"].flatMap(Double.init).map { max(1, $0) }
            ?? Double(config.idleMinutes * 60)
        idle = IdleWatch(seconds: seconds, used: !isNew, now: ProcessInfo.processInfo.systemUptime)
        session.services.interaction.router.addHostCommand(
            id: "kiosk-done", label: phrases.text("kiosk.done-entry"),
            phrases: ["i'm done", "i am done", "end my session"])
        session.loop.addTimer(milliseconds: 1000, repeating: true) { [weak self] in self?.checkIdle() }
    }

    private func checkIdle() {
        guard var watch = idle, ending == nil, typed == nil, adminMenu == nil else { return }
        let step = watch.step(at: ProcessInfo.processInfo.systemUptime)
        idle = watch
        switch step {
        case .warn:
            session.services.sound.cues?.play(.listen)
            announcer.say(phrases.text("kiosk.idle-warning"), priority: .important)
        case .end:
            session.logger.notice("kiosk: the sitting ended after \(Int(watch.seconds)) s without input")
            endSitting()
        case .none:
            break
        }
    }

    /// "I'm done" (the menu's entry, typed or said): asked once, so a slip does not wipe someone's work.
    package func askDone() {
        guard config.perPerson, ending == nil, doneQuestion == nil else { return }
        doneQuestion = session.services.interaction.dialogs.open(
            .confirm(prompt: phrases.text("kiosk.done-question"), defaultYes: false, timeoutMs: 0), owner: "host"
        ) { [weak self] answer in
            guard let self else { return }
            doneQuestion = nil
            if answer.status == .answered, answer.yes {
                session.logger.notice("kiosk: the person ended their sitting")
                endSitting()
            } else {
                announcer.say(phrases.text("kiosk.done-kept"), remember: false)
                onMenu()
            }
        }
        session.dispatcher.syncConsoleMode()
    }

    /// Asked to show the menu again (the shell's).
    package var onMenu: () -> Void = {}

    private func endSitting() {
        guard ending == nil else { return }
        ending = .endSitting
        announcer.say(phrases.text("kiosk.sitting-ended"), priority: .important)
        onLeave()
    }

    // MARK: The PIN

    private func askForPIN() {
        let wait = backoff.remaining(at: Self.now)
        if wait > 0 {
            announcer.say(seconds("kiosk.pin-wait", wait), priority: .important)
            return
        }
        typed = ""
        session.dispatcher.takingSecret = true
        session.services.sound.cues?.play(.listen)
        announcer.say(phrases.text("kiosk.pin-prompt"), priority: .important, remember: false)
        restartPINTimer()
    }

    private func restartPINTimer() {
        if let typedTimer { session.loop.cancelTimer(typedTimer) }
        typedTimer = session.loop.addTimer(milliseconds: UInt32(Self.pinIdleSeconds * 1000), repeating: false) {
            [weak self] in
            guard let self, typed != nil else { return }
            endPIN()
            announcer.say(phrases.text("kiosk.pin-cancelled"), remember: false)
        }
    }

    private func takePIN(_ event: InputEvent) -> Bool {
        guard var digits = typed else { return false }
        restartPINTimer()
        switch event {
        case .key(.character(let char)) where char.isASCII && char.isNumber:
            guard digits.count < 32 else { return true }
            digits.append(char)
            typed = digits
            session.services.sound.cues?.play(.tap, gain: 0.6)
        case .key(.backspace):
            if !digits.isEmpty { digits.removeLast() }
            typed = digits
        case .typing(.hidden):
            // A digit typed on a terminal (the PIN is taken as a secret line there): a tap, and nothing shown.
            session.services.sound.cues?.play(.tap, gain: 0.6)
        case .key(.enter):
            check(digits)
        case .line(let text):
            // A line at a time where the input is not a terminal: the line is the PIN.
            check(text.trimmingCharacters(in: .whitespaces))
        case .key(.escape):
            endPIN()
            announcer.say(phrases.text("kiosk.pin-cancelled"), remember: false)
        default:
            break  // nothing else counts while the PIN is typed, and nothing is said of it
        }
        return true
    }

    private func endPIN() {
        typed = nil
        session.dispatcher.takingSecret = false
        if let typedTimer { session.loop.cancelTimer(typedTimer) }
        typedTimer = nil
    }

    private func check(_ digits: String) {
        endPIN()
        // A PIN changed with `assist kiosk set-pin` counts from the next try.
        if case .success(let current) = KioskPIN.load(
            from: config.pinFile, environment: ProcessInfo.processInfo.environment)
        {
            pin = current
        }
        let now = Self.now
        if backoff.remaining(at: now) > 0 {
            announcer.say(seconds("kiosk.pin-wait", backoff.remaining(at: now)))
            return
        }
        if !digits.isEmpty && pin.matches(digits) {
            backoff = PINBackoff()
            backoff.save(to: backoffFile)
            session.logger.notice("kiosk: the admin PIN was given")
            session.services.sound.cues?.play(.success)
            openAdminMenu()
        } else {
            let wait = Int(backoff.fail(at: now))
            backoff.save(to: backoffFile)
            session.logger.warning("kiosk: a wrong admin PIN (\(backoff.failures) in a row)")
            session.services.sound.cues?.play(.error)
            announcer.say(seconds("kiosk.pin-wrong", wait), priority: .important)
        }
    }

    // MARK: The admin menu

    private func openAdminMenu() {
        let choices = [
            "kiosk.admin-back", "kiosk.admin-uploads", "kiosk.admin-doctor", "kiosk.admin-features",
            "kiosk.admin-settings", "kiosk.admin-restart", "kiosk.admin-stop",
        ].map { phrases.text($0) }
        ask(phrases.text("kiosk.admin-menu"), choices) { [self] index in
            switch index ?? 0 {
            case 1: sayUploads()
            case 2: runDoctor()
            case 3: chooseFeatures(changed: false)
            case 4:
                SettingsMenu(
                    session: session, ask: { [weak self] in self?.ask($0, $1, then: $2) },
                    keep: { [device] key, value in
                        try KioskAdminFile(device: device).set(key, value)
                        self.session.settings.apply([key: value], admin: true)
                    }, first: UserSetting.kiosk(phrases)
                ) { [weak self] in self?.openAdminMenu() }.show()
            case 5: leave(.restart, phrases.text("kiosk.restarting"))
            case 6: leave(.stop, phrases.text("kiosk.stopping"))
            default: announcer.say(phrases.text("kiosk.back"), remember: false)
            }
        }
    }

    /// A question of the admin menu's: the index chosen, nil when cancelled. The kiosk's rules stand aside
    /// while one is open.
    private func ask(_ prompt: String, _ choices: [String], then: @escaping (Int?) -> Void) {
        adminMenu = session.services.interaction.dialogs.open(
            .choice(prompt: prompt, choices: choices, defaultIndex: 0), owner: "host"
        ) { [weak self] answer in
            self?.adminMenu = nil
            then(answer.status == .answered ? answer.index : nil)
        }
        session.dispatcher.syncConsoleMode()
    }

    /// Every installed feature, allowed or not; choosing one allows it (its library's SHA-256 as it is now,
    /// kept in `kiosk-admin.toml`) or takes it back. Leaving the list after a change restarts the kiosk, which
    /// admits features only as it starts.
    private func chooseFeatures(changed: Bool) {
        let records = session.features.records.filter { $0.manifest != nil }.sorted { $0.name < $1.name }
        let admin = (try? KioskAdminFile(device: device).load().get()) ?? [:]
        let allowed = records.map { record in
            switch admin["kiosk.features.\(record.id)"]?.description {
            case KioskConfig.turnedOff?: return false
            case let hash?: return hash == SHA256Digest.hex(ofFileAt: record.libraryURL)
            case nil: return config.refusal(id: record.id, library: record.libraryURL) == nil
            }
        }
        let labels = zip(records, allowed).map { record, on in
            phrases.text(on ? "kiosk.feature-on" : "kiosk.feature-off", ["name": record.name])
        }
        ask(phrases.text("kiosk.features-title"), labels + [phrases.text("shell.back")]) { [self] index in
            guard let index, index < records.count else {
                return changed ? leave(.restart, phrases.text("kiosk.restarting")) : openAdminMenu()
            }
            let record = records[index]
            let key = "kiosk.features.\(record.id)"
            do {
                if allowed[index] {
                    try KioskAdminFile(device: device).set(key, .string(KioskConfig.turnedOff))
                    announcer.say(phrases.text("kiosk.feature-removed", ["name": record.name]), priority: .important)
                } else if let hash = SHA256Digest.hex(ofFileAt: record.libraryURL) {
                    try KioskAdminFile(device: device).set(key, .string(hash))
                    announcer.say(phrases.text("kiosk.feature-allowed", ["name": record.name]), priority: .important)
                } else {
                    announcer.say(phrases.text("kiosk.feature-unreadable", ["name": record.name]), priority: .important)
                }
                session.logger.notice("kiosk: the admin \(allowed[index] ? "took back" : "allowed") \(record.id)")
            } catch {
                announcer.say(
                    phrases.text("kiosk.admin-not-kept", ["reason": error.localizedDescription]), priority: .important)
            }
            chooseFeatures(changed: true)
        }
    }

    private func sayUploads() {
        do {
            let jobs = try session.services.outbox.store().jobs()
            if jobs.isEmpty {
                announcer.say(phrases.text("kiosk.uploads-none"))
            } else {
                let owners = Dictionary(grouping: jobs, by: \.job.owner).sorted { $0.key < $1.key }.map {
                    "\($0.value.count) for \(session.features.record(id: $0.key)?.name ?? $0.key)"
                }
                announcer.say(
                    phrases.text(
                        "kiosk.uploads", count: jobs.count, ["owners": owners.joined(separator: ", ")]))
            }
        } catch {
            announcer.say(phrases.text("kiosk.uploads-unreadable", ["reason": "\(error)"]))
        }
        // Departed people's, which the kiosk sends in the background (`SittingDrain`).
        let sittings = Sittings(device: device)
        let departed = sittings.departed.reduce(0) { sum, name in
            sum + (SittingDrain.waitingJobs(sittings.path(of: name).appendingPathComponent("outbox.sqlite")) ?? 0)
        }
        if departed > 0 { announcer.say(phrases.text("kiosk.uploads-departed", ["count": String(departed)])) }
        openAdminMenu()
    }

    /// `assist doctor`'s checks, on a worker (they open devices), each line said.
    private func runDoctor() {
        announcer.say(phrases.text("kiosk.doctor-running"), remember: false)
        let ready = HealthChecks(session: session)
        let lines = LockedLines()
        let loop = session.loop
        Thread.detachNewThread {
            lines.set(ready.all().map(ready.line))
            loop.post { self.sayDoctor(lines.get()) }
        }
    }

    private func sayDoctor(_ lines: [String]) {
        for line in lines { announcer.say(line) }
        openAdminMenu()
    }

    /// The admin stops or restarts the kiosk; systemd's stop (SIGTERM) ends it as `.service`.
    package func leave(_ how: Ending, _ sentence: String? = nil) {
        guard ending == nil else { return }
        ending = how
        session.logger.notice(
            "kiosk: \(how == .stop ? "stopped" : how == .restart ? "restarted" : "ended") by the admin")
        if let sentence { announcer.say(sentence, priority: .important) }
        onLeave()
    }
}

/// When a per-person sitting left without input is warned about and ended: a minute before the end (when the
/// idle time is at least two minutes), then at the end. Times are the system's uptime in seconds.
package struct IdleWatch: Equatable, Sendable {
    package let seconds: Double
    private var used: Bool
    private var last: Double
    private var warned = false

    package enum Step: Equatable, Sendable { case none, warn, end }

    package init(seconds: Double, used: Bool, now: Double) {
        self.seconds = seconds
        self.used = used
        last = now
    }

    /// Any input: the sitting is in use, and its idle time starts again.
    package mutating func touched(at now: Double) {
        used = true
        last = now
        warned = false
    }

    /// What to do at `now`: nothing, the warning (once), or the end.
    package mutating func step(at now: Double) -> Step {
        guard used else { return .none }
        let quiet = now - last
        if quiet >= seconds { return .end }
        if seconds >= 120, quiet >= seconds - 60, !warned {
            warned = true
            return .warn
        }
        return .none
    }
}

/// Lines made on a worker, read on the main loop.
private final class LockedLines: @unchecked Sendable {  // because: `lines` is guarded by `lock`
    private let lock = NSLock()
    private var lines: [String] = []
    package func set(_ new: [String]) { lock.withLock { lines = new } }
    package func get() -> [String] { lock.withLock { lines } }
}

import AssistCore
import Foundation
import Interaction
import PluginHost

/// The shell's menu, on the main loop.
package final class ShellMenu: @unchecked Sendable {  // because: used only on the main loop
    private let session: HostSession
    private var menuRequest: UInt64?
    /// The menu was read whole once: come back to, it is said in a line.
    private var menuRead = false
    private var quitting = false
    /// "Quit Assist?" is being asked (a second Ctrl+C then quits).
    private var askingToQuit = false
    /// Features still to run once at start (`at_shell_start`), and what to do when they are done.
    private var startHooks: [PluginRecord] = []
    private var onReady: (() -> Void)?
    /// Earlier sessions that ended unexpectedly, said (and safe mode offered) before the welcome.
    package var crashes: [CrashGuard.Crash] = []
    /// The kiosk's rules, in `assist kiosk`.
    package let kiosk: KioskShell?

    package init(session: HostSession, kiosk: KioskShell? = nil) {
        self.session = session
        self.kiosk = kiosk
    }

    /// Runs the shell (`kiosk`: by its rules) until it is quit, on this thread's main loop.
    package static func run(session: HostSession, microphone: String?, kiosk: KioskShell? = nil) {
        let shell = ShellMenu(session: session, kiosk: kiosk)
        shell.crashes = session.watchForCrashes()
        // A kiosk ends only by its admin or by systemd (SIGTERM); the terminal's signal keys are keys there. A
        // virtual terminal (a test's) leaves the process's signals alone.
        let takesSignals = session.terminal.takesSignals
        if kiosk != nil && takesSignals { [SIGINT, SIGQUIT, SIGTSTP, SIGHUP].forEach { signal($0, SIG_IGN) } }
        // Keys typed while the welcome is said wait for the menu (shutdown gives the terminal back).
        session.console?.claimKeys()
        var signals = session.handleSignals(kiosk == nil ? [SIGTERM, SIGHUP] : [SIGTERM]) {
            kiosk?.leave(.service)
            shell.quit()
        }
        // Ctrl+C is one more way to leave where one is, as Escape and q are: a feature stops, the menu asks.
        if kiosk == nil && takesSignals {
            signals.append(SignalWatch.watch(SIGINT) { session.loop.post { shell.interrupted() } })
        }
        if let kiosk {
            kiosk.onLeave = { shell.quit() }
            kiosk.onMenu = { shell.showMenu() }
            session.dispatcher.intercept = { kiosk.intercept($0) }
            if case .character(let letter) = kiosk.config.adminKey {
                session.dispatcher.lettersAsKeys = [Character(letter.lowercased())]
            }
        }
        defer {
            signals.forEach { $0.cancel() }
            session.shutdown()
        }
        // The menu is set up before the first key is read, so early input is never lost (nor taken by a
        // feature that runs at start).
        session.loop.post {
            session.startView()
            session.notifyReady()
            shell.start { session.startInput() }
        }
        // Voice commands, as voice.mode says; the phrases follow the focused feature.
        let voice = VoiceSessionBox()
        session.loop.post {
            voice.session = VoiceSession.start(session: session, microphone: microphone)
            guard voice.session != nil else { return }
            session.loop.addTimer(milliseconds: 500, repeating: true) {
                voice.session?.focusChanged(to: session.features.focused?.id)
            }
        }
        defer { voice.session?.stop() }
        session.loop.run()
    }

    private var foreground: [PluginRecord] {
        let records = session.features.records.filter { $0.isUsable && !($0.manifest?.isBackground ?? false) }
        return kiosk?.offered(records) ?? records
    }

    /// Welcomes the user, runs the features that speak at start one after the other, then opens the menu and
    /// calls `ready` (which starts reading the keyboard).
    package func start(ready: @escaping () -> Void) {
        guard crashes.isEmpty else { return offerSafeMode(then: ready) }
        let features = session.features
        features.onFeatureEnded = { [weak self] _, _ in
            guard let self, !self.quitting, features.focused == nil else { return }
            session.loop.post { self.runStartHooksOrShowMenu() }
        }
        session.dispatcher.onEndOfInput = { [weak self] in self?.quit() }
        session.dispatcher.launchKeywords = keywords()
        session.dispatcher.onLaunch = { [weak self] id, arguments in self?.launch(id: id, arguments: arguments) }
        for record in session.features.records where record.isUsable && (record.manifest?.isBackground ?? false) {
            session.features.activate(record)
        }
        let count = foreground.count
        session.announcer.say(session.phrases.text("shell.welcome", count: count), group: .greeting)
        // Features that have something to say when Assist starts (a survey reminder) run once, before the menu;
        // not in a kiosk's quiet hours.
        startHooks = kiosk?.isQuiet == true ? [] : foreground.filter { $0.manifest?.atShellStart != nil }
        onReady = ready
        runStartHooksOrShowMenu()
    }

    /// After an unexpected end: says which feature was open, and offers to start with Assist's own features
    /// only when others are installed (yes by Enter: the crash may come again). Then starts as usual.
    private func offerSafeMode(then ready: @escaping () -> Void) {
        let crashes = self.crashes
        self.crashes = []
        for crash in crashes { session.announcer.say(session.crashNote(crash), priority: .important) }
        let others = session.features.records.filter { $0.isUsable && !$0.id.hasPrefix("assist.") }
        guard !others.isEmpty, !quitting else { return start(ready: ready) }
        session.dispatcher.syncConsoleMode()
        _ = session.services.interaction.dialogs.open(
            .confirm(prompt: session.phrases.text("host.safe-mode-offer"), defaultYes: true, timeoutMs: 0),
            owner: "host"
        ) { [weak self] answer in
            guard let self else { return }
            if answer.status == .answered && answer.yes == true {
                for record in others { record.refuse(.disabled(session.phrases.text("host.safe-mode-reason"))) }
                session.announcer.say(session.phrases.text("host.safe-mode-on"))
            }
            // The keyboard is already read (it gave the answer).
            session.loop.post { self.start(ready: {}) }
        }
        ready()
    }

    /// The next start-up feature, or, when none is left, the menu and the keyboard.
    private func runStartHooksOrShowMenu() {
        while !startHooks.isEmpty {
            let record = startHooks.removeFirst()
            if session.features.activate(record, arguments: record.manifest?.atShellStart ?? [], asking: false) {
                return
            }
        }
        // A kiosk's own feature: started by itself once, and after each end when there is no menu.
        if !quitting, session.features.focused == nil, let id = kiosk?.featureToStart(),
            let record = session.features.record(id: id), record.isUsable, session.features.activate(record)
        {
            readyOnce()
            return
        }
        // Once for each user, before the first menu (after what speaks at start): how to hear the tour.
        if onReady != nil, kiosk == nil, session.firstTime("tour-offer") {
            session.announcer.say(session.phrases.text("shell.tour-offer"), group: .greeting)
        }
        showMenu()
        readyOnce()
    }

    /// Starts reading the keyboard, the first time only.
    private func readyOnce() {
        if let ready = onReady {
            onReady = nil
            ready()
        }
    }

    /// Ctrl+C (SIGINT from the terminal): inside a feature it stops that feature and the menu comes back, as
    /// Escape does; at the menu it asks "Quit Assist?", and a second Ctrl+C while that is asked quits.
    package func interrupted() {
        guard !quitting else { return }
        if session.features.focused != nil {
            session.features.stopFocused()
            return
        }
        if askingToQuit { return quit() }
        session.announcer.silence()
        if let menuRequest {
            // Withdrawn for the question; its cancellation is ignored once forgotten.
            self.menuRequest = nil
            session.services.interaction.dialogs.cancel(menuRequest)
        }
        askToQuit()
    }

    package func quit() {
        guard !quitting else { return }
        // A kiosk is left only by its admin (or stopped by systemd).
        if let kiosk, kiosk.ending == nil {
            kiosk.refuseEscape()
            return
        }
        quitting = true
        if let menuRequest {
            // Its cancellation finds the shell quitting.
            self.menuRequest = nil
            session.services.interaction.dialogs.cancel(menuRequest)
        }
        session.announcer.say(session.phrases.text("shell.goodbye"), priority: .important)
        session.features.stopAll()
        session.loop.stop()
    }

    /// One line of the menu.
    private enum MenuEntry {
        /// A feature to start.
        case start(PluginRecord)
        /// A feature running in the background (photo-sensor): its own menu, or its commands.
        case background(PluginRecord)
        /// A feature turned off after it stopped unexpectedly, offered to be turned on again.
        case turnedOff(PluginRecord)
        /// A feature the user turned off (`assist plugins disable`, or here), offered to be turned on again.
        case userTurnedOff(PluginRecord)
        /// What each feature may use (the camera, the microphone, the network), changed by ear.
        case permissions
        /// The spoken settings: speech, cues, language, voice and the features' own.
        case settings
        case quit
        /// A per-person kiosk's "I'm done".
        case done
    }

    /// The features to start, then (outside a kiosk) those in the background and those turned off, then Quit.
    private func menuEntries() -> [MenuEntry] {
        var entries = foreground.map(MenuEntry.start)
        if let kiosk { return entries + (kiosk.config.perPerson ? [.done] : []) }
        let records = session.features.records
        entries += records.filter { $0.isRunning && ($0.manifest?.isBackground ?? false) }.map(MenuEntry.background)
        let crashed = CrashGuard(data: session.paths.records).disabledPlugins()
        entries += records.filter { $0.state == .disabled && crashed[$0.id] != nil }.map(MenuEntry.turnedOff)
        let chosen = access.store.load()
        entries += records.filter { $0.state == .disabled && crashed[$0.id] == nil && chosen[$0.id]?.disabled == true }
            .map(MenuEntry.userTurnedOff)
        // Where it matters: a stranger's plugin asks for something, or the user changed something already.
        // Assist's own features alone keep the menu as it was.
        // After Settings, so that it appearing (at the first answer to a feature's question) renumbers nothing
        // but Quit, which Escape and q reach too.
        entries.append(.settings)
        if !permissionHolders.isEmpty, !chosen.isEmpty || permissionHolders.contains(where: \.isolated) {
            entries.append(.permissions)
        }
        return entries + [.quit]
    }

    private var access: PluginAccess { PluginAccess(paths: session.paths) }

    /// The features that ask for anything a user can give or take.
    private var permissionHolders: [PluginRecord] {
        session.features.records.filter { record in
            record.isUsable && !(record.manifest?.declaredPermissions.isEmpty ?? true)
        }
    }

    private func label(_ entry: MenuEntry) -> String {
        switch entry {
        case .start(let record): return record.name
        case .background(let record): return session.phrases.text("shell.background-entry", ["name": record.name])
        case .turnedOff(let record): return session.phrases.text("shell.turned-off-entry", ["name": record.name])
        case .userTurnedOff(let record):
            return session.phrases.text("shell.user-turned-off-entry", ["name": record.name])
        case .permissions: return session.phrases.text("shell.permissions")
        case .settings: return session.phrases.text("shell.settings")
        case .quit: return session.phrases.text("shell.quit")
        case .done: return session.phrases.text("kiosk.done-entry")
        }
    }

    private func showMenu() {
        guard !quitting, session.features.focused == nil, menuRequest == nil else { return }
        let entries = menuEntries()
        let prompt = session.phrases.text("shell.choose")
        // Read whole the first time; come back to, it is shown and said in a line ("repeat" reads it whole).
        let brief = menuRead ? session.phrases.text("shell.menu-again", ["count": String(entries.count)]) : nil
        menuRead = true
        menuRequest = session.services.interaction.dialogs.open(
            .choice(prompt: prompt, choices: entries.map(label), defaultIndex: nil), owner: "host", yields: true,
            help: kiosk == nil ? session.phrases.text("shell.menu-help") : nil, brief: brief
        ) { [weak self] answer in
            guard let self, menuRequest == answer.request else { return }
            menuRequest = nil
            switch answer.status {
            case .answered:
                guard let index = answer.index, index < entries.count else { return quit() }
                choose(entries[index])
            case .cancelled, .timedOut:
                guard kiosk != nil else { return askToQuit() }
                quit()
                // A kiosk's menu comes back (quit refused to leave).
                if kiosk?.ending == nil { session.loop.post { self.showMenu() } }
            }
        }
        session.dispatcher.syncConsoleMode()
    }

    private func choose(_ entry: MenuEntry) {
        switch entry {
        case .start(let record): launch(record)
        case .background(let record): openBackground(record)
        case .turnedOff(let record): offerToTurnOn(record)
        case .userTurnedOff(let record): offerToTurnOn(record)
        case .permissions: choosePermissionHolder()
        case .settings:
            SettingsMenu(session: session, ask: { [weak self] in self?.ask($0, $1, then: $2) }) { [weak self] in
                self?.showMenu()
            }.show()
        case .quit: quit()
        case .done: kiosk?.askDone()
        }
    }

    /// A choice among the features that ask for anything, then `editPermissions`; Back or Escape is the menu.
    private func choosePermissionHolder() {
        let holders = permissionHolders
        let phrases = session.phrases
        ask(
            phrases.text("shell.permissions-whose"), holders.map(\.name) + [phrases.text("shell.back")]
        ) { [weak self] index in
            guard let self else { return }
            guard let index, index < holders.count else { return showMenu() }
            editPermissions(holders[index])
        }
    }

    /// Each permission `record` asks for, with its state: choosing one turns it on or off (said, and kept in
    /// `<data>/plugin-permissions.json`); "Turn NAME off" turns the feature off; Back returns to the features.
    private func editPermissions(_ record: PluginRecord) {
        guard let manifest = record.manifest else { return showMenu() }
        let phrases = session.phrases
        let asked = PluginPermission.allCases.filter(manifest.declaredPermissions.contains)
        let chosen = access.store.choices(record.id)
        let access = access
        let labels = asked.map { permission in
            let on = (chosen[permission] ?? true) && !access.withheld(permission, from: record)
            let key = on ? "shell.permission-on" : "shell.permission-off"
            return phrases.text(key, ["permission": phrases.text("permission.\(permission.rawValue)-name")])
        }
        let turnOff = phrases.text("shell.turn-off-feature", ["name": record.name])
        ask(
            phrases.text("shell.permissions-of", ["name": record.name]),
            labels + [turnOff, phrases.text("shell.back")]
        ) { [weak self] index in
            guard let self else { return }
            guard let index, index <= asked.count else { return choosePermissionHolder() }
            if index == asked.count {
                do {
                    try access.setDisabled(record.id, true)
                    record.refuse(.disabled("turned off; assist plugins enable \(record.id) turns it on again"))
                    session.announcer.say(phrases.text("shell.turned-off", ["name": record.name]))
                } catch {
                    session.announcer.say((error as? CLIFailure)?.message ?? "\(error)", priority: .important)
                }
                return showMenu()
            }
            let permission = asked[index]
            let on = !((chosen[permission] ?? true) && !access.withheld(permission, from: record))
            do {
                try access.change(record, manifest, [permission: on])
                let spoken = phrases.text("permission.\(permission.rawValue)")
                session.announcer.say(
                    phrases.text(
                        on ? "shell.permission-changed-on" : "shell.permission-changed-off",
                        ["name": record.name, "permission": spoken]))
            } catch {
                session.announcer.say((error as? CLIFailure)?.message ?? "\(error)", priority: .important)
            }
            editPermissions(record)
        }
    }

    /// Asks a choice as the menu does (its request is the menu's); `then` hears the index, nil when cancelled.
    private func ask(_ prompt: String, _ choices: [String], then: @escaping (Int?) -> Void) {
        menuRequest = session.services.interaction.dialogs.open(
            .choice(prompt: prompt, choices: choices, defaultIndex: nil), owner: "host", yields: true
        ) { [weak self] answer in
            guard let self, menuRequest == answer.request else { return }
            menuRequest = nil
            then(answer.status == .answered ? answer.index : nil)
        }
        session.dispatcher.syncConsoleMode()
    }

    /// A background feature chosen from the menu: the command its name stands for (photo-sensor's own menu),
    /// else its commands said; the menu comes back once its question, if any, is answered.
    private func openBackground(_ record: PluginRecord) {
        let router = session.services.interaction.router
        if let command = router.resolveGlobal(.line(record.name)), command.owner == record.id {
            session.features.handle(command)
        } else {
            session.announcer.say(session.phrases.text("shell.background-commands", ["name": record.name]))
            // Its own commands, not the host's that help lists beside them.
            let own = Set(router.allBindings.filter { $0.owner == record.id }.map(\.id))
            for entry in router.help(for: record.id) where own.contains(entry.id) {
                guard let phrase = entry.phrase else { continue }
                session.announcer.say("\(entry.label): \"\(phrase)\"", remember: false)
            }
        }
        // Its question arrives from its helper a moment later; the menu waits behind it.
        session.loop.addTimer(milliseconds: 300, repeating: false) { [weak self] in self?.showMenu() }
    }

    /// A feature turned off (after crashes, or by the user), chosen: asked first, then turned on again (its
    /// crashes forgotten).
    private func offerToTurnOn(_ record: PluginRecord) {
        menuRequest = session.services.interaction.dialogs.open(
            .confirm(
                prompt: session.phrases.text("shell.turn-on-ask", ["name": record.name]), defaultYes: false,
                timeoutMs: 0), owner: "host", yields: true
        ) { [weak self] answer in
            guard let self, menuRequest == answer.request else { return }
            menuRequest = nil
            if answer.status == .answered, answer.yes {
                CrashGuard(data: session.paths.records).reset(record.id)
                try? access.setDisabled(record.id, false)
                record.enable()
                session.announcer.say(session.phrases.text("shell.turned-on", ["name": record.name]))
            }
            showMenu()
        }
        session.dispatcher.syncConsoleMode()
    }

    /// Escape at the menu asks first ("Quit Assist? Y or N."): yes quits; no, or Escape again, brings the menu
    /// back. Choosing Quit from the menu, Ctrl+C, SIGTERM, SIGHUP or the end of input quit at once.
    private func askToQuit() {
        // With nobody left to answer (the input ended), there is nothing to ask.
        guard !session.services.interaction.dialogs.inputEnded else { return quit() }
        askingToQuit = true
        menuRequest = session.services.interaction.dialogs.open(
            .confirm(prompt: session.phrases.text("shell.quit-ask"), defaultYes: false, timeoutMs: 0), owner: "host",
            yields: true
        ) { [weak self] answer in
            guard let self, menuRequest == answer.request else { return }
            menuRequest = nil
            askingToQuit = false
            if answer.status == .answered, answer.yes { quit() } else { showMenu() }
        }
        session.dispatcher.syncConsoleMode()
    }

    private func launch(id: String, arguments: [String]) {
        guard let record = session.features.record(id: id) else { return }
        if let menuRequest {
            self.menuRequest = nil
            // Withdrawing the menu would quit; forget it first so its cancellation is ignored.
            session.services.interaction.dialogs.cancel(menuRequest)
        }
        if record.isRunning, record.manifest?.isBackground == true { return openBackground(record) }
        launch(record, arguments: arguments)
    }

    private func launch(_ record: PluginRecord, arguments: [String] = []) {
        session.announcer.say(session.phrases.text("shell.starting", ["name": record.name]), remember: false)
        if !session.features.activate(record, arguments: arguments) {
            showMenu()
        }
    }

    private func keywords() -> [String: InputDispatcher.Launch] {
        var table: [String: InputDispatcher.Launch] = [:]
        let language = session.phrases.language
        // A background feature's name, typed or said, reaches it (`launch(id:arguments:)`): its own menu while it
        // runs; when it is not running here (photo-sensor with no folder to watch) it is not in the menu, which it
        // would lengthen for everyone, and Assist's own says why on `status`.
        for record in session.features.records where record.isUsable && (record.manifest?.isBackground ?? false) {
            table[CommandRouter.normalise(record.name)] = InputDispatcher.Launch(
                id: record.id, arguments: record.id.hasPrefix("assist.") ? ["status"] : [], takesWords: false)
        }
        for record in foreground {
            for keyword in record.manifest?.keywords ?? [] where keyword.scope != "focused" {
                guard keyword.lang == nil || keyword.lang == language else { continue }
                table[CommandRouter.normalise(keyword.phrase)] = InputDispatcher.Launch(
                    id: record.id, arguments: keyword.arguments ?? [], takesWords: keyword.takes != nil)
            }
        }
        return table
    }
}

/// The voice session, made on the main loop once the shell has started.
package final class VoiceSessionBox: @unchecked Sendable {  // because: set and read on the main loop
    package var session: VoiceSession?
}

import AssistCore
import Foundation
import Interaction
import Logging
import PluginABI
import PluginAPI

/// Loads plugins on demand, starts and stops features, and routes commands to the focused one.
///
/// Used only on the main loop.
package final class FeatureController: SessionDelegate, @unchecked Sendable {  // because: used only on the main loop
    let services: HostServices
    /// Every plugin discovered, in search order.
    package private(set) var records: [PluginRecord]
    /// The foreground feature that has the focus, if any.
    package private(set) var focused: PluginRecord?
    /// True while the focused feature is paused.
    package private(set) var isPaused = false
    /// Called when a feature ends: by `finish`, by the stop command or by a failure. Status 0 is success.
    package var onFeatureEnded: ((PluginRecord, Int32) -> Void)?
    /// Called with the focused feature's id whenever the focus changes (nil: none), before its code runs.
    package var onFocusChanged: ((String?) -> Void)?

    package init(services: HostServices, records: [PluginRecord]) {
        self.services = services
        self.records = records
        services.sessionDelegate = self
        // A feature that pauses or resumes itself (find-object after its quiet minutes) says so with the event
        // `<id>.paused` or `<id>.resumed`: Space then does the opposite, never "Paused." a second time.
        services.events.subscribe(prefix: "") { [weak self] name, _ in
            guard let self, let focused, name.hasPrefix("\(focused.id).") else { return }
            switch name.dropFirst(focused.id.count + 1) {
            case "paused": isPaused = true
            case "resumed": isPaused = false
            default: break
            }
        }
    }

    var announcer: Announcer { services.interaction.announcer }
    var phrases: PhraseBook { services.interaction.phrases }

    /// The first record with `id`.
    package func record(id: String) -> PluginRecord? {
        records.first { $0.id == id }
    }

    /// A plugin from outside the session's search path (`plugins check`, an install's staging folder), placed
    /// where a session would run it: a stranger's plugin in a sandboxed helper, so that checking or installing
    /// it never runs its code with the user's rights.
    package func inspect(manifestURL: URL, libraryDirectory: URL) -> PluginRecord {
        let record = PluginDiscovery.inspect(
            manifestURL: manifestURL, libraryDirectory: libraryDirectory, availableServices: HostServices.serviceIDs)
        record.language = phrases.language
        if services.helperExecutable != nil {
            record.isolated = HostAssembly.runsInHelper(record, settings: services.settings, paths: services.paths)
        }
        return record
    }

    /// Opens and initialises `record`'s library if it is not yet; returns the refusal, if any.
    @discardableResult
    package func load(_ record: PluginRecord) -> PluginRefusal? {
        if record.state == .loaded { return nil }
        guard record.state == .available, let manifest = record.manifest else {
            return PluginRefusal(state: record.state, message: record.reason ?? "not available")
        }
        let context = PluginContext(
            manifest: manifest, pluginDirectory: record.manifestURL.deletingLastPathComponent(), servedBy: services)
        if record.isolated, let executable = services.helperExecutable {
            let loop = services.loop
            let watch = HelperWatch()
            record.helperWatch = watch
            let gate = context.services.permissions
            let result = PluginLoader.openIsolated(
                record, host: context.host, executable: executable, sandbox: sandboxPolicy(record, context: context),
                timeoutMilliseconds: Int(services.settings.value("plugins.helper-timeout-ms")?.integer ?? 5000),
                watch: watch,
                onDeath: { [weak self] how, expected in
                    guard !expected, let controller = self else { return }
                    loop.post { controller.helperEnded(record, watch: watch, how: how) }
                },
                onRefused: { kinds in gate.refused(.sandbox(kinds)) })
            switch result {
            case .success(let (entry, helper)):
                record.markLoaded(entry: entry, context: context)
                record.helper = helper
                let sandbox = helper.sandbox
                services.logger.info(
                    "loaded \(record.id) in helper process \(helper.pid) from \(record.libraryURL.path); sandbox: \(sandbox.layers.description)"
                )
                if !sandbox.layers.isFull { warnUnsandboxed(record, missing: sandbox.missing) }
                return nil
            case .failure(let refusal):
                // A helper that died while loading is told by `helperEnded`; the record stays available.
                if refusal.state != .crashed { record.refuse(refusal) }
                services.logger.warning("skipped \(record.id): \(refusal.message)")
                return refusal
            }
        }
        _ = showOffers(record, context: context)
        switch PluginLoader.open(record, host: context.host) {
        case .success(let entry):
            record.markLoaded(entry: entry, context: context)
            services.logger.info("loaded \(record.id) from \(record.libraryURL.path)")
            return nil
        case .failure(let refusal):
            record.refuse(refusal)
            services.logger.warning("skipped \(record.id): \(refusal.message)")
            return refusal
        }
    }

    /// Starts `record` with `arguments`; a foreground feature takes the focus from the one running.
    /// On failure the reason is spoken and printed, and false is returned. Started by the person (`asking`),
    /// Assist's own feature asks first for what nobody was asked about yet (`asksFirstUse`); a shell's start-up
    /// hook (the survey's reminder) does not ask.
    @discardableResult
    package func activate(_ record: PluginRecord, arguments: [String] = [], asking: Bool = true) -> Bool {
        if asking, let permission = unasked(record, arguments: arguments).first {
            askFirstUse(permission, record, arguments: arguments)
            return true
        }
        if let refusal = load(record) {
            if refusal.state == .crashed {
                endNow(record)
                return false
            }
            announcer.say(
                phrases.text("feature.unavailable", ["name": record.name, "reason": refusal.message]),
                priority: .important)
            return false
        }
        guard let context = record.context, let entry = record.entry, let create = entry.create else { return false }
        startArguments[record.id] = arguments
        let isForeground = !(record.manifest?.isBackground ?? false)
        if isForeground, let current = focused { deactivate(current, status: ASSIST_OK) }
        if context.instance != nil { return true }  // a background plugin already running

        var error: UnsafeMutablePointer<CChar>?
        guard let instance = create(context.host, &error) else {
            if let helper = record.helper, !helper.isAlive {
                endNow(record)
                return false
            }
            let reason = ServiceTables.takeError(error) ?? phrases.text("feature.create-failed", ["name": record.name])
            record.refuse(.createFailed(reason))
            announcer.say(reason, priority: .important)
            return false
        }
        guard let table = assist_plugin.read(instance), let start = table.start else {
            context.misbehaving("create returned a plugin table that is too small or has no start")
            record.refuse(.entryInvalid("the plugin table from create is too small or has no start"))
            return false
        }
        context.table = table
        context.instance = instance
        if isForeground {
            focused = record
            isPaused = false
            onFocusChanged?(record.id)
        }
        services.events.publish("assist.plugin.started", json: #"{"id":"\#(record.id)"}"#)
        sayOnceWhenEnglishOnly(record)
        let status = withCStrings(arguments) { argv in start(instance, Int32(arguments.count), argv, &error) }
        guard status == ASSIST_OK else {
            let reason = ServiceTables.takeError(error) ?? phrases.text("feature.start-failed", ["name": record.name])
            let crashed = !(record.helper?.isAlive ?? true)
            if !crashed { announcer.say(reason, priority: .important) }
            teardown(record, callStop: false)
            if crashed { endNow(record) }
            tellEnded(record, status)
            return false
        }
        return true
    }

    /// Whether Assist's own feature asks the person, the first time it starts, for each device and the
    /// network its manifest declares (issue 34): set where someone can answer (a terminal, not a kiosk) and
    /// `plugins.ask-first-use` is not off. Elsewhere what it declares is given, as before.
    package var asksFirstUse = false

    /// Stops `record`, frees its instance and tells `onFeatureEnded`.
    /// Stops the focused feature as Escape, `q` or "stop" does (Ctrl+C in the shell too), saying so; silence
    /// when none is. Returns whether one was. Main loop.
    @discardableResult
    package func stopFocused() -> Bool {
        announcer.silence()
        guard let focused else { return false }
        // Said first: what the feature says as it stops ("your answers are kept") follows.
        announcer.say(phrases.text("feature.stopped", ["name": focused.name]), priority: .important)
        deactivate(focused, status: ASSIST_OK)
        return true
    }

    package func deactivate(_ record: PluginRecord, status: Int32) {
        guard record.context?.instance != nil else { return }
        teardown(record, callStop: true)
        tellEnded(record, status)
    }

    /// Stops every running plugin, foreground and background, as the host exits.
    package func stopAll() {
        for record in records where record.context?.instance != nil {
            teardown(record, callStop: true)
        }
    }

    private func teardown(_ record: PluginRecord, callStop: Bool) {
        guard let context = record.context, let instance = context.instance else { return }
        context.services.dialogs.cancelAll()
        let table = context.table
        if callStop { table.stop?(instance) }
        let helperDied = record.helper.map { !$0.isAlive } ?? false
        // No frame may reach the instance once it is destroyed.
        context.endCameraSubscription()
        context.instance = nil
        table.destroy?(instance)
        context.releaseHoldings()
        // A helper process serves one instance: it leaves with it, and the next start loads the plugin again.
        // What its sandbox refused since the last ping is asked first, so nothing refused goes untold.
        if let helper = record.helper {
            if !helperDied { helper.checkRefused() }
            helper.close()
            record.markUnloaded()
        }
        if helperDied { endNow(record) }
        if focused === record {
            focused = nil
            isPaused = false
            onFocusChanged?(nil)
        }
        services.events.publish("assist.plugin.stopped", json: #"{"id":"\#(record.id)"}"#)
    }

    /// Runs a routed command for the focused feature: the host's own (stop, help, repeat, pause toggle) or
    /// the feature's.
    package func handle(_ command: RoutedCommand, confirmed: Bool = false) {
        if !confirmed, let question = confirmation(for: command) {
            // Destructive or costly: asked first, by voice or key; only yes goes on (Escape, no: nothing done).
            services.interaction.dialogs.askFirst(question, owner: CommandRouter.hostOwner) { [weak self] in
                self?.handle(command, confirmed: true)
            }
            return
        }
        switch command.id {
        case "repeat":
            if !announcer.repeatLast() { announcer.say(phrases.text("host.nothing-to-repeat")) }
            return
        case "help":
            speakHelp()
        case CommandRouter.whatCanISay:
            speakPhrases()
            return
        case CommandRouter.tutorial:
            speakTour()
            return
        case CommandRouter.typeCommand:
            announcer.say(phrases.text("typing.how"), remember: false)
            return
        case "stop":
            stopFocused()
            return
        default:
            break
        }
        // A global command goes to its owner wherever the focus is (a background feature's "sync photos now");
        // the rest go to the focused feature.
        let owner =
            command.owner == CommandRouter.hostOwner || command.owner == focused?.id
            ? focused : records.first { $0.id == command.owner && $0.context?.instance != nil }
        guard let record = owner, let context = record.context, let instance = context.instance else {
            if command.id != "help" { announcer.say(phrases.text("host.no-feature")) }
            return
        }
        if command.owner == CommandRouter.hostOwner, record.manifest?.unusedCommands?.contains(command.id) == true {
            announcer.say(
                phrases.text(
                    "host.command-unused",
                    ["command": phrases.lookup("command.\(command.id)") ?? command.id, "name": record.name]),
                remember: false)
            return
        }
        switch command.id {
        case CommandRouter.pauseToggle, "pause",
            "resume" where record === focused:
            let pause = command.id == "pause" || (command.id == CommandRouter.pauseToggle && !isPaused)
            guard pause != isPaused else { return }
            isPaused = pause
            if pause {
                context.table.pause?(instance)
                _ = context.services.speech.pause()
            } else {
                context.services.speech.resume()
                context.table.resume?(instance)
            }
            if let helper = record.helper, !helper.isAlive {
                endNow(record)
                return
            }
            announcer.say(phrases.text(pause ? "host.paused" : "host.resumed"), priority: .important, remember: false)
        default:
            guard let onCommand = context.table.on_command else { return }
            command.id.withCString { name in
                if let argument = command.argument {
                    argument.withCString { onCommand(instance, name, $0) }
                } else {
                    onCommand(instance, name, nil)
                }
            }
            if let helper = record.helper, !helper.isAlive { endNow(record) }
        }
    }

    /// The question to ask before `command` acts: its plugin's (`set_confirmation`), or, for stop while the
    /// focused feature records from the microphone, whether to stop the recording.
    private func confirmation(for command: RoutedCommand) -> String? {
        let router = services.interaction.router
        if let question = router.confirmation(for: command) { return question }
        guard command.id == "stop", command.owner == CommandRouter.hostOwner, let focused else { return nil }
        // The feature's own question before it is left (collect-videos while filming), set for "stop".
        if let question = router.confirmation(for: RoutedCommand(id: "stop", owner: focused.id)) { return question }
        return services.sound.microphoneUse.inUse ? phrases.text("voice.confirm-stop-recording") : nil
    }

    /// A feature whose manifest does not name the user's language speaks English: said once a session, so a
    /// Russian or Chinese speaker knows it is the feature, not a fault.
    private func sayOnceWhenEnglishOnly(_ record: PluginRecord) {
        let language = phrases.language
        guard language != "en", let languages = record.manifest?.languages, !languages.contains(language),
            saidEnglishOnly.insert(record.id).inserted
        else { return }
        announcer.say(phrases.text("feature.english-only", ["name": record.name]))
    }

    /// Speaks the commands of the focused feature, one per line: "Stop: Escape, q, or "stop"".
    package func speakHelp() {
        announcer.say(phrases.text("help.title", ["name": focused?.name ?? "Assist"]), group: .list)
        let unused = Set(focused?.manifest?.unusedCommands ?? [])
        for entry in services.interaction.router.help(for: focused?.id) where !unused.contains(entry.id) {
            var keys = entry.keys.map { phrases.lookup("key.\($0.description)") ?? $0.description }
            // Digits in a row (a survey's numbered options) are said as a range: "0 to 9".
            let digits = entry.keys.compactMap { key -> Int? in
                if case .character(let character) = key { return character.wholeNumberValue }
                return nil
            }
            var phrase = entry.phrase
            if digits.count > 3, digits.count == keys.count, digits == Array(digits[0]...digits[0] + digits.count - 1) {
                phrase = nil  // the numbers themselves, typed or said
                keys = [
                    phrases.text(
                        "help.keys-from-to", ["first": "\(digits[0])", "last": "\(digits[digits.count - 1])"])
                ]
            }
            var how = keys.joined(separator: ", ")
            if let phrase {
                how += (how.isEmpty ? "" : phrases.text("help.or")) + "\"\(phrase)\""
            }
            announcer.say("\(entry.label): \(how)", priority: .message, remember: false, group: .list)
        }
    }

    /// How many sentences the tour has (`tour.1` … in the phrase tables).
    static let tourSentences = 9

    /// The spoken tour of Assist ("help tutorial"): the menu, voice, the keys every feature shares, the
    /// settings, two features, the recognisers' limits. A key ends it where it is.
    package func speakTour() {
        for index in 1...Self.tourSentences {
            announcer.say(phrases.text("tour.\(index)"), priority: .message, remember: false, group: .list)
        }
    }

    /// Stops what is left of the tour, or of a list read out (help, the phrases heard): a key was pressed.
    package func endLists() {
        announcer.cancel(.list)
    }

    /// The phrases voice hears now, in this focus (set by the voice session; nil while voice is off).
    package var phrasesHeard: (() -> [String])?

    /// Says, one a line, what can be said now: the phrases voice listens for in this focus, or, with voice off,
    /// that the same words can be typed after the command key.
    package func speakPhrases() {
        guard let heard = phrasesHeard?(), !heard.isEmpty else {
            announcer.say(phrases.text("voice.phrases-off"))
            return
        }
        announcer.say(phrases.text("voice.phrases-title", ["name": focused?.name ?? "Assist"]), group: .list)
        // Launch phrases and the feature's own first, the host's one-word commands after them.
        let hostWords = Set(
            services.interaction.router.allBindings.filter { $0.owner == CommandRouter.hostOwner }
                .flatMap(\.phrases))
        for phrase in heard.filter({ !hostWords.contains($0) }) + heard.filter({ hostWords.contains($0) }) {
            announcer.say(phrase, priority: .message, remember: false, group: .list)
        }
    }

    /// Names of plugins already warned of running without their full sandbox this session.
    var warnedUnsandboxed = Set<String>()
    /// Features already said to speak English only this session.
    private var saidEnglishOnly = Set<String>()

    /// The words each feature was last started with, to start it again after a crash.
    private var startArguments: [String: [String]] = [:]
    /// How many times each feature's end was told.
    var endsTold: [String: Int] = [:]

    /// Records of helper crashes, and the plugins they turned off.
    private lazy var crashGuard = CrashGuard(data: services.paths.records)

    /// `record`'s helper process ended unexpectedly (`how`: "crashed in start (SIGSEGV)"): the host keeps
    /// running, closes the feature without calling into it, says so and records the crash. A feature that was
    /// running is started again once, `CrashGuard.restartDelay` later, with the words it was started with; the
    /// `CrashGuard.helperCrashesToDisable`th crash within `CrashGuard.helperWindow` turns the plugin off.
    /// Main loop.
    func helperEnded(_ record: PluginRecord, watch: HelperWatch, how: String) {
        guard !watch.handled else { return }
        watch.handled = true
        services.logger.error("plugin-crashed: \(record.id): its helper process \(how)")
        let wasRunning = record.context?.instance != nil
        let wasFocused = focused === record
        record.context?.abandonDatabases()
        // The stand-in answers every call at once now: dialogs, timers and speech are given back as usual.
        if wasRunning { teardown(record, callStop: false) }
        record.markUnloaded()
        let json = try? JSONSerialization.data(withJSONObject: ["id": record.id, "how": how], options: [.sortedKeys])
        services.events.publish("assist.plugin.crashed", json: json.flatMap { String(data: $0, encoding: .utf8) })
        let crash = crashGuard.recordHelperCrash(record.id, how: how, library: record.libraryURL)
        if let reason = crash.disabled {
            record.refuse(.disabled(reason))
            announcer.say(
                phrases.text(
                    "plugin.helper-disabled",
                    [
                        "name": record.name, "id": record.id, "count": "\(crash.recent)",
                        "minutes": "\(Int(CrashGuard.helperWindow / 60))",
                    ]), priority: .important)
        } else if wasRunning, crash.recent == 1 {
            announcer.say(phrases.text("plugin.helper-restarting", ["name": record.name]), priority: .important)
            let arguments = startArguments[record.id] ?? []
            services.loop.addTimer(milliseconds: UInt32(CrashGuard.restartDelay * 1000), repeating: false) {
                [weak self] in self?.restart(record, arguments: arguments, wasFocused: wasFocused)
            }
            return
        } else {
            announcer.say(phrases.text("plugin.helper-died", ["name": record.name]), priority: .important)
        }
        if wasRunning { tellEnded(record, ASSIST_E_INTERNAL) }
    }

    /// Starts again a feature that stopped unexpectedly, unless the user started another meanwhile (a
    /// foreground one) or it cannot be; the feature's end is told then, as for any other. Main loop.
    private func restart(_ record: PluginRecord, arguments: [String], wasFocused: Bool) {
        guard record.isUsable, record.context?.instance == nil, !wasFocused || focused == nil else {
            tellEnded(record, ASSIST_E_INTERNAL)
            return
        }
        services.logger.notice("restarting \(record.id) after its helper process ended")
        let told = endsTold[record.id, default: 0]
        // A start that failed has told the feature's end already; a refusal before it has not.
        if !activate(record, arguments: arguments), endsTold[record.id, default: 0] == told {
            tellEnded(record, ASSIST_E_INTERNAL)
        }
    }

    /// Tells `onFeatureEnded` that `record` ended with `status`, and counts it.
    func tellEnded(_ record: PluginRecord, _ status: Int32) {
        endsTold[record.id, default: 0] += 1
        onFeatureEnded?(record, status)
    }

    /// Tells the end of `record`'s helper, seen by a call that failed, at once rather than when the death
    /// handler's report arrives (`assist run` may have ended by then). Main loop.
    private func endNow(_ record: PluginRecord) {
        guard let watch = record.helperWatch, !watch.handled, let helper = watch.helper else { return }
        helperEnded(record, watch: watch, how: helper.waitForEnd() ?? "stopped answering")
    }

    package func featureFinished(owner: String, status: Int32) {
        guard let record = records.first(where: { $0.id == owner && $0.context?.instance != nil }) else { return }
        deactivate(record, status: status)
    }
}

/// Calls `body` with a NULL-terminated C argv for `strings`, valid during the call.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    var argv: [UnsafePointer<CChar>?] = pointers.map { $0.map { UnsafePointer($0) } }
    argv.append(nil)
    return argv.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { preconditionFailure("argv always holds its terminating NULL") }
        return body(base)
    }
}

import Foundation
import PluginKit

/// While the sensor runs in the host it takes commands from anywhere (spec §3.20, §6): typed or spoken
/// phrases ("sync photos now"), and the AWARE command events other plugins post on the bus. Its own
/// confirmations carry `"source":"assist.photo-sensor"`, which is how it tells them from commands.
extension PhotoSensor {
    static let source = #""source":"assist.photo-sensor""#
    /// An event that asks for a sync of every AWARE sensor.
    static let syncRequest = "AwareDBSyncRequest"

    /// The phrases, as global commands of the running sensor.
    func registerCommands() {
        let commands = [
            "sensor-status", "sensor-start", "sensor-stop", "sensor-sync", "sensor-pause", "sensor-resume",
            "sensor-label", "sensor-menu",
        ]
        for id in commands {
            do {
                try host.registerCommand(id, key: nil, phrases: phrases, global: true)
            } catch {
                host.log(.warning, "\"\(phrases.text("phrase." + id))\" is taken by another feature")
            }
        }
    }

    public func handle(command: String, argument: String?) {
        switch command {
        case "sensor-status": say(status(json: false))
        case "sensor-start": resumeWatching(announce: true)
        case "sensor-stop": pauseWatching(announce: true)
        case "sensor-sync": requestedSync(force: true, announce: true)
        case "sensor-pause": pauseFor(minutes: SensorPause.defaultMinutes)
        case "sensor-resume": resumePause()
        case "sensor-menu": openMenu()
        case "sensor-label":
            guard let text = argument?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                say(phrases.text("label-say-after"))
                return
            }
            try? setLabel(text)
        default: break
        }
    }

    /// The sensor's menu by keys (spec §6): S status, T start or stop, Y sync now, L set label, A new-item
    /// announcements on or off, P pause for an hour or resume; numbers, arrows and the words work too.
    func openMenu() {
        let running = watcher != nil
        let announcing = (try? store?.value("announce")) == "on"
        let paused = pausedUntil() != nil
        let choices = [
            "menu-status", running ? "menu-stop" : "menu-start", "menu-sync", "menu-label",
            announcing ? "menu-announce-stop" : "menu-announce", paused ? "menu-resume" : "menu-pause",
        ].map { phrases.text($0) }
        showPhotosOnView()
        host.askChoice(phrases.text("menu"), choices: choices) { [weak self] index in
            self?.hidePhotosOnView()
            guard let self, let index else { return }
            switch index {
            case 0: say(status(json: false))
            case 1: running ? pauseWatching(announce: true) : resumeWatching(announce: true)
            case 2: requestedSync(force: true, announce: true)
            case 3:
                host.askText(phrases.text("ask-label")) { [weak self] text in
                    guard let self, let text else { return }
                    try? setLabel(text)
                }
            case 4:
                try? store?.setValue(announcing ? "off" : "on", for: "announce")
                say(phrases.text(announcing ? "announce-off" : "announce-on"))
            default:
                if paused {
                    resumePause()
                } else {
                    pauseFor(minutes: SensorPause.defaultMinutes)
                }
            }
        }
    }

    /// "Photo recorded", or with recognition "Photo: cup, laptop", after a soft earcon, when the user asked
    /// for announcements.
    func announceNewItem(kind: Int, labels: [String] = []) {
        guard (try? store?.value("announce")) == "on" else { return }
        let item = phrases.text(kind == 1 ? "item-photo" : kind == 2 ? "item-video" : "item-sound")
        let sentence =
            labels.isEmpty
            ? phrases.text("item-recorded", ["item": item])
            : phrases.text("item-labels", ["item": item, "labels": labels.joined(separator: ", ")])
        host.onMain { [host] in
            host.play(.tap, gain: 0.5)
            host.say(sentence)
        }
    }

    /// The AWARE command events (and `AwareDBSyncRequest`) from other plugins.
    func listenToTheBus() {
        host.subscribeEvents(prefix: SensorEvents.prefix + ".") { [weak self] name, json in
            self?.busEvent(name, json: json)
        }
        host.subscribeEvents(prefix: Self.syncRequest) { [weak self] name, _ in
            guard name == Self.syncRequest else { return }
            self?.requestedSync(force: false, announce: false)
        }
    }

    private func busEvent(_ name: String, json: String) {
        guard !json.contains(Self.source) else { return }  // our own confirmation
        let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        switch name {
        case SensorEvents.start: resumeWatching(announce: false)
        case SensorEvents.stop: pauseWatching(announce: false)
        case SensorEvents.sync: requestedSync(force: (object?["force"] as? Bool) ?? false, announce: false)
        case SensorEvents.setLabel:
            guard let label = object?["label"] as? String else {
                host.log(.warning, "\(name) without a \"label\" string is ignored")
                return
            }
            try? setLabel(label, quietly: true)
        default: break
        }
    }

    /// Stops watching (the state is kept, so the next host start stays stopped) and confirms.
    func pauseWatching(announce: Bool) {
        watcher?.stop()
        watcher = nil
        try? store?.setValue("stopped", for: "state")
        host.publish(SensorEvents.stop, json: "{\(Self.source)}")
        if announce {
            host.play(.fall)
            say(phrases.text("stopped"))
        }
    }

    /// Watches again; what arrived meanwhile is caught up.
    func resumeWatching(announce: Bool) {
        try? store?.setValue("running", for: "state")
        if watcher == nil {
            do { try startWatching(announce: false) } catch {
                say(error.message)
                return
            }
        }
        if announce {
            host.play(.rise)
            say(phrases.text("started"))
        }
    }

    /// A sync someone asked for: merged into a run already going; with `force`, the network and charger
    /// checks are skipped. A user who asked hears how it ended (and the error earcon on failure).
    func requestedSync(force: Bool, announce: Bool) {
        host.publish(SensorEvents.sync, json: #"{\#(Self.source),"force":\#(force)}"#)
        if !force, let reason = skipReason() {
            host.log(.info, "sync skipped: \(reason)")
            return
        }
        let earlier = onSyncEnded
        onSyncEnded = { [weak self] in
            earlier?()
            guard let self, announce else { return }
            if let last = lastSync, !last.ok {
                host.play(.error)
                say(phrases.text("last-sync-failed-now", ["reason": last.error ?? phrases.text("unknown-reason")]))
            } else {
                say(phrases.text("sync-done"))
            }
        }
        startSync()
    }

    /// When the pause in force ends (unix seconds), or nil when the sensor is not paused. Read from the
    /// database each time, so a pause set by `assist run photo-sensor pause` in another process counts too.
    func pausedUntil(now: Double = Date().timeIntervalSince1970) -> Double? {
        SensorPause.until((try? store?.value("paused_until")) ?? nil, now: now)
    }

    /// The last pause as modification times in ns, for the indexer (`MediaIndexer.pausedWindow`).
    func pauseWindow() -> ClosedRange<Int64>? {
        guard let from = ((try? store?.value("paused_from")) ?? nil).flatMap(Double.init),
            let until = ((try? store?.value("paused_until")) ?? nil).flatMap(Double.init), until >= from
        else { return nil }
        return Int64(from * 1e9)...Int64(until * 1e9)
    }

    /// `pause [--minutes N]`: N from 1 to 1440, 60 when not given; anything else changes nothing.
    func pause(arguments: [String]) throws(PluginError) {
        var minutes = SensorPause.defaultMinutes
        if let index = arguments.firstIndex(of: "--minutes") {
            let given = arguments.indices.contains(index + 1) ? arguments[index + 1] : ""
            guard let number = Int(given), SensorPause.minutes.contains(number) else {
                throw PluginError(
                    phrases.text(
                        "pause-minutes-bad",
                        [
                            "low": String(SensorPause.minutes.lowerBound),
                            "high": String(SensorPause.minutes.upperBound),
                            "given": given.isEmpty ? phrases.text("nothing") : given,
                        ]))
            }
            minutes = number
        } else if let other = arguments.first {
            throw PluginError(phrases.text("pause-unknown-option", ["option": other]))
        }
        pauseFor(minutes: minutes)
    }

    /// Pauses recording for `minutes`: what is taken meanwhile is seen but never recorded.
    func pauseFor(minutes: Int) {
        let now = Date().timeIntervalSince1970
        let until = now + Double(minutes * 60)
        do {
            // A pause already on keeps its start: the window covers both.
            if pausedUntil(now: now) == nil { try store?.setValue(String(Int(now)), for: "paused_from") }
            try store?.setValue(String(Int(until)), for: "paused_until")
        } catch {
            say(phrases.text("pause-failed"))
            return
        }
        host.play(.fall)
        say(phrases.text("paused", count: minutes, ["time": SensorPause.clock(until)]))
    }

    /// Ends a pause now and says so, or says there was none.
    func resumePause() {
        let now = Date().timeIntervalSince1970
        guard pausedUntil(now: now) != nil else { return say(phrases.text("not-paused")) }
        // The window ends now and is kept, so what was taken in it stays unrecorded.
        try? store?.setValue(String(now), for: "paused_until")
        host.play(.rise)
        say(phrases.text(configuration.watchDirectories.isEmpty ? "resumed-not-set-up" : "resumed"))
    }

    /// Why an unforced run should wait (spec §3.24), or nil.
    func skipReason() -> String? {
        if configuration.onlyWhenOnline, let server = configuration.serverUrl,
            let name = URLComponents(string: server)?.host, !host.isOnline(name)
        {
            return "no network"
        }
        if configuration.batteryChargingOnly, !PowerSupply.isCharging() {
            return "not charging"
        }
        return nil
    }
}

/// Whether the machine runs on mains power, from `/sys/class/power_supply` (a desktop without a battery is).
enum PowerSupply {
    static func isCharging(root: String = "/sys/class/power_supply") -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        var sawBattery = false
        for name in names {
            func read(_ file: String) -> String? {
                (try? String(contentsOfFile: "\(root)/\(name)/\(file)", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            switch read("type") {
            case "Mains", "USB": if read("online") == "1" { return true }
            case "Battery":
                sawBattery = true
                if ["Charging", "Full"].contains(read("status") ?? "") { return true }
            default: break
            }
        }
        return !sawBattery
    }
}

import Foundation
import PluginKit

/// The participant's way in (spec §6): menus by keys, numbers or words, everything said and printed. Before
/// consent: the information sheet and consent. After: things (A adds, U says what waits), a thing's seven
/// slots (Enter records an empty one, or offers to film a filled one again or delete it; O for a thing's options:
/// rename, delete after a yes within 10 s, every slot's status).
extension CollectVideos {
    /// `assist run collect-videos` with no verb.
    func openMenus() {
        interactive = true
        if let problem = configuration.problem, let words = configuration.problemForUser {
            host.log(.warning, problem)
            say(words)
            return host.finish(.unsupported)
        }
        if credential() == nil {
            sayTextsAreEnglish()
            say(StudyText(markdown: studyText("introduction")).pieces.map(\.text).joined(separator: " "))
            onboarding()
        } else {
            let count = (try? store?.things().count) ?? 0
            if count < 5 { say(phrases.text("things-to-go", count: 5 - count)) }
            pump()
            // Statuses at start, then every `poll-minutes` (30) while the menus are open (spec §3.26).
            refreshParticipant()
            pollStatuses()
            let interval = UInt32(configuration.pollMinutes * 60_000)
            host.addTimer(milliseconds: interval, repeating: true) { [weak self] in
                self?.refreshParticipant()
                self?.pollStatuses()
            }
            tellRejections(asking: true) { [weak self] in self?.thingsMenu() }
        }
    }

    /// Clips the study team rejected, or the server refused, since the participant last heard: each said once
    /// ("Your training video 3 of 5 of Red mug was not accepted: the thing is missing from it."). With `asking`,
    /// the first is offered to be filmed again at once; otherwise each says where to film it again. Then `next`.
    func tellRejections(asking: Bool, then next: @escaping () -> Void) {
        guard let store, let untold = try? store.untoldRejections(), !untold.isEmpty else { return next() }
        var first: (thing: OrbitStore.Thing, video: OrbitStore.Video)?
        for (video, code, refusal) in untold {
            guard let thing = try? store.thing(id: video.thingID) else { continue }
            try? store.markTold(video: video.id, code)
            let name = slotName(video.kind, video.slot, of: thing.label)
            var sentence =
                code == "R"
                ? (refusal ?? phrases.text("server-refused-your", ["video": name]))
                : phrases.text(
                    "not-accepted",
                    [
                        "video": name,
                        "reason": phrases.text(
                            ["P", "I", "M"].contains(code) ? "rejection-" + code : "rejection-other"),
                    ])
            if !asking { sentence += " " + phrases.text("film-again-where", ["label": thing.label]) }
            say(sentence)
            if first == nil { first = (thing, video) }
        }
        guard asking, let first else { return next() }
        let name = slotName(first.video.kind, first.video.slot, of: first.thing.label)
        host.confirm(phrases.text("record-again-ask", ["video": name]), defaultYes: false, timeoutMilliseconds: 10_000)
        {
            [weak self] yes in
            guard let self else { return }
            if yes { return recordInteractively(first.thing, kind: first.video.kind, slot: first.video.slot) }
            next()
        }
    }

    // MARK: Before consent

    func onboarding() {
        host.askChoice(
            phrases.text("onboarding"),
            choices: ["menu-read-information", "menu-consent", "menu-save-information", "menu-leave"].map {
                phrases.text($0)
            }
        ) { [weak self] index in
            guard let self else { return }
            switch index {
            case 0: read("information") { [weak self] in self?.onboarding() }
            case 1: askConsent(Array(StudyText(markdown: studyText("consent")).statements.enumerated()))
            case 2:
                askSavePath("information", title: title("information")) { [weak self] in
                    self?.onboarding()
                }
            default: host.finish()
            }
        }
    }

    /// Each statement read, then "Agree? Y or N"; a no ends it with why.
    private func askConsent(_ left: [(offset: Int, element: String)]) {
        guard let (index, statement) = left.first else { return askName() }
        host.confirm(
            phrases.text("agree-ask", ["statement": "\(index + 1). \(statement)"]), defaultYes: false
        ) { [weak self] yes in
            guard let self else { return }
            if yes { return askConsent(Array(left.dropFirst())) }
            say(phrases.text("agreement-needed"))
            onboarding()
        }
    }

    private func askName(_ problem: String? = nil) {
        host.askText((problem.map { $0 + " " } ?? "") + phrases.text("ask-name")) { [weak self] name in
            guard let self else { return }
            guard let name else { return onboarding() }
            if let problem = Rules.nameProblem(name, phrases) { return askName(problem) }
            askEmail(name: name)
        }
    }

    private func askEmail(name: String, problem: String? = nil) {
        host.askText((problem.map { $0 + " " } ?? "") + phrases.text("ask-email")) { [weak self] email in
            guard let self else { return }
            guard let email else { return onboarding() }
            if let problem = Rules.emailProblem(email, phrases) { return askEmail(name: name, problem: problem) }
            do throws(PluginError) {
                try consent(["--name", name, "--email", email, "--agree-all"], quiet: true)
            } catch {
                say(error.message)
                onboarding()
            }
        }
    }

    // MARK: After consent

    func thingsMenu() {
        guard let store, let things = try? store.things() else { return host.finish(.io) }
        let lines = things.map { thing -> String in
            let count = (try? store.videos(of: thing.id).count) ?? 0
            return phrases.text("thing-line", ["label": thing.label, "count": String(count)])
        }
        // At most 9 choices (5 things and 4 more), so that one digit answers at once.
        let extra = ["menu-add-thing", "menu-upload-status", "menu-texts", "menu-leave"].map { phrases.text($0) }
        host.askChoice(phrases.text("things-menu", ["count": String(things.count)]), choices: lines + extra) {
            [weak self] index in
            guard let self, let index else { return self?.host.finish() ?? () }
            if index < things.count { return thingMenu(things[index]) }
            switch index - things.count {
            case 0 where things.count >= Rules.thingsWanted:
                say(phrases.text("things-full-menu", ["count": String(Rules.thingsWanted)]))
                thingsMenu()
            case 0: askNewThing()
            case 2: textsMenu()
            case 1:
                let waiting = (try? store.pendingOps().count) ?? 0
                let period: (start: String?, end: String?) = (try? store.period()) ?? (nil, nil)
                say(waiting == 0 ? phrases.text("nothing-waits") : waitingSentence(waiting))
                if let start = period.start, let end = period.end {
                    say(phrases.text("study-runs", ["start": spokenDate(start), "end": spokenDate(end)]))
                }
                if let statuses = statusesSentence() { say(statuses) }
                thingsMenu()
            default: host.finish()
            }
        }
    }

    /// The study's texts, read by ear.
    private func textsMenu() {
        host.askChoice(
            phrases.text("texts-menu"),
            choices: [
                "menu-introduction", "menu-recording-help", "menu-information", "menu-leave-study", "menu-back",
            ].map { phrases.text($0) }
        ) { [weak self] index in
            guard let self else { return }
            if index == 3 { return askToLeave { [weak self] in self?.textsMenu() } }
            let names = ["introduction", "recording-help", "information"]
            guard let index, names.indices.contains(index) else { return thingsMenu() }
            read(names[index]) { [weak self] in self?.textsMenu() }
        }
    }

    private func askNewThing(_ problem: String? = nil) {
        host.askText((problem.map { $0 + " " } ?? "") + phrases.text("ask-thing-name")) { [weak self] text in
            guard let self, let store else { return }
            guard let text, !text.isEmpty else { return thingsMenu() }
            if let problem = Rules.labelProblem(text, phrases) { return askNewThing(problem) }
            do {
                if let other = try store.otherThing(than: nil, labelled: text) {
                    return askNewThing(phrases.text("already-have", ["label": other.label]))
                }
                let thing = try store.addThing(NameKey.cleaned(text))
                say(phrases.text("thing-added", ["label": thing.label]))
                pump()
                thingMenu(thing)
            } catch {
                say(phrases.text("thing-not-saved", ["reason": "\(error)"]))
                thingsMenu()
            }
        }
    }

    /// "Mug. 3 of 7 videos. Still to record: 1 testing, 3 training." then its slots.
    func thingMenu(_ thing: OrbitStore.Thing) {
        guard let store, let videos = try? store.videos(of: thing.id), let period = try? store.period() else {
            return thingsMenu()
        }
        let summary = thingSummary(thing, videos: videos)
        var slots: [(kind: String, slot: Int, line: String, video: OrbitStore.Video?)] = []
        for (kind, count) in [("S", 2), ("T", 5)] {
            for slot in 0..<count {
                let video = videos.first { $0.kind == kind && $0.slot == slot }
                let status = video.map { describe($0, studyEnd: period.end) } ?? phrases.text("slot-is-empty")
                slots.append(
                    (kind, slot, phrases.text("slot-choice", ["video": slotName(kind, slot), "status": status]), video))
            }
        }
        let next = Self.nextEmptySlot(in: slots.map { ($0.kind, $0.slot, $0.video != nil) }, after: lastSlot[thing.id])
        // 7 slots and 2 more: one digit answers at once.
        let extra = ["menu-record-next", "menu-thing-options"].map { phrases.text($0) }
        host.askChoice(summary + " " + phrases.text("escape-back"), choices: slots.map(\.line) + extra) {
            [weak self] index in
            guard let self, let index else { return self?.thingsMenu() ?? () }
            if index == slots.count {
                guard let next else {
                    say(phrases.text("all-recorded", ["label": thing.label]))
                    return thingMenu(thing)
                }
                lastSlot[thing.id] = next
                return recordInteractively(thing, kind: slots[next].kind, slot: slots[next].slot)
            }
            if index == slots.count + 1 {
                return thingOptions(thing, summary: summary, slots: slots.map(\.line), videoCount: videos.count)
            }
            lastSlot[thing.id] = index
            if index < slots.count {
                let chosen = slots[index]
                if chosen.video == nil { return recordInteractively(thing, kind: chosen.kind, slot: chosen.slot) }
                return slotOptions(thing, kind: chosen.kind, slot: chosen.slot, line: chosen.line)
            }
        }
    }

    /// A filled slot: film it again, or delete it (after a yes within 10 s), here and on the server.
    private func slotOptions(_ thing: OrbitStore.Thing, kind: String, slot: Int, line: String) {
        host.askChoice(
            "\(line).", choices: ["menu-record-again", "menu-delete-video", "menu-back"].map { phrases.text($0) }
        ) { [weak self] index in
            guard let self else { return }
            switch index {
            case 0: recordInteractively(thing, kind: kind, slot: slot)
            case 1:
                let name = slotName(kind, slot, of: thing.label)
                host.confirm(
                    phrases.text("delete-video-ask", ["video": name]), defaultYes: false, timeoutMilliseconds: 10_000
                ) {
                    [weak self] yes in
                    guard let self else { return }
                    if yes {
                        do throws(PluginError) {
                            say(try deleteVideo(of: thing, kind: kind, slot: slot))
                            pump()
                        } catch {
                            host.play(.error)
                            say(error.message)
                        }
                    } else {
                        say(phrases.text("not-deleted"))
                    }
                    thingMenu(thing)
                }
            default: thingMenu(thing)
            }
        }
    }

    /// Rename, delete (after a yes within 10 s) and the thing's whole status.
    private func thingOptions(_ thing: OrbitStore.Thing, summary: String, slots: [String], videoCount: Int) {
        host.askChoice(
            phrases.text("thing-options", ["label": thing.label]),
            choices: ["menu-rename", "menu-delete", "menu-video-status", "menu-back"].map { phrases.text($0) }
        ) { [weak self] index in
            guard let self, let store else { return }
            switch index {
            case 0: askRename(thing)
            case 2:
                say(summary)
                for slot in slots { say(slot + ".") }
                thingMenu(thing)
            case 1:
                host.confirm(
                    phrases.text("delete-thing-ask", count: videoCount, ["label": thing.label]),
                    defaultYes: false, timeoutMilliseconds: 10_000
                ) { [weak self] yes in
                    guard let self else { return }
                    guard yes else {
                        say(phrases.text("not-deleted"))
                        return thingMenu(thing)
                    }
                    if let files = try? store.delete(thing) { for file in files { deleteClip(file) } }
                    say(phrases.text("thing-deleted", ["label": thing.label]))
                    pump()
                    thingsMenu()
                }
            default: thingMenu(thing)
            }
        }
    }

    /// The first empty slot after `after` (wrapping round), as an index into the slot list; nil when all are
    /// filled.
    static func nextEmptySlot(in slots: [(kind: String, slot: Int, filled: Bool)], after: Int?) -> Int? {
        guard !slots.isEmpty else { return nil }
        let start = ((after ?? -1) + 1) % slots.count
        return (0..<slots.count).map { (start + $0) % slots.count }.first { !slots[$0].filled }
    }

    private func askRename(_ thing: OrbitStore.Thing, problem: String? = nil) {
        host.askText((problem.map { $0 + " " } ?? "") + phrases.text("ask-new-name", ["label": thing.label])) {
            [weak self] text in
            guard let self, let store else { return }
            guard let text, !text.isEmpty else { return thingMenu(thing) }
            if let problem = Rules.labelProblem(text, phrases) { return askRename(thing, problem: problem) }
            let label = NameKey.cleaned(text)
            if let other = try? store.otherThing(than: thing, labelled: label) {
                return askRename(thing, problem: phrases.text("thing-exists", ["label": other.label]))
            }
            try? store.rename(thing, to: label)
            say(phrases.text("thing-renamed", ["old": thing.label, "label": label]))
            pump()
            var renamed = thing
            renamed.label = label
            thingMenu(renamed)
        }
    }

    func recordInteractively(_ thing: OrbitStore.Thing, kind: String, slot: Int) {
        let longest = kind == "S" ? 20.0 : 30.0
        let seconds = min(longest, configuration.recordSeconds ?? longest)
        say(phrases.text("recording-started"))
        try? host.registerCommand("stop-recording", key: "space", phrases: phrases)
        do {
            try startRecording(thing: thing, kind: kind, slot: slot, maxSeconds: seconds)
        } catch {
            host.play(.error)
            say((error as? PluginError)?.message ?? phrases.text("camera-unavailable"))
            thingMenu(thing)
        }
    }
}

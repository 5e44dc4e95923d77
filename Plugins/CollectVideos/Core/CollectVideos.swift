import Foundation
import PluginKit

/// The ORBIT Camera port (spec collect-videos.md): consent, things, and the ORBIT Data server's protocol
/// through the host outbox. Verbs (`assist run collect-videos VERB`): `consent --name N --email E
/// --agree-all`, `thing add LABEL`, `thing rename OLD NEW`, `thing delete LABEL --yes`, `record LABEL --kind K`,
/// `video delete LABEL --kind K --slot N --yes`, `sync [--wait S]`, `status [--json]`,
/// `leave --yes [--keep-sent] [--wait S]`. Every method runs on [main].
public final class CollectVideos: PluginFeature {
    let host: PluginHostHandle
    var store: OrbitStore?
    let configuration: OrbitConfiguration
    /// What it says, in the session's language (`share/phrases.<lang>.json`); the study's own texts
    /// (`share/*.md`) are the study's, in English.
    let phrases: PhraseTable
    /// Runs once when the work a verb waits for is done.
    var onIdle: (() -> Void)?
    var consentJob: Int64?
    /// Menus by keys (no verb) rather than a command-line verb: where to go after consent or a recording.
    var interactive = false
    /// The outbox jobs of status and thing pages this run asked for and has no answer to yet (a count would
    /// go wrong when a killed run's answers arrive: `sync --wait` then waited out its whole limit).
    var pollJobs: Set<Int64> = []
    /// The recording in progress, if any.
    var recording: RecordingState?
    var consentFinished: ((OutboxOutcome) -> Void)?
    /// The server's things read so far by a listing in progress (`api/thing/`, every page).
    var serverThings: [(id: Int64, label: String)] = []
    /// Server things that have videos, from the latest complete status reading; nil until one completed.
    var serverVideoThings: Set<Int64>?
    /// Videos' things read so far by the status reading in progress.
    var readingVideoThings: Set<Int64> = []
    /// True once this run compared the server's things with ours.
    var reconciled = false
    /// The study text being read, if any.
    var reader: TextReader?
    /// True once this run said that the study's own texts are in English.
    var saidTextsAreEnglish = false
    /// The slot last chosen in each thing's menu, so N moves on from it (spec §6).
    var lastSlot: [Int64: Int] = [:]
    /// Leaving the study: the server's deletions still to be answered.
    var leaving: LeaveWait?

    public init(host: PluginHostHandle) {
        self.host = host
        let phrases = PhraseTable(directory: host.shareDirectory, language: host.language)
        self.phrases = phrases
        configuration = OrbitConfiguration(phrases: phrases) { host.setting($0) }
    }

    public func start(arguments: [String]) throws(PluginError) {
        if arguments == ["--help"] || arguments == ["-h"] {
            host.print(phrases.text("help-usage"))
            return host.finish()
        }
        do { store = try OrbitStore(host: host) } catch {
            throw PluginError(phrases.text("database-unopened", ["reason": error.message]))
        }
        try? host.onOutcome { [weak self] outcome in self?.handle(outcome) ?? false }
        recoverUnfinishedRecording()
        // Nothing is filmed or kept before the participant consents: without a credential only onboarding is
        // offered (docs/collect-videos.md), and the command line is no way around it.
        if ["thing", "record", "video"].contains(arguments.first ?? ""), credential() == nil {
            throw PluginError(phrases.text("no-consent-yet"))
        }
        switch (arguments.first, arguments.dropFirst().first) {
        case ("consent", _): try consent(Array(arguments.dropFirst()))
        case ("thing", "add"): try addThing(arguments.dropFirst(2).joined(separator: " "))
        case ("thing", "rename"): try renameThing(Array(arguments.dropFirst(2)))
        case ("thing", "delete"): try deleteThing(Array(arguments.dropFirst(2)))
        case ("record", _): try record(Array(arguments.dropFirst()))
        case ("video", "delete"): try deleteVideo(Array(arguments.dropFirst(2)))
        case ("leave", _): try leaveCommand(Array(arguments.dropFirst()))
        case ("sync", _): sync(waitSeconds: try waitSeconds(arguments, otherwise: 60))
        case ("status", _):
            host.print(try status(json: arguments.contains("--json")))
            host.finish()
        case (nil, _): openMenus()
        case (let other?, _):
            throw PluginError(phrases.text("unknown-command", ["command": other]))
        }
    }

    func say(_ text: String) { host.say(text) }

    public func stop() {
        if recording != nil { stopRecording(reason: .user, finishing: false) }
    }

    public func handle(command: String, argument: String?) {
        if command == "stop-recording" { return stopRecording(reason: .user) }
        _ = handleReader(command)
    }

    static func number(after flag: String, in arguments: [String]) -> Double? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return Double(arguments[index + 1])
    }

    /// `--wait SECONDS` (0 to 600), or `fallback` without it; a value that is no such number is one sentence.
    func waitSeconds(_ arguments: [String], otherwise fallback: Double) throws(PluginError) -> Double {
        guard arguments.contains("--wait") else { return fallback }
        guard let wait = Self.number(after: "--wait", in: arguments), wait.isFinite, (0...600).contains(wait) else {
            throw PluginError(phrases.text("wait-usage"))
        }
        return wait
    }

    static func value(after flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    // MARK: Things

    private func addThing(_ label: String) throws(PluginError) {
        if let problem = Rules.labelProblem(label, phrases) { throw PluginError(problem) }
        let trimmed = NameKey.cleaned(label)
        guard let store else { return }
        do {
            if let other = try store.otherThing(than: nil, labelled: trimmed) {
                throw PluginError(phrases.text("thing-exists", ["label": other.label]))
            }
            if try store.things().count >= Rules.thingsWanted {
                throw PluginError(phrases.text("things-full", ["count": String(Rules.thingsWanted)]))
            }
            _ = try store.addThing(trimmed)
            let count = try store.things().count
            say(phrases.text("thing-added-count", ["label": trimmed, "count": String(count)]))
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError(phrases.text("thing-not-saved", ["reason": "\(error)"]))
        }
        pumpThenFinish()
    }

    private func renameThing(_ words: [String]) throws(PluginError) {
        guard let store, words.count >= 2 else {
            throw PluginError(phrases.text("rename-usage"))
        }
        let (old, new) = (words[0], NameKey.cleaned(words[1...].joined(separator: " ")))
        if let problem = Rules.labelProblem(new, phrases) { throw PluginError(problem) }
        do {
            guard let thing = try store.thing(labelled: old) else {
                throw PluginError(phrases.text("no-such-thing", ["label": old]))
            }
            if let other = try store.otherThing(than: thing, labelled: new) {
                throw PluginError(phrases.text("thing-exists-choose", ["label": other.label]))
            }
            try store.rename(thing, to: new)
            say(phrases.text("thing-renamed", ["old": thing.label, "label": new]))
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError(phrases.text("rename-not-saved", ["reason": "\(error)"]))
        }
        pumpThenFinish()
    }

    private func deleteThing(_ words: [String]) throws(PluginError) {
        let label = words.filter { $0 != "--yes" }.joined(separator: " ")
        guard let store else { return }
        guard words.contains("--yes") else {
            throw PluginError(phrases.text("thing-delete-needs-yes", ["label": label]))
        }
        do {
            guard let thing = try store.thing(labelled: label) else {
                throw PluginError(phrases.text("no-such-thing", ["label": label]))
            }
            for file in try store.delete(thing) { deleteClip(file) }
            say(phrases.text("thing-deleted", ["label": thing.label]))
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError(phrases.text("thing-not-deleted", ["reason": "\(error)"]))
        }
        pumpThenFinish()
    }

    private func deleteVideo(_ arguments: [String]) throws(PluginError) {
        guard let store else { return }
        let (label, kind, wanted) = try slotArguments(arguments)
        let count = Self.slots[kind] ?? 0
        guard let slot = wanted else {
            throw PluginError(phrases.text("video-delete-which-" + kind, ["count": String(count)]))
        }
        let thing: OrbitStore.Thing?
        do { thing = try store.thing(labelled: label) } catch {
            throw PluginError(phrases.text("video-not-deleted", ["reason": "\(error)"]))
        }
        guard let thing else { throw PluginError(phrases.text("no-such-thing", ["label": label])) }
        guard arguments.contains("--yes") else {
            throw PluginError(
                phrases.text("video-delete-needs-yes", ["video": slotName(kind, slot, of: thing.label)]))
        }
        say(try deleteVideo(of: thing, kind: kind, slot: slot))
        pumpThenFinish()
    }

    /// One clip deleted here (row and file) and, through the outbox, on the server; what to say. Throws when
    /// the slot is empty or the database refuses.
    func deleteVideo(of thing: OrbitStore.Thing, kind: String, slot: Int) throws(PluginError) -> String {
        guard let store else { throw PluginError(phrases.text("no-database")) }
        let name = phrases.text("slot-of-\(kind)-start", ["number": String(slot + 1), "label": thing.label])
        let file: String?
        do { file = try store.deleteVideo(thing: thing.id, kind: kind, slot: slot) } catch {
            throw PluginError(phrases.text("slot-not-deleted", ["video": name, "reason": "\(error)"]))
        }
        guard let file else { throw PluginError(phrases.text("slot-empty", ["video": name])) }
        deleteClip(file)
        return phrases.text("slot-deleted", ["video": name])
    }

    /// A clip's file, wherever it is: in the media folder until it is uploaded, in the cache after.
    func deleteClip(_ name: String) {
        try? host.deleteMedia(name)
        try? host.deleteMedia(name, inCache: true)
    }

    /// "Testing video 1 of 2" for slot 0 of kind `S`, as a line of a thing's menu.
    func slotName(_ kind: String, _ slot: Int) -> String {
        phrases.text("slot-" + kind, ["number": String(slot + 1)])
    }

    /// "testing video 1 of 2 of Mug", within a sentence.
    func slotName(_ kind: String, _ slot: Int, of label: String) -> String {
        phrases.text("slot-of-" + kind, ["number": String(slot + 1), "label": label])
    }

    /// Hands what waits to the outbox, then finishes (the outbox sends in the background and after restarts).
    private func pumpThenFinish() {
        pump()
        host.finish()
    }

    // MARK: Status

    /// "Mug. 3 of 7 videos. Still to record: 1 testing, 3 training."
    func thingSummary(_ thing: OrbitStore.Thing, videos: [OrbitStore.Video]) -> String {
        let testing = 2 - videos.filter { $0.kind == "S" }.count
        let training = 5 - videos.filter { $0.kind == "T" }.count
        var line = phrases.text("thing-videos", ["label": thing.label, "count": String(videos.count)])
        if testing + training > 0 {
            line +=
                " " + phrases.text("still-to-record", ["testing": String(testing), "training": String(training)])
        }
        return line
    }

    /// "recorded 12 March 14:05, uploaded, checked and suitable, not yet published" (spec §6, §3.27).
    static func describe(
        _ video: OrbitStore.Video, studyEnd: String?, purged: Bool = false, phrases: PhraseTable, language: String
    ) -> String {
        let date = Date(timeIntervalSince1970: Double(video.recordedAt) / 1000)
        var parts = [phrases.text("video-recorded", ["when": spokenTime(date, language: language)])]
        parts.append(phrases.text(video.orbitID == nil ? "video-waiting" : "video-uploaded"))
        let separator = phrases.text("list-separator")
        guard video.orbitID != nil else { return parts.joined(separator: separator) }
        let purgedNote = purged ? phrases.text("video-purged") : ""
        switch video.validation {
        case "C":
            parts.append(phrases.text("video-suitable"))
            parts.append(
                phrases.text(
                    published(video.validation, studyEnd: studyEnd) ? "video-published" : "video-not-published"))
        case "P", "I", "M": parts.append(phrases.text("video-rejected-" + video.validation))
        default: parts.append(phrases.text("video-not-checked"))
        }
        return parts.joined(separator: separator) + purgedNote
    }

    /// "12 March 14:05" in the session's language.
    static func spokenTime(_ date: Date, language: String) -> String {
        spoken(date, language: language, english: "d MMMM HH:mm", template: "dMMMMHHmm")
    }

    /// `date` as said in `language`: British English in `english`'s exact form, other languages in their own
    /// order of `template`'s fields.
    static func spoken(_ date: Date, language: String, english: String, template: String) -> String {
        let formatter = DateFormatter()
        if language == "en" {
            formatter.locale = Locale(identifier: "en_GB")
            formatter.dateFormat = english
        } else {
            formatter.locale = Locale(identifier: language)
            formatter.setLocalizedDateFormatFromTemplate(template)
        }
        return formatter.string(from: date)
    }

    /// Published: checked and suitable, and at least 24 hours since the start of the study's last day (local).
    static func published(_ validation: String, studyEnd: String?, now: Date = Date()) -> Bool {
        guard validation == "C", let end = studyEnd else { return false }
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = .current
        parser.dateFormat = "yyyy-MM-dd"
        guard let start = parser.date(from: end) else { return false }
        return now.timeIntervalSince(start) >= 24 * 3600
    }

    /// True when an uploaded clip's cached copy was purged (the server still has it).
    func isPurged(_ video: OrbitStore.Video) -> Bool {
        guard video.location == "cache", let cache = host.cacheDirectory else { return false }
        return !FileManager.default.fileExists(atPath: cache + "/" + video.filename)
    }

    /// A slot's status in words.
    func describe(_ video: OrbitStore.Video, studyEnd: String?) -> String {
        Self.describe(video, studyEnd: studyEnd, purged: isPurged(video), phrases: phrases, language: host.language)
    }

    func status(json: Bool) throws(PluginError) -> String {
        guard let store else { return "" }
        do {
            let things = try store.things()
            let waiting = try store.pendingOps()
            let period = try store.period()
            if json {
                let object: [String: Any] = [
                    "participant": credential() != nil,
                    "configured": configuration.problem == nil,
                    "things": try things.map { thing -> [String: Any] in
                        let videos = try store.videos(of: thing.id)
                        return [
                            "label": thing.label, "server_id": thing.orbitID as Any, "videos": videos.count,
                            "slots": videos.map { video -> [String: Any] in
                                [
                                    "kind": video.kind, "slot": video.slot + 1, "server_id": video.orbitID as Any,
                                    "validation": video.validation, "uploaded": video.orbitID != nil,
                                    "published": Self.published(video.validation, studyEnd: period.end),
                                    "status": describe(video, studyEnd: period.end),
                                    "on_device": !isPurged(video),
                                ]
                            },
                        ]
                    },
                    "waiting": waiting.count,
                    "failed": waiting.filter { $0.state == "failed" }.map { $0.lastError ?? "" },
                    "study_start": period.start as Any, "study_end": period.end as Any,
                    "upload_pause": try store.uploadPause(),
                    "statuses_failed": try store.statuses().failed,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                return String(decoding: data, as: UTF8.self)
            }
            var parts: [String] = []
            if let problem = configuration.problem { parts.append(problem) }
            parts.append(phrases.text(credential() == nil ? "status-no-consent" : "status-taking-part"))
            parts.append(phrases.text("things-of-five", ["count": String(things.count)]))
            for thing in things {
                let videos = try store.videos(of: thing.id)
                parts.append(thingSummary(thing, videos: videos))
                for video in videos {
                    parts.append(
                        phrases.text(
                            "slot-line",
                            [
                                "video": slotName(video.kind, video.slot),
                                "status": describe(video, studyEnd: period.end),
                            ]))
                }
            }
            if !waiting.isEmpty { parts.append(waitingSentence(waiting.count)) }
            if let statuses = statusesSentence() { parts.append(statuses) }
            for failed in waiting where failed.state == "failed" { parts.append(failed.lastError ?? "") }
            return parts.joined(separator: " ")
        } catch {
            throw PluginError(phrases.text("status-unreadable", ["reason": "\(error)"]))
        }
    }
}

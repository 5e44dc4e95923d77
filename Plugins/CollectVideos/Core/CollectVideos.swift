import Foundation
import PluginKit

/// The ORBIT Camera port (spec collect-videos.md): consent, things, and the ORBIT Data server's protocol
/// through the host outbox. Verbs (`assist run collect-videos VERB`): `consent --name N --email E
/// --agree-all`, `thing add LABEL`, `thing rename OLD NEW`, `thing delete LABEL --yes`, `record LABEL --kind K`,
/// `video delete LABEL --kind K --slot N --yes`, `sync [--wait S]`, `status [--json]`, `leave --yes [--keep-sent] [--wait S]`. Every method runs on [main].
public final class CollectVideos: PluginFeature {
    let host: PluginHostHandle
    var store: OrbitStore?
    let configuration: OrbitConfiguration
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
    /// The slot last chosen in each thing's menu, so N moves on from it (spec §6).
    var lastSlot: [Int64: Int] = [:]
    /// Leaving the study: the server's deletions still to be answered.
    var leaving: LeaveWait?

    public init(host: PluginHostHandle) {
        self.host = host
        configuration = OrbitConfiguration { host.setting($0) }
    }

    public func start(arguments: [String]) throws(PluginError) {
        do { store = try OrbitStore(host: host) } catch {
            throw PluginError("Collect videos cannot open its database: \(error.message)")
        }
        try? host.onOutcome { [weak self] outcome in self?.handle(outcome) ?? false }
        recoverUnfinishedRecording()
        // Nothing is filmed or kept before the participant consents: without a credential only onboarding is
        // offered (docs/collect-videos.md), and the command line is no way around it.
        if ["thing", "record", "video"].contains(arguments.first ?? ""), credential() == nil {
            throw PluginError(
                "You have not given consent on this device yet, so nothing can be filmed or kept. Open Collect videos to read the study and consent, or run: assist run collect-videos consent --name NAME --email EMAIL --agree-all."
            )
        }
        switch (arguments.first, arguments.dropFirst().first) {
        case ("consent", _): try consent(Array(arguments.dropFirst()))
        case ("thing", "add"): try addThing(arguments.dropFirst(2).joined(separator: " "))
        case ("thing", "rename"): try renameThing(Array(arguments.dropFirst(2)))
        case ("thing", "delete"): try deleteThing(Array(arguments.dropFirst(2)))
        case ("record", _): try record(Array(arguments.dropFirst()))
        case ("video", "delete"): try deleteVideo(Array(arguments.dropFirst(2)))
        case ("leave", _): try leaveCommand(Array(arguments.dropFirst()))
        case ("sync", _): sync(waitSeconds: Self.number(after: "--wait", in: arguments) ?? 60)
        case ("status", _):
            host.print(try status(json: arguments.contains("--json")))
            host.finish()
        case (nil, _): openMenus()
        case (let other?, _):
            throw PluginError(
                "Unknown collect-videos command \(other). Use consent, thing add, thing rename, thing delete, record, video delete, sync, status or leave."
            )
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

    static func value(after flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    // MARK: Things

    private func addThing(_ label: String) throws(PluginError) {
        if let problem = Rules.labelProblem(label) { throw PluginError(problem) }
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let store else { return }
        do {
            if let other = try store.otherThing(than: nil, labelled: trimmed) {
                throw PluginError("You already have a thing called \(other.label).")
            }
            _ = try store.addThing(trimmed)
            let count = try store.things().count
            say("\(trimmed) added. \(count) of 5 things.")
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError("The thing could not be saved: \(error).")
        }
        pumpThenFinish()
    }

    private func renameThing(_ words: [String]) throws(PluginError) {
        guard let store, words.count >= 2 else {
            throw PluginError("Say the old and the new name: thing rename OLD NEW (quote names with spaces).")
        }
        let (old, new) = (words[0], words[1...].joined(separator: " ").trimmingCharacters(in: .whitespaces))
        if let problem = Rules.labelProblem(new) { throw PluginError(problem) }
        do {
            guard let thing = try store.thing(labelled: old) else {
                throw PluginError("There is no thing called \(old).")
            }
            if let other = try store.otherThing(than: thing, labelled: new) {
                throw PluginError("You already have a thing called \(other.label); choose another name.")
            }
            try store.rename(thing, to: new)
            say("\(thing.label) is now called \(new).")
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError("The new name could not be saved: \(error).")
        }
        pumpThenFinish()
    }

    private func deleteThing(_ words: [String]) throws(PluginError) {
        let label = words.filter { $0 != "--yes" }.joined(separator: " ")
        guard let store else { return }
        guard words.contains("--yes") else {
            throw PluginError("Deleting \(label) removes its videos too. Add --yes to delete it.")
        }
        do {
            guard let thing = try store.thing(labelled: label) else {
                throw PluginError("There is no thing called \(label).")
            }
            for file in try store.delete(thing) { deleteClip(file) }
            say("\(thing.label) deleted, with its videos.")
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError("The thing could not be deleted: \(error).")
        }
        pumpThenFinish()
    }

    private func deleteVideo(_ arguments: [String]) throws(PluginError) {
        guard let store else { return }
        let (label, kind, wanted) = try Self.slotArguments(arguments)
        let count = Self.slots[kind] ?? 0
        guard let slot = wanted else {
            throw PluginError("Say which video: --slot N, from 1 to \(count) for \(Self.kindName(kind)) videos.")
        }
        let thing: OrbitStore.Thing?
        do { thing = try store.thing(labelled: label) } catch {
            throw PluginError("The video could not be deleted: \(error).")
        }
        guard let thing else { throw PluginError("There is no thing called \(label).") }
        guard arguments.contains("--yes") else {
            throw PluginError(
                "Deleting \(Self.slotName(kind, slot)) of \(thing.label) removes it from this device and from the study. Add --yes to delete it."
            )
        }
        say(try deleteVideo(of: thing, kind: kind, slot: slot))
        pumpThenFinish()
    }

    /// One clip deleted here (row and file) and, through the outbox, on the server; what to say. Throws when
    /// the slot is empty or the database refuses.
    func deleteVideo(of thing: OrbitStore.Thing, kind: String, slot: Int) throws(PluginError) -> String {
        guard let store else { throw PluginError("Collect videos has no database open.") }
        let name = "\(Self.slotName(kind, slot, capitalised: true)) of \(thing.label)"
        let file: String?
        do { file = try store.deleteVideo(thing: thing.id, kind: kind, slot: slot) } catch {
            throw PluginError("\(name) could not be deleted: \(error). Nothing was changed.")
        }
        guard let file else { throw PluginError("\(name) is empty: there is nothing to delete.") }
        deleteClip(file)
        return "\(name) deleted."
    }

    /// A clip's file, wherever it is: in the media folder until it is uploaded, in the cache after.
    func deleteClip(_ name: String) {
        try? host.deleteMedia(name)
        try? host.deleteMedia(name, inCache: true)
    }

    /// "testing video 1 of 2" for slot 0 of kind `S` ("Testing video 1 of 2" to begin a sentence).
    static func slotName(_ kind: String, _ slot: Int, capitalised: Bool = false) -> String {
        "\(capitalised ? kindName(kind).capitalized : kindName(kind)) video \(slot + 1) of \(slots[kind] ?? 0)"
    }

    /// Hands what waits to the outbox, then finishes (the outbox sends in the background and after restarts).
    private func pumpThenFinish() {
        pump()
        host.finish()
    }

    // MARK: Status

    /// "recorded 12 March 14:05, uploaded, checked and suitable, not yet published" (spec §6, §3.27).
    static func describe(_ video: OrbitStore.Video, studyEnd: String?, purged: Bool = false) -> String {
        let date = Date(timeIntervalSince1970: Double(video.recordedAt) / 1000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.dateFormat = "d MMMM HH:mm"
        var parts = ["recorded \(formatter.string(from: date))"]
        parts.append(video.orbitID == nil ? "waiting to upload" : "uploaded")
        guard video.orbitID != nil else { return parts.joined(separator: ", ") }
        let purgedNote = purged ? ". This video is no longer on this device; the server has it" : ""
        switch video.validation {
        case "C":
            parts.append("checked and suitable")
            parts.append(published(video.validation, studyEnd: studyEnd) ? "published" : "not yet published")
        case "P":
            parts.append(
                "rejected because it shows a person or something that identifies someone; re-record to publish")
        case "I": parts.append("rejected as inappropriate; re-record to publish")
        case "M": parts.append("rejected because the thing is missing from it; re-record to publish")
        default: parts.append("not yet checked")
        }
        return parts.joined(separator: ", ") + purgedNote
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
        Self.describe(video, studyEnd: studyEnd, purged: isPurged(video))
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
            parts.append(
                credential() == nil ? "You have not given consent on this device yet." : "You are taking part.")
            parts.append("\(things.count) of 5 things.")
            for thing in things {
                let videos = try store.videos(of: thing.id)
                let testing = 2 - videos.filter { $0.kind == "S" }.count
                let training = 5 - videos.filter { $0.kind == "T" }.count
                var line = "\(thing.label). \(videos.count) of 7 videos."
                if testing + training > 0 { line += " Still to record: \(testing) testing, \(training) training." }
                parts.append(line)
                for video in videos {
                    parts.append(
                        "\(Self.slotName(video.kind, video.slot, capitalised: true)), \(describe(video, studyEnd: period.end))."
                    )
                }
            }
            if !waiting.isEmpty { parts.append(waitingSentence(waiting.count)) }
            if let statuses = statusesSentence() { parts.append(statuses) }
            for failed in waiting where failed.state == "failed" { parts.append(failed.lastError ?? "") }
            return parts.joined(separator: " ")
        } catch {
            throw PluginError("The status cannot be read: \(error).")
        }
    }
}

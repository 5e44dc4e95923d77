import Foundation
import PluginKit

/// The ORBIT Data server's `phasetwo` API (spec §5): consent by `api/createparticipant/` (sent at once and
/// never stored, as it carries the name and email), things by `api/thing/`, each request with the credential
/// verbatim in `Authorization`. Every other request goes through the host outbox, which keeps it across
/// restarts and retries transient failures.
extension CollectVideos {
    // MARK: Consent

    /// `consent --name N --email E --agree-all`: the statements are printed, then sent.
    func consent(_ arguments: [String], quiet: Bool = false) throws(PluginError) {
        if let problem = configuration.problem { throw PluginError(problem) }
        // After withdrawn access, consent may be given again: the new credential takes over and what waits is sent.
        guard credential() == nil || (try? store?.uploadPause()) == "revoked" else {
            throw PluginError(phrases.text("already-taking-part"))
        }
        let text = StudyText(markdown: studyText("consent"))
        let statements = text.statements
        guard !statements.isEmpty else { throw PluginError(phrases.text("consent-text-empty")) }
        if !quiet { for (index, statement) in statements.enumerated() { host.print("\(index + 1). \(statement)") } }
        guard arguments.contains("--agree-all") else {
            throw PluginError(phrases.text("agree-all-needed"))
        }
        let name = Self.value(after: "--name", in: arguments) ?? ""
        let email = Self.value(after: "--email", in: arguments) ?? ""
        let problems = [Rules.nameProblem(name, phrases), Rules.emailProblem(email, phrases)].compactMap { $0 }
        guard problems.isEmpty else { throw PluginError(problems.joined(separator: " ")) }
        guard let base = configuration.serverURL, let app = configuration.appCredential else { return }
        var request = OutboxRequest(method: "POST", url: base + "api/createparticipant/")
        request.headers = [("Authorization", app), ("Accept", "application/json")]
        let body: [String: String] = [
            "name": name.trimmingCharacters(in: .whitespacesAndNewlines),
            "email": email.trimmingCharacters(in: .whitespacesAndNewlines),
        ]
        request.body = .json((try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data())
        request.tag = "consent"
        consentFinished = { [weak self] outcome in self?.consentAnswered(outcome) }
        do { consentJob = try host.sendNow(request) } catch {
            throw PluginError(phrases.text("consent-cannot-send"))
        }
        say(phrases.text("sending-consent"))
    }

    private func consentAnswered(_ outcome: OutboxOutcome) {
        let contact = configuration.contactLine
        switch outcome.status {
        case 201:
            guard
                let object = try? JSONSerialization.jsonObject(with: outcome.body) as? [String: Any],
                let credential = object["auth_credential"] as? String, credential.hasPrefix("Basic ")
            else {
                say(phrases.text("unexpected-reply") + contact)
                return host.finish(.io)
            }
            do { try storeCredential(credential) } catch {
                say(phrases.text("consent-not-saved", ["reason": error.message]))
                return host.finish(.io)
            }
            try? store?.setUploadPause("none")
            say(phrases.text("consent-received"))
            pump()
            refreshParticipant()
            if interactive { thingsMenu() } else { host.finish() }
        case 400:
            say(Self.fieldMessages(outcome.body, phrases: phrases) + " " + phrases.text("correct-and-resend"))
            if interactive { onboarding() } else { host.finish(.invalid) }
        case 403:
            say(phrases.text("setup-not-accepted") + contact)
            if interactive { onboarding() } else { host.finish(.permission) }
        case 0:
            say(phrases.text("server-unreachable") + contact)
            if interactive { onboarding() } else { host.finish(.io) }
        case let status:
            say(phrases.text("unexpected-reply-status", ["status": String(status)]) + contact)
            if interactive { onboarding() } else { host.finish(.io) }
        }
    }

    /// A 400's field errors as sentences, the server's own words: "this field" becomes the field's name
    /// (spec §7).
    public static func fieldMessages(_ body: Data, phrases: PhraseTable) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], !object.isEmpty else {
            return phrases.text("details-refused")
        }
        return object.keys.sorted().map { field in
            let messages = (object[field] as? [String]) ?? [(object[field] as? String) ?? ""]
            let names = [
                "name": "the name", "email": "the email address", "label_participant": "the name",
                "technique": "the kind of video", "file": "the video file", "thing": "the thing",
            ]
            let name = names[field] ?? field
            return messages.map { $0.replacingOccurrences(of: "this field", with: name) }.joined(separator: " ")
        }.joined(separator: " ")
    }

    // MARK: The credential

    private var credentialURL: URL? {
        host.dataDirectory.map { URL(fileURLWithPath: $0).appendingPathComponent("credential") }
    }

    /// The participant's credential, verbatim, or nil before consent.
    func credential() -> String? {
        guard let url = credentialURL, let data = try? Data(contentsOf: url) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Leaving the study: the credential goes (overwritten first, so its bytes do not stay on the disk's free
    /// blocks any longer than the file system keeps them).
    func forgetCredential() {
        guard let url = credentialURL, let handle = try? FileHandle(forWritingTo: url) else { return }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: 0)
        try? handle.write(contentsOf: Data(count: Int(size)))
        try? handle.synchronize()
        try? handle.close()
        try? FileManager.default.removeItem(at: url)
    }

    /// Written whole (a temporary file renamed over it), mode 0600.
    private func storeCredential(_ credential: String) throws(PluginStatus) {
        guard let url = credentialURL else { throw PluginStatus.io }
        try? FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        guard PrivateFile.writeWhole(Data((credential + "\n").utf8), to: url) else { throw PluginStatus.io }
    }

    // MARK: Sending what waits

    func request(_ method: String, _ path: String, json: [String: Any]? = nil, tag: String) -> OutboxRequest? {
        guard let base = configuration.serverURL, let credential = credential() else { return nil }
        var request = OutboxRequest(method: method, url: base + path)
        request.headers = [("Authorization", credential), ("Accept", "application/json")]
        if let json { request.body = .json((try? JSONSerialization.data(withJSONObject: json)) ?? Data()) }
        request.tag = tag
        return request
    }

    /// Every waiting operation not yet handed to the outbox is handed over (a thing's create before anything
    /// that needs its server id).
    func pump() {
        guard let store, credential() != nil, uploadsAllowed(store) else { return }
        do {
            for op in try store.pendingOps() where op.state == "pending" && op.job == nil {
                var made: OutboxRequest?
                switch op.op {
                case "thing_create":
                    guard let id = op.localID, let thing = try store.thing(id: id) else {
                        try store.finish(op.id)
                        continue
                    }
                    made = request("POST", "api/thing/", json: ["label_participant": thing.label], tag: "op:\(op.id)")
                case "thing_rename":
                    guard let id = op.localID, let thing = try store.thing(id: id), let path = op.remotePath else {
                        try store.finish(op.id)
                        continue
                    }
                    made = request("PATCH", path, json: ["label_participant": thing.label], tag: "op:\(op.id)")
                case "thing_delete", "video_delete":
                    guard let path = op.remotePath else { continue }
                    made = request("DELETE", path, tag: "op:\(op.id)")
                case "video_upload":
                    guard let id = op.localID, let video = try store.video(id: id) else {
                        try store.finish(op.id)
                        continue
                    }
                    // Blocked until its thing has a server id; sent in the same pump that gives it one.
                    guard let thing = try store.thing(id: video.thingID), let thingID = thing.orbitID,
                        let folder = host.dataDirectory
                    else { continue }
                    // Only clips not yet uploaded are sent, and those are in the media folder.
                    guard video.location == "data" else {
                        try store.finish(op.id)
                        continue
                    }
                    let root = folder + "/media"
                    made = request("POST", "api/video/", tag: "op:\(op.id)")
                    made?.body = .multipart([
                        .field("thing", "\(thingID)"), .field("technique", video.kind),
                        .file(
                            "file", path: root + "/" + video.filename,
                            filename: (video.filename as NSString).lastPathComponent, contentType: "video/mp4"),
                    ])
                default:
                    continue
                }
                guard let made else { continue }
                try store.markSent(op.id, job: try host.enqueue(made))
            }
        } catch {
            host.log(.error, "waiting changes could not be handed to the outbox: \(error)")
        }
    }

    /// Outcomes: the consent, the participant, and waiting operations (`op:<id>`).
    func handle(_ outcome: OutboxOutcome) -> Bool {
        if outcome.tag == "consent" {
            consentFinished?(outcome)
            consentFinished = nil
            return true
        }
        if outcome.tag == "participant" {
            participantAnswered(outcome)
            return true
        }
        if let tag = outcome.tag, tag.hasPrefix("videos:"), let page = Int(tag.dropFirst(7)) {
            videosAnswered(outcome, page: page)
            return true
        }
        if let tag = outcome.tag, tag.hasPrefix("leave:") {
            leaveAnswered(outcome)
            return true
        }
        if let tag = outcome.tag, tag.hasPrefix("things:"), let page = Int(tag.dropFirst(7)) {
            thingsAnswered(outcome, page: page)
            return true
        }
        guard let store, let tag = outcome.tag, tag.hasPrefix("op:"), let id = Int64(tag.dropFirst(3)),
            let op = try? store.pendingOps().first(where: { $0.id == id })
        else { return true }
        do {
            try apply(outcome, to: op, store: store)
        } catch {
            return false  // offered again at the next start
        }
        pump()
        checkIdle()
        return true
    }

    private func apply(_ outcome: OutboxOutcome, to op: OrbitStore.PendingOp, store: OrbitStore) throws(PluginStatus) {
        let status = outcome.status
        // The clip was deleted or filmed again while it was on its way: nothing of it may stay on the server.
        if op.op == "video_upload", let local = op.localID, try store.video(id: local) == nil {
            if status == 201, let orbitID = Self.uploadedVideo(outcome).id {
                try store.queueDelete(ofServerVideo: orbitID)
            }
            return try store.finish(op.id)
        }
        switch (op.op, status) {
        case ("thing_create", 201):
            guard let object = try? JSONSerialization.jsonObject(with: outcome.body) as? [String: Any],
                let orbitID = (object["id"] as? NSNumber)?.int64Value, let local = op.localID
            else {
                // Created, but the answer cannot be read (cut short, or not JSON): sending it again would make a
                // second thing. The server's list of things says which is ours (`reconcile`).
                try store.setState(op.id, "check", status: status, error: phrases.text("unexpected-reply"))
                reconciled = false
                if onIdle == nil { listThings() }  // a sync lists them once the rest is done
                return
            }
            try store.setOrbitID(orbitID, forThing: local)
            try store.finish(op.id)
            // Renamed while the create was on its way: the server still has the old name.
            if let thing = try store.thing(id: local), thing.label != (object["label_participant"] as? String) {
                try store.rename(thing, to: thing.label)
            }
        case ("thing_rename", 200), ("thing_delete", 204), ("thing_delete", 404), ("video_delete", 204),
            ("video_delete", 404):
            try store.finish(op.id)
        case ("video_upload", 201):
            let (orbitID, validation) = Self.uploadedVideo(outcome)
            guard let orbitID, let local = op.localID, let video = try store.video(id: local) else {
                try store.setState(op.id, "pending", status: status, error: phrases.text("unexpected-reply"))
                return
            }
            // Uploaded: the file moves to the cache, which the host may purge; the server keeps it.
            if video.location == "data" { _ = try? host.moveMediaToCache(video.filename) }
            try store.uploaded(video: local, orbitID: orbitID, validation: validation)
            try store.finish(op.id)
        case ("thing_rename", 404):
            // The server lost it: the thing is created again (and its videos with it, later).
            try store.finish(op.id)
            if let local = op.localID {
                try store.clearOrbitID(forThing: local)
                try store.database.execute(
                    "INSERT INTO pending_op (op, local_id) VALUES ('thing_create', ?)", [.integer(local)])
                if let thing = try store.thing(id: local) { say(phrases.text("sent-again", ["label": thing.label])) }
            }
        case (_, 400):
            // Permanent for this change: kept with the server's words, said, and tried again when the user acts.
            let sentence = refusal(of: op, message: Self.fieldMessages(outcome.body, phrases: phrases), store: store)
            try store.setState(op.id, "failed", status: 400, error: sentence)
            if onIdle == nil {  // a sync says what failed as it ends
                say(sentence)
                // Said in the menus, it has been told. Said by a command (the `record` that handed the clip over,
                // still running when the refusal came back), the menus say it at their next start too.
                if interactive, op.op == "video_upload", let id = op.localID { try? store.markTold(video: id, "R") }
            }
        case (_, 403):
            // Withdrawn, outside the period, or a passing refusal inside it: `participant/` tells which.
            try store.setState(op.id, "pending", status: 403, error: phrases.text("access-refused"))
            refreshParticipant()
        default:
            // Given up by the outbox after its tries (network, 5xx): waits for the next sync.
            try store.setState(
                op.id, "pending", status: outcome.status,
                error: outcome.error ?? phrases.text("answered", ["status": String(status)]))
        }
    }

    /// The server's id and validation of an uploaded clip, from the 201's body (or its `orbit-id` header).
    static func uploadedVideo(_ outcome: OutboxOutcome) -> (id: Int64?, validation: String) {
        let object = (try? JSONSerialization.jsonObject(with: outcome.body)) as? [String: Any]
        let id = (object?["id"] as? NSNumber)?.int64Value ?? outcome.header("orbit-id").flatMap { Int64($0) }
        return (id, (object?["validation"] as? String) ?? "-")
    }

    /// What the user hears when the server refused `op` for good (spec §7).
    private func refusal(of op: OrbitStore.PendingOp, message: String, store: OrbitStore) -> String {
        if op.op == "video_upload", let id = op.localID, let video = try? store.video(id: id),
            let thing = try? store.thing(id: video.thingID)
        {
            return phrases.text(
                "video-refused", ["video": slotName(video.kind, video.slot, of: thing.label), "message": message])
        }
        let label = op.localID.flatMap { try? store.thing(id: $0) }?.label ?? phrases.text("a-thing")
        return phrases.text("name-refused", ["label": label, "message": message])
    }

    /// False while uploads wait for the collection period or for new consent (spec §7). A period that has
    /// begun since lets them go.
    func uploadsAllowed(_ store: OrbitStore) -> Bool {
        switch (try? store.uploadPause()) ?? "none" {
        case "before_period":
            guard let start = (try? store.period())?.start, Self.phase(start: start, end: nil) != .before else {
                return false
            }
            try? store.setUploadPause("none")
            return true
        case "after_period", "revoked": return false
        default: return true
        }
    }

    enum StudyPhase { case before, during, after }

    /// Where `today` (local) is against the study's dates, inclusive as the server compares them.
    static func phase(start: String?, end: String?, today: Date = Date()) -> StudyPhase {
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = .current
        parser.dateFormat = "yyyy-MM-dd"
        let day = parser.string(from: today)
        if let start, parser.date(from: start) != nil, day < start { return .before }
        if let end, parser.date(from: end) != nil, day > end { return .after }
        return .during
    }

    /// "25 November 2026" for a `YYYY-MM-DD` date, in the session's language.
    func spokenDate(_ text: String) -> String {
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.dateFormat = "yyyy-MM-dd"
        guard let date = parser.date(from: text) else { return text }
        return Self.spoken(date, language: host.language, english: "d MMMM yyyy", template: "dMMMMyyyy")
    }

    // MARK: Participant and sync

    /// `GET api/participant/`: the study period (and whether access was withdrawn).
    func refreshParticipant() {
        guard let made = request("GET", "api/participant/", tag: "participant") else { return }
        _ = try? host.enqueue(made)
    }

    /// Statuses (spec §3.26): every page of `GET api/video/`, needing only `id` and `validation`.
    func pollStatuses(page: Int = 1) {
        guard let made = request("GET", "api/video/?page=\(page)", tag: "videos:\(page)") else { return }
        if let job = try? host.enqueue(made) { pollJobs.insert(job) }
    }

    private func videosAnswered(_ outcome: OutboxOutcome, page: Int) {
        defer { checkIdle() }
        // A page asked for by an earlier run (killed before its answer came) is not ours: this run asks afresh.
        guard pollJobs.remove(outcome.job) != nil else { return }
        // A page past the end is 404 {"detail":"Invalid page."}: the list has ended (it shrank meanwhile).
        if outcome.status == 404 && page > 1 {
            try? store?.statusesRead(ok: true)
            return
        }
        guard outcome.status == 200,
            let object = try? JSONSerialization.jsonObject(with: outcome.body) as? [String: Any],
            let results = object["results"] as? [[String: Any]]
        else {
            // The last values stay; "Statuses from <time>" says how old they are when asked.
            try? store?.statusesRead(ok: false)
            return
        }
        for result in results {
            if let thing = (result["thing"] as? NSNumber)?.int64Value { readingVideoThings.insert(thing) }
            guard let id = (result["id"] as? NSNumber)?.int64Value, let validation = result["validation"] as? String,
                ["-", "P", "I", "M", "C"].contains(validation)
            else { continue }
            try? store?.setValidation(validation, forOrbitVideo: id)
        }
        if let next = object["next"] as? String, !next.isEmpty, page < 1000 {
            pollStatuses(page: page + 1)
        } else {
            try? store?.statusesRead(ok: true)
            serverVideoThings = readingVideoThings
            // A clip rejected since the menus opened is said now, unless the participant is filming.
            if interactive && recording == nil { tellRejections(asking: false) {} }
        }
    }

    // MARK: Things made twice

    /// `GET api/thing/`, every page, then `reconcile`.
    func listThings(page: Int = 1) {
        guard let made = request("GET", "api/thing/?page=\(page)", tag: "things:\(page)") else { return }
        if page == 1 { serverThings = [] }
        if let job = try? host.enqueue(made) { pollJobs.insert(job) }
    }

    private func thingsAnswered(_ outcome: OutboxOutcome, page: Int) {
        defer { checkIdle() }
        // An earlier run's page would mix another listing into this one's.
        guard pollJobs.remove(outcome.job) != nil else { return }
        guard outcome.status == 200,
            let object = try? JSONSerialization.jsonObject(with: outcome.body) as? [String: Any],
            let results = object["results"] as? [[String: Any]]
        else { return }  // compared at the next sync
        for result in results {
            if let id = (result["id"] as? NSNumber)?.int64Value, let label = result["label_participant"] as? String {
                serverThings.append((id, label))
            }
        }
        if let next = object["next"] as? String, !next.isEmpty, page < 1000 {
            listThings(page: page + 1)
        } else {
            reconcile(serverThings)
        }
    }

    /// The server's things against ours. ORBIT's `POST api/thing/` has no idempotency, so a create whose answer
    /// was lost (a crash or a cut connection; the outbox then sends it again) or came unreadable can leave a
    /// thing this device never learnt the id of. One with the label of a thing still waiting for its id is
    /// taken as that thing's; one with the label of a thing that has another id, and no videos, is a second
    /// copy and is deleted. Nothing is decided about a label whose create is still on its way.
    func reconcile(_ server: [(id: Int64, label: String)]) {
        guard let store, let things = try? store.things(), let ops = try? store.pendingOps() else { return }
        reconciled = true
        let inFlight = Set(ops.filter { $0.op == "thing_create" && $0.state == "sent" }.compactMap(\.localID))
        let busyLabels = Set(things.filter { inFlight.contains($0.id) }.map(\.label))
        let leaving = Set(ops.filter { $0.op == "thing_delete" }.compactMap(\.remotePath))
        var claimed = Set(things.compactMap(\.orbitID))
        for entry in server where leaving.contains("api/thing/\(entry.id)/") { claimed.insert(entry.id) }
        for thing in things where thing.orbitID == nil && !inFlight.contains(thing.id) {
            guard let match = server.first(where: { $0.label == thing.label && !claimed.contains($0.id) }) else {
                continue
            }
            try? store.adopt(match.id, forThing: thing.id)
            claimed.insert(match.id)
            host.log(.info, "a thing's create had reached the server; its id was taken from the list")
        }
        // Creates that could not be confirmed and are not on the server are sent (again).
        for op in ops where op.op == "thing_create" && op.state == "check" {
            if let id = op.localID, (try? store.thing(id: id))?.orbitID == nil {
                try? store.setState(op.id, "pending", status: nil, error: nil)
            }
        }
        // Second copies, only with a whole status reading to show they have no videos.
        if let withVideos = serverVideoThings {
            let ours = Set(things.filter { $0.orbitID != nil }.map(\.label))
            for entry in server
            where !claimed.contains(entry.id) && !withVideos.contains(entry.id) && ours.contains(entry.label)
                && !busyLabels.contains(entry.label)
            {
                try? store.queueDelete(ofServerThing: entry.id)
                host.log(.info, "a thing created twice on the server is deleted")
            }
        }
        pump()
    }

    /// The study period, and why uploads wait: each change said once (spec §7).
    private func participantAnswered(_ outcome: OutboxOutcome) {
        defer { checkIdle() }
        guard let store else { return }
        let before = (try? store.uploadPause()) ?? "none"
        if outcome.status == 200, let object = try? JSONSerialization.jsonObject(with: outcome.body) as? [String: Any] {
            let (start, end) = (object["study_start"] as? String, object["study_end"] as? String)
            try? store.setPeriod(start: start, end: end)
            let pause: String
            switch Self.phase(start: start, end: end) {
            case .before: pause = "before_period"
            case .after: pause = "after_period"
            case .during: pause = "none"
            }
            guard pause != before else { return }
            try? store.setUploadPause(pause)
            if pause == "before_period", let start { say(phrases.text("uploads-start", ["date": spokenDate(start)])) }
            if pause == "after_period" { say(phrases.text("period-ended")) }
            if pause == "none" { pump() }
        } else if outcome.status == 403, before != "revoked" {
            try? store.setUploadPause("revoked")
            say(phrases.text("access-withdrawn") + configuration.contactLine)
        }
    }

    /// `sync [--wait S]`: sends what waits, asks for the study period, and returns when nothing is on its way
    /// or the time is up.
    func sync(waitSeconds: Double) {
        if let problem = configuration.problem {
            say(problem)
            return host.finish(.unsupported)
        }
        guard credential() != nil else {
            say(phrases.text("consent-first"))
            // Nothing can wait without consent (leaving the study cancels what waited): nothing is left unsent.
            let waiting = (try? store?.pendingOps()) ?? []
            return host.finish(waiting.isEmpty ? .ok : .unsupported)
        }
        say(phrases.text("sending"))
        // Operations handed over before a crash go back to waiting; their outcomes, if any came, are applied.
        // Only when the outbox holds nothing of ours (no job, no outcome on its way), asked once.
        // A create that may have reached the server is checked against its list of things first.
        if let store, let ops = try? store.pendingOps(), ((try? host.pendingUploads()) ?? 0) == 0 {
            for op in ops where op.state == "sent" {
                try? store.setState(op.id, op.op == "thing_create" ? "check" : "pending", status: nil, error: nil)
            }
        }
        pump()
        refreshParticipant()
        pollStatuses()
        // Once everything else is done, the server's things are compared with ours, then the sync ends.
        onIdle = { [weak self] in
            guard let self else { return }
            if reconciled { return finishSync() }
            reconciled = true
            listThings()
            checkIdle()
        }
        host.addTimer(milliseconds: UInt32(max(1, waitSeconds) * 1000), repeating: false) { [weak self] in
            self?.finishSync()
        }
        checkIdle()
    }

    private func finishSync() {
        guard onIdle != nil else { return }
        onIdle = nil
        let waiting = (try? store?.pendingOps()) ?? []
        let failed = waiting.filter { $0.state == "failed" }
        for op in failed { say(op.lastError ?? phrases.text("change-refused")) }
        if waiting.isEmpty {
            say(phrases.text("everything-sent"))
            host.finish()
        } else {
            say(waitingSentence(waiting.count))
            // Not everything reached the server: exit status 1, so a script (or a kiosk keeping a departed
            // person's folder, `send_waiting`) knows to try again.
            host.finish(failed.isEmpty ? .busy : .io)
        }
    }

    /// "3 changes still waiting; ..." with why they wait.
    func waitingSentence(_ count: Int) -> String {
        switch (try? store?.uploadPause()) ?? "none" {
        case "after_period": return phrases.text("changes-kept-ended", count: count)
        case "revoked": return phrases.text("changes-kept-revoked", count: count)
        case "before_period":
            let start = ((try? store?.period())?.start).map(spokenDate) ?? phrases.text("first-day")
            return phrases.text("changes-before-start", count: count, ["date": start])
        default: return phrases.text("changes-waiting", count: count)
        }
    }

    /// "Statuses from 24 November 14:05." when the latest status reading failed (spec §7), else nil.
    func statusesSentence() -> String? {
        guard let statuses = try? store?.statuses(), statuses.failed else { return nil }
        guard let at = statuses.at else { return phrases.text("statuses-unread") }
        let when = Self.spokenTime(Date(timeIntervalSince1970: Double(at) / 1000), language: host.language)
        return phrases.text("statuses-from", ["when": when])
    }

    /// Calls `onIdle` when the outbox has nothing of ours on its way.
    func checkIdle() {
        guard onIdle != nil else { return }
        host.onMain { [weak self] in
            guard let self else { return }
            guard ((try? host.pendingUploads()) ?? 1) == 0 else { return }
            let inFlight = ((try? store?.pendingOps()) ?? [])?.contains { $0.state == "sent" } ?? false
            if !inFlight && pollJobs.isEmpty { onIdle?() }
        }
    }

    // MARK: Texts

    /// A study text: the admin's copy in `/etc/assist/collect-videos/` first, else the one shipped.
    func studyText(_ name: String) -> String {
        var candidates = ["/etc/assist/collect-videos/\(name).md"]
        if let share = host.shareDirectory { candidates.append(share + "/\(name).md") }
        for path in candidates {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return text }
        }
        return ""
    }
}

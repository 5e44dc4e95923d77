import CAudioEncoder
import Foundation
import PluginKit

#if canImport(Glibc)
    import Glibc
#endif

extension Survey {
    /// Seconds before the second and third tries of a round (spec §3.16: about 30 s and 2 min, with jitter);
    /// setting `survey.retry-seconds` ("30,120") changes them.
    var retryDelays: [Double] { settings.retrySeconds }

    var server: Result<ServerConfiguration, MissingSettings> { ServerConfiguration.from { host.setting($0) } }

    // MARK: Saving

    /// The media folder of a submission: its takes and, while it is sent, its documents.
    func submissionFolder(_ definitionID: String, completedAt: Double) -> String {
        "submissions/\(definitionID)-\(Int(completedAt * 1000))"
    }

    /// Saves the session as one submission before any network use: takes move (hard links first, so a crash
    /// at any point leaves either the draft or the submission whole), then one transaction.
    func submit() {
        guard let flow, let definition, let store else { return }
        let completedAt = now()
        let folder = submissionFolder(definition.id, completedAt: completedAt)
        var moved: [String: String] = [:]
        var answers = flow.answers
        do {
            for take in try store.draftRecordings(definition.id) {
                let base = definition.item(take.task)?.file ?? take.task
                if wantsM4A, let target = try encodeM4A(take, to: "\(folder)/\(base).m4a") {
                    moved[take.task] = target
                    if let item = definition.item(take.task), let field = item.field,
                        let part = definition.part(of: item.id)?.id
                    {
                        answers[part]?[field] = "\(base).m4a"
                    }
                    continue
                }
                let target = "\(folder)/\(base).wav"
                let targetPath = try host.createMediaFile(target)
                unlink(targetPath)
                guard link(mediaPath(take.path), targetPath) == 0 else { throw PluginStatus.io }
                moved[take.task] = target
            }
            let initial = definition.parts.first(where: \.once)?.id
            let state: SurveyStore.State = definition.adapter == .none ? .kept : .queued
            _ = try store.submit(
                definition: definition, answers: answers, completedAt: completedAt,
                initialPart: flow.state.parts.contains(initial ?? "") ? initial : nil, movedTakes: moved, state: state)
        } catch {
            for (_, target) in moved { try? host.deleteMedia(target) }
            host.play(.error)
            host.say(phrases.text("disk-full"), priority: .important)
            return
        }
        try? FileManager.default.removeItem(atPath: mediaPath("drafts/\(definition.id)"))
        self.flow = nil
        mode = .finished
        host.play(.success)
        host.say(phrases.text("saved"))
        offerReminders()
        guard definition.adapter == .covid19Sounds else {
            host.say(phrases.text("kept-locally"))
            finishSession()
            return
        }
        finishWhenSettled = true
        startUploads(atHostStart: false)
    }

    /// AAC takes, only when the admin sets `survey.audio-format = "m4a"` (spec §3.12).
    var wantsM4A: Bool { host.setting("audio-format")?.lowercased() == "m4a" }

    /// Encodes a draft take to AAC at 192 kbps in `target` (a media name); nil, after a log line, when FFmpeg
    /// cannot, so the take goes as WAV.
    private func encodeM4A(_ take: SurveyStore.Recording, to target: String) throws -> String? {
        guard let data = FileManager.default.contents(atPath: mediaPath(take.path)), data.count > 44 else {
            return nil
        }
        let path = try host.createMediaFile(target)
        var reason = [CChar](repeating: 0, count: 200)
        let status = data.dropFirst(44).withUnsafeBytes { bytes in
            assist_encode_m4a(
                bytes.bindMemory(to: Int16.self).baseAddress, (data.count - 44) / 2 / max(1, take.channels),
                Int32(take.channels), Int32(take.sampleRate), 192_000, path, &reason, reason.count)
        }
        guard status == 0 else {
            try? host.deleteMedia(target)
            let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            host.log(.warning, "takes are sent as WAV: AAC encoding failed (\(text))")
            return nil
        }
        return target
    }

    /// `sync [--wait SECONDS]`: sends every submission still waiting, with nobody to ask (a per-person kiosk
    /// runs it in a departed person's folder), and finishes once none is on its way or the time is up.
    func sendWaiting(definitionID: String, waitSeconds: Double) throws(PluginError) {
        let definition = try loadDefinition(definitionID)
        self.definition = definition
        let store = try openStore()
        let open: [SurveyStore.State] = [
            .queued, .creatingUser, .registered, .token, .ready, .uploading, .failedRetryable, .failed,
        ]
        let submissions = (try? store.submissions(definition.id)) ?? []
        guard submissions.contains(where: { open.contains($0.state) }) else {
            // Answers of a survey that is not sent stay here: exit status 1, so they are not taken for sent.
            if submissions.contains(where: { $0.state == .kept }) {
                host.say(phrases.text("kept-here"))
                return host.finish(.busy)
            }
            host.say(phrases.text("nothing-waits"))
            return host.finish()
        }
        if case .failure = server {
            host.say(phrases.text("not-configured"))
            return host.finish(.unsupported)
        }
        finishWhenSettled = true
        startUploads(atHostStart: true)
        host.addTimer(milliseconds: UInt32(waitSeconds * 1000), repeating: false) { [weak self] in
            guard let self, finishWhenSettled else { return }
            finishWhenSettled = false
            host.log(.info, "sync: submissions still wait after \(Int(waitSeconds)) s; they are sent later")
            host.finish(.timeout)
        }
    }

    // MARK: The upload state machine

    /// Starts or resumes every submission's upload. At host start a `failed` one gets a fresh round of three;
    /// jobs still in the outbox are left to finish, their outcomes arriving through the handler.
    func startUploads(atHostStart: Bool) {
        guard let definition, definition.adapter == .covid19Sounds else { return }
        do {
            try host.onOutcome { [weak self] outcome in self?.handle(outcome) ?? false }
        } catch {
            host.log(.warning, "the outbox is not available: \(error.message)")
            return
        }
        // Posted, so outcomes waiting from an earlier run are handled first.
        host.onMain { [weak self] in self?.resumeUploads(atHostStart: atHostStart) }
    }

    private func resumeUploads(atHostStart: Bool) {
        guard let definition, let store else { return }
        // While a job of this plugin is still in the outbox, its outcome drives what happens next; starting
        // anything now could send a step twice.
        guard ((try? host.pendingUploads()) ?? 0) == 0 else { return }
        let inFlight = false
        var anyWaiting = false
        for var submission in (try? store.submissions(definition.id)) ?? [] {
            switch submission.state {
            case .done, .kept:
                continue
            case .creatingUser, .registered, .token, .ready, .uploading:
                anyWaiting = true
                // A job still in the outbox answers by itself; one lost to a crash before it was stored
                // counts as a failed try.
                if !inFlight { failTry(&submission, reason: "interrupted") }
            case .queued:
                anyWaiting = true
                tryUpload(&submission)
            case .failedRetryable:
                anyWaiting = true
                let due = (submission.nextRoundAt ?? 0) - now()
                if due <= 0 { tryUpload(&submission) } else { schedule(submission.id, after: due) }
            case .failed:
                anyWaiting = true
                if atHostStart {
                    submission.attempts = 0
                    tryUpload(&submission)
                }
            }
        }
        if !anyWaiting, finishWhenSettled { finishSession() }
    }

    /// One try: the next request of the protocol for this submission (spec §5).
    func tryUpload(_ submission: inout SurveyStore.Submission) {
        guard let store, let definition else { return }
        let server: ServerConfiguration
        switch self.server {
        case .success(let configured): server = configured
        case .failure(let missing):
            host.log(.warning, "sending is not set up: missing \(missing.keys.joined(separator: ", "))")
            submission.state = .queued
            try? store.update(submission)
            if finishWhenSettled {
                host.say(phrases.text("not-configured"))
                finishWhenSettled = false
                finishSession()
            }
            return
        }
        if submission.state != .creatingUser && submission.state != .registered && submission.state != .token
            && submission.state != .ready
        {
            submission.attempts += 1
        }
        let tagPrefix = "survey:\(submission.id):"
        do {
            var account = try store.account(definition.id)
            let token = try store.token(definition.id)
            let request: OutboxRequest
            // Within one try, a step just taken decides the next: a fresh account asks for a token, a fresh token
            // is used at once (however short-lived).
            let step: Covid19SoundsProtocol.Step
            switch submission.state {
            case .registered: step = .passwordGrant
            case .ready: step = .upload
            default: step = Covid19SoundsProtocol.nextStep(account: account, token: token, now: now())
            }
            switch step {
            case .createUser:
                let username = Covid19SoundsProtocol.randomUsername()
                request = Covid19SoundsProtocol.createUser(server, username: username, tag: tagPrefix + "create")
                submission.state = .creatingUser
                account.username = nil
                try store.save(account)
            case .passwordGrant:
                request = Covid19SoundsProtocol.passwordGrant(
                    server, username: account.username ?? "", password: account.password ?? "",
                    tag: tagPrefix + "token")
                submission.state = .token
            case .refresh:
                request = Covid19SoundsProtocol.refreshGrant(
                    server, refreshToken: token?.refreshToken ?? "", tag: tagPrefix + "token")
                submission.state = .token
            case .upload:
                let withInitial = !account.uploadedInitial && account.initialAnswers != nil
                request = try uploadRequest(
                    submission, server: server, account: account, accessToken: token?.accessToken ?? "",
                    withInitial: withInitial, tag: tagPrefix + (withInitial ? "upload+initial" : "upload"))
                submission.state = .uploading
            }
            submission.job = try host.enqueue(request)
            try store.update(submission)
        } catch {
            host.log(.warning, "the upload could not be queued: \(error)")
            failTry(&submission, reason: "\(error)")
        }
    }

    /// Writes the documents beside the audio and builds the one PUT.
    private func uploadRequest(
        _ submission: SurveyStore.Submission, server: ServerConfiguration, account: SurveyStore.Account,
        accessToken: String, withInitial: Bool, tag: String
    ) throws -> OutboxRequest {
        guard let definition, let store else { throw PluginStatus.invalid }
        let recordings = try store.recordings(of: submission.id)
        let folder = submissionFolder(definition.id, completedAt: submission.completedAt)
        let device = Covid19SoundsProtocol.device()
        let type = testMode ? "testing-entry" : definition.entryType
        var documents: [Covid19SoundsProtocol.Document] = []
        // The every-session documents first, then the once-only ones (daily.json, then initial.json).
        for part in definition.parts.filter({ !$0.once }) + definition.parts.filter(\.once) {
            guard let jsonName = part.jsonName else { continue }
            let values: [String: String]
            if part.once {
                guard withInitial, let stored = account.initialAnswers,
                    let decoded = try? JSONDecoder().decode([String: String].self, from: Data(stored.utf8))
                else { continue }
                values = decoded
            } else {
                values = submission.answers[part.id] ?? [:]
            }
            let fields = part.items.compactMap(\.field).reduce(into: [String]()) {
                if !$0.contains($1) { $0.append($1) }
            }
            .compactMap { field in values[field].map { (field, $0) } }
            let data = Covid19SoundsProtocol.document(
                participant: account.username ?? "", completedAt: submission.completedAt, fields: fields,
                locale: language, device: device, type: type)
            let name = "\(folder)/\(jsonName)"
            try? host.deleteMedia(name)  // written again for each try, with the participant id known now
            let path = try host.createMediaFile(name)
            try data.write(to: URL(fileURLWithPath: path))
            documents.append(.init(name: jsonName, path: name))
        }
        let audio = recordings.map {
            Covid19SoundsProtocol.Audio(
                filename: ($0.path as NSString).lastPathComponent, path: $0.path,
                contentType: $0.path.hasSuffix(".m4a") ? "audio/mp4" : "audio/wav")
        }
        return Covid19SoundsProtocol.upload(
            server, accessToken: accessToken, documents: documents, audio: audio, tag: tag)
    }

    /// An outcome from the outbox: the next step of the same try, success, or a failed try.
    func handle(_ outcome: OutboxOutcome) -> Bool {
        guard let tag = outcome.tag, tag.hasPrefix("survey:") else { return true }
        let fields = tag.split(separator: ":").map(String.init)
        guard fields.count == 3, let id = Int64(fields[1]), let store, let definition,
            var submission = (try? store.submissions(definition.id))?.first(where: { $0.id == id })
        else { return true }
        let step = fields[2]
        let ok = outcome.status == 200
        do {
            switch step {
            case "create":
                var account = try store.account(definition.id)
                guard ok, let user = Covid19SoundsProtocol.createdUser(outcome.body) else {
                    failTry(&submission, reason: reason(outcome))
                    return true
                }
                account.username = user.username
                account.password = user.password
                try store.save(account)
                submission.state = .registered
                tryUpload(&submission)
            case "token":
                guard ok, let token = Covid19SoundsProtocol.token(outcome.body, receivedAt: now()) else {
                    if (try? store.token(definition.id)) == nil {
                        try store.save(
                            SurveyStore.Token(
                                accessToken: "", refreshToken: "", expiresAt: 0, forcePasswordGrant: true),
                            for: definition.id)
                    } else {
                        try store.forcePasswordGrant(definition.id)
                    }
                    failTry(&submission, reason: reason(outcome))
                    return true
                }
                try store.save(token, for: definition.id)
                submission.state = .ready
                tryUpload(&submission)
            case "upload", "upload+initial":
                guard ok else {
                    if outcome.status == 401 || outcome.status == 403 { try? store.forcePasswordGrant(definition.id) }
                    failTry(&submission, reason: reason(outcome))
                    return true
                }
                if let object = try? JSONSerialization.jsonObject(with: outcome.body) as? [String: Any],
                    let length = object["received_data_length"]
                {
                    host.log(.info, "the server received \(length) bytes")
                }
                try store.delivered(submission, sentInitial: step == "upload+initial")
                try? FileManager.default.removeItem(
                    atPath: mediaPath(submissionFolder(definition.id, completedAt: submission.completedAt)))
                host.play(.success)
                host.say(phrases.text("sent"))
                settleIfDone()
                host.onMain { [weak self] in self?.resumeUploads(atHostStart: false) }
            default:
                return true
            }
        } catch {
            host.log(.error, "the upload's outcome could not be recorded: \(error)")
            return false
        }
        return true
    }

    private func reason(_ outcome: OutboxOutcome) -> String {
        outcome.error ?? "HTTP \(outcome.status)"
    }

    /// A failed try: the next one after the round's delay, or `failed` after the third.
    func failTry(_ submission: inout SurveyStore.Submission, reason: String) {
        guard let store else { return }
        host.log(.warning, "upload try \(submission.attempts) failed: \(reason)")
        submission.lastError = reason
        submission.job = nil
        if submission.attempts >= 3 {
            submission.state = .failed
            submission.attempts = 0
            submission.nextRoundAt = nil
            try? store.update(submission)
            host.say(phrases.text("failed-three"))
            settleIfDone()
            return
        }
        let delays = retryDelays
        let base = delays[min(max(submission.attempts - 1, 0), delays.count - 1)]
        let delay = base * Double.random(in: 0.9...1.1)
        submission.state = .failedRetryable
        submission.nextRoundAt = now() + delay
        try? store.update(submission)
        if submission.attempts == 1 { host.say(phrases.text("will-send-later")) }
        schedule(submission.id, after: delay)
    }

    private func schedule(_ id: Int64, after seconds: Double) {
        if let earlier = retryTimers[id] { host.cancelTimer(earlier) }
        retryTimers[id] = host.addTimer(milliseconds: UInt32(max(1, seconds * 1000)), repeating: false) {
            [weak self] in
            guard let self, let definition, let store else { return }
            retryTimers[id] = nil
            guard var submission = (try? store.submissions(definition.id))?.first(where: { $0.id == id }),
                submission.state == .failedRetryable
            else { return }
            tryUpload(&submission)
        }
    }

    /// Ends the feature after saving once nothing of this session is still being tried.
    private func settleIfDone() {
        guard finishWhenSettled, let definition, let store else { return }
        let open = ((try? store.submissions(definition.id)) ?? []).contains {
            [.queued, .creatingUser, .registered, .token, .ready, .uploading, .failedRetryable].contains($0.state)
        }
        if !open {
            finishWhenSettled = false
            finishSession()
        }
    }

    // MARK: Menu verbs

    func reportUploads() {
        guard let definition, let store else { return }
        let waiting = ((try? store.submissions(definition.id)) ?? []).filter { $0.state != .done && $0.state != .kept }
        host.say(
            waiting.isEmpty ? phrases.text("uploads-none") : phrases.text("uploads-some", count: waiting.count)
        )
    }

    /// "retry upload": a fresh round for every submission not being sent now.
    func retryUploads() {
        guard let definition, let store else { return }
        for var submission in (try? store.submissions(definition.id)) ?? []
        where [.failed, .failedRetryable, .queued].contains(submission.state) {
            if let timer = retryTimers.removeValue(forKey: submission.id) { host.cancelTimer(timer) }
            submission.attempts = 0
            tryUpload(&submission)
        }
    }

    /// Files no row refers to, left by a crash between linking and committing: draft takes without a row and
    /// submission folders without a submission. Removed at start.
    func sweepOrphanFiles() {
        guard let definition, let store else { return }
        let referenced = Set(((try? store.draftRecordings(definition.id)) ?? []).map(\.path))
        let drafts = "drafts/\(definition.id)"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: mediaPath(drafts))) ?? []
        where !referenced.contains("\(drafts)/\(name)") {
            try? FileManager.default.removeItem(atPath: mediaPath("\(drafts)/\(name)"))
        }
        let kept = Set(
            ((try? store.submissions(definition.id)) ?? []).map {
                submissionFolder(definition.id, completedAt: $0.completedAt)
            })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: mediaPath("submissions"))) ?? []
        where name.hasPrefix(definition.id + "-") {
            let folder = "submissions/\(name)"
            if !kept.contains(folder) {
                try? FileManager.default.removeItem(atPath: mediaPath(folder))
            }
        }
    }
}

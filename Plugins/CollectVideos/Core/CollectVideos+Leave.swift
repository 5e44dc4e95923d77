import Foundation
import PluginKit

/// "Leave the study on this device" (spec §9, issue 36): what this device holds of the study goes (every clip,
/// the things' names, the database's rows and the credential), and, unless the participant keeps them, the
/// server is asked to delete the things it was sent (`DELETE api/thing/{id}/` takes their videos with it;
/// ORBIT has no request that withdraws a participant, so the name and email stay with the team).
extension CollectVideos {
    /// The server's deletions leaving waits for, how many it confirmed, and what runs when they are answered.
    struct LeaveWait {
        var jobs: Set<Int64>
        var deleted = 0
        var done: () -> Void
    }

    /// Leave, asked in the menus: what goes here, then (when the server has things) whether they go there too.
    func askToLeave(back: @escaping () -> Void) {
        let (things, videos, sent) = leaveSummary()
        host.confirm(
            phrases.text("leave-ask", ["things": countedThings(things), "videos": countedVideos(videos)]),
            defaultYes: false, timeoutMilliseconds: 10_000
        ) { [weak self] yes in
            guard let self else { return }
            guard yes else {
                say(phrases.text("still-taking-part"))
                return back()
            }
            let finish = { [weak self] in self?.host.finish() ?? () }
            guard sent > 0 else { return leave(keepSent: true, waitSeconds: 30, done: finish) }
            host.confirm(
                phrases.text("leave-server-ask", ["things": countedThings(sent)]), defaultYes: false,
                timeoutMilliseconds: 15_000
            ) { [weak self] alsoThere in
                self?.leave(keepSent: !alsoThere, waitSeconds: 30, done: finish)
            }
        }
    }

    /// What leaving will delete: things and clips here, and things the server has.
    func leaveSummary() -> (things: Int, videos: Int, sent: Int) {
        guard let store, let things = try? store.things() else { return (0, 0, 0) }
        let videos = things.reduce(0) { $0 + ((try? store.videos(of: $1.id).count) ?? 0) }
        return (things.count, videos, things.filter { $0.orbitID != nil }.count)
    }

    /// `leave --yes [--keep-sent] [--wait S]`.
    func leaveCommand(_ arguments: [String]) throws(PluginError) {
        guard credential() != nil else {
            throw PluginError(phrases.text("not-taking-part"))
        }
        guard arguments.contains("--yes") else {
            throw PluginError(
                leaveQuestion(keepSent: arguments.contains("--keep-sent")) + " " + phrases.text("add-yes-to-leave"))
        }
        let wait = try waitSeconds(arguments, otherwise: 30)
        leave(keepSent: arguments.contains("--keep-sent"), waitSeconds: wait) { [weak self] in self?.host.finish() }
    }

    /// "Leaving the study on this device deletes your 2 things and 5 videos here, and asks the study's server
    /// to delete the 2 things it has and their videos."
    func leaveQuestion(keepSent: Bool) -> String {
        let (thingCount, videoCount, sent) = leaveSummary()
        let counts = ["things": countedThings(thingCount), "videos": countedVideos(videoCount)]
        guard sent > 0 else { return phrases.text("leave-deletes", counts) }
        return keepSent
            ? phrases.text("leave-deletes-keeps-sent", counts)
            : phrases.text(
                "leave-deletes-asks-server", counts.merging(["sent": countedThings(sent)]) { first, _ in first })
    }

    /// "2 things", "1 video": counts within the leaving sentences.
    func countedThings(_ count: Int) -> String { phrases.text("count-things", count: count) }
    func countedVideos(_ count: Int) -> String { phrases.text("count-videos", count: count) }

    /// Leaves, then says what was done and calls `done`: the server's deletions are handed to the outbox (which
    /// keeps them until they are answered, offline too) and waited for up to `waitSeconds`.
    func leave(keepSent: Bool, waitSeconds: Double, done: @escaping () -> Void) {
        guard let store else { return done() }
        let (thingCount, videoCount, _) = leaveSummary()
        // Nothing more of ours leaves for the server: uploads and changes not yet sent are cancelled.
        for op in (try? store.pendingOps()) ?? [] { if let job = op.job { try? host.cancel(job: job) } }
        let things = (try? store.things()) ?? []
        var asked: Set<Int64> = []
        if !keepSent {
            for thing in things {
                guard let orbitID = thing.orbitID,
                    let made = request("DELETE", "api/thing/\(orbitID)/", tag: "leave:\(orbitID)"),
                    let job = try? host.enqueue(made)
                else { continue }
                asked.insert(job)
            }
        }
        var files: [String] = []
        for thing in things { files += ((try? store.videos(of: thing.id)) ?? []).map(\.filename) }
        if let left = try? store.unfinishedRecording() { files.append(left.filename) }
        for file in files { deleteClip(file) }
        do { try store.forgetEverything() } catch {
            host.log(.error, "leaving: the database could not be emptied: \(error)")
        }
        forgetCredential()
        var said = phrases.text(
            "left-study", ["things": countedThings(thingCount), "videos": countedVideos(videoCount)])
        if configuration.contact != nil {
            said += " " + phrases.text("name-email-stay") + configuration.contactLine
        }
        say(said)
        guard !asked.isEmpty else { return done() }
        leaving = LeaveWait(jobs: asked, done: done)
        host.addTimer(milliseconds: UInt32(waitSeconds * 1000), repeating: false) { [weak self] in
            self?.leaveAnswered(nil)
        }
    }

    /// An answer to one of leaving's deletions (nil: the wait is over).
    func leaveAnswered(_ outcome: OutboxOutcome?) {
        guard var waiting = leaving else { return }
        if let outcome {
            waiting.jobs.remove(outcome.job)
            if [204, 404].contains(outcome.status) { waiting.deleted += 1 }
        }
        leaving = waiting
        guard outcome == nil || waiting.jobs.isEmpty else { return }
        leaving = nil
        if waiting.jobs.isEmpty {
            say(phrases.text("server-deleted", ["things": countedThings(waiting.deleted)]))
        } else {
            say(phrases.text("server-not-answered"))
        }
        waiting.done()
    }
}

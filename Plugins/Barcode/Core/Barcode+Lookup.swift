import Foundation
import PluginKit

/// The product lookup of one run, on the main loop: the admin's address, the codes sent and what each job is
/// for, and the problems said already (each once a run).
final class LookupRun {
    let template: String
    var asked: Set<String> = []
    var pending: [Int64: String] = [:]
    var told: Set<String> = []
    /// For a photo: the names found so far, and what to do once nothing is pending.
    var found: [String: ProductLookup.Answer] = [:]
    var whenIdle: (() -> Void)?
    /// A photo's lines were said: names that come later are kept, not said.
    var photoSaid = false

    init(template: String) { self.template = template }
}

/// The optional product lookup (barcode.md, "A product's name from a server"): only when an admin sets
/// `barcode.lookup-url`, only for product numbers whose check digit holds and that have no label of the
/// person's own, each number sent once (the name kept in the labels' database), sent now through the outbox
/// and never stored there. Without the setting nothing is sent anywhere.
extension Barcode {
    /// The setting read and checked; an address that cannot work is said once, and nothing is looked up.
    func setUpLookup() {
        let template = host.setting("barcode.lookup-url")?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !template.isEmpty else { return }
        if let problem = ProductLookup.check(template) {
            host.speak(text(problem.rawValue, ["marker": ProductLookup.marker]), priority: .important)
            return
        }
        do {
            try host.onOutcome { [weak self] outcome in
                self?.looked(outcome)
                return true
            }
        } catch {
            host.speak(text("lookup-unavailable"), priority: .important)
            return
        }
        lookups = LookupRun(template: template)
    }

    /// The name kept from an earlier lookup of `key`, or nil (and, with a lookup set up, the number sent now).
    func lookedUpName(_ key: String) -> String? {
        if case .named(let name) = lookups?.found[key] { return name }
        if let name = try? store().lookedUp(key: key) { return name }
        send(key)
        return nil
    }

    /// Sends the number of `key` once a run; a refusal the host says itself (the network not allowed) stops
    /// the lookups of this run.
    private func send(_ key: String) {
        guard let run = lookups, let number = ProductLookup.number(forKey: key), !run.asked.contains(key) else {
            return
        }
        run.asked.insert(key)
        do {
            var request = OutboxRequest(
                method: "GET", url: try ProductLookup.address(run.template, number: number))
            request.headers = [("Accept", "application/json")]
            request.tag = key
            run.pending[try host.sendNow(request)] = key
        } catch let problem as ProductLookup.Problem {
            host.speak(text(problem.rawValue, ["marker": ProductLookup.marker]), priority: .important)
            lookups = nil
        } catch let status as PluginStatus where status == .permission {
            lookups = nil
        } catch {
            tell(
                run, "lookup-failed",
                ["reason": Self.sentence(error).trimmingCharacters(in: CharacterSet(charactersIn: ". "))])
            lookups = nil
        }
    }

    /// An answer: a name is kept and said (a photo's wait for all of them first); a number the server does not
    /// know is said; a server that could not be reached, or answered something that is not a name, is said
    /// once a run.
    func looked(_ outcome: OutboxOutcome) {
        guard let run = lookups, let key = run.pending.removeValue(forKey: outcome.job) ?? outcome.tag else { return }
        let number = ProductLookup.number(forKey: key) ?? key
        if outcome.status == 0 {
            let reason = (outcome.error ?? "").trimmingCharacters(in: CharacterSet(charactersIn: ". "))
            tell(run, "lookup-unreachable", ["reason": CodeText.clean(reason)])
        } else {
            let answer = ProductLookup.answer(
                status: outcome.status, contentType: outcome.header("Content-Type"), body: outcome.body,
                language: host.language)
            run.found[key] = answer
            switch answer {
            case .named(let name):
                try? store().saveLookedUp(key: key, name: name)
                if run.whenIdle == nil, !run.photoSaid {
                    host.speak(text("lookup-found", ["name": name]), priority: .important)
                }
            case .unknown:
                if run.whenIdle == nil, !run.photoSaid { host.speak(text("lookup-unknown", ["number": number])) }
            case .noName:
                let type = outcome.header("Content-Type")?.split(separator: ";").first.map(String.init) ?? "nothing"
                tell(run, "lookup-no-name", ["status": String(outcome.status), "type": CodeText.clean(type)])
            }
        }
        if run.pending.isEmpty, let idle = run.whenIdle {
            run.whenIdle = nil
            idle()
        }
    }

    /// How long a photo's lines wait for the names looked up.
    static let photoLookupMilliseconds: UInt32 = 8_000

    /// Says a problem with the lookup once a run.
    private func tell(_ run: LookupRun, _ key: String, _ values: [String: String]) {
        guard run.told.insert(key).inserted else { return }
        host.speak(text(key, values), priority: .important)
    }

    /// A photo's codes, each as its line, once the lookups they need have answered.
    func sayPhoto(_ codes: [FoundCode]) {
        let lines = { [self] in
            lookups?.photoSaid = true
            for code in codes { host.speak(sentenceWithoutHint(code)) }
            host.finish()
        }
        guard let run = lookups else { return lines() }
        for code in codes where (try? store().label(forKey: CodeText.key(code))) == nil {
            _ = lookedUpName(CodeText.key(code))
        }
        guard lookups != nil, !run.pending.isEmpty else { return lines() }
        run.whenIdle = lines
        // A server that holds the request (the outbox gives up after 60 s without a byte) does not hold the
        // photo's lines: after a few seconds they are said without the names still awaited (a name that comes
        // later is still kept for the next read), and the server's silence once.
        _ = host.addTimer(milliseconds: Self.photoLookupMilliseconds, repeating: false) { [weak self, run] in
            guard let self, let idle = run.whenIdle else { return }
            run.whenIdle = nil
            tell(run, "lookup-slow", ["seconds": String(Self.photoLookupMilliseconds / 1_000)])
            idle()
        }
    }
}

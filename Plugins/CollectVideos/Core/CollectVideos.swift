import Foundation
import PluginKit

/// The ORBIT Camera port (spec collect-videos.md): consent, things, and the ORBIT Data server's protocol
/// through the host outbox. Verbs (`assist run collect-videos VERB`): `consent --name N --email E
/// --agree-all`, `thing add LABEL`, `thing rename OLD NEW`, `thing delete LABEL --yes`, `sync [--wait S]`,
/// `status [--json]`. Every method runs on [main].
public final class CollectVideos: PluginFeature {
    let host: PluginHostHandle
    var store: OrbitStore?
    let configuration: OrbitConfiguration
    /// Runs once when the work a verb waits for is done.
    var onIdle: (() -> Void)?
    var consentJob: Int64?
    var consentFinished: ((OutboxOutcome) -> Void)?

    public init(host: PluginHostHandle) {
        self.host = host
        configuration = OrbitConfiguration { host.setting($0) }
    }

    public func start(arguments: [String]) throws(PluginError) {
        do { store = try OrbitStore(host: host) } catch {
            throw PluginError("Collect videos cannot open its database: \(error.message)")
        }
        try? host.onOutcome { [weak self] outcome in self?.handle(outcome) ?? false }
        switch (arguments.first, arguments.dropFirst().first) {
        case ("consent", _): try consent(Array(arguments.dropFirst()))
        case ("thing", "add"): try addThing(arguments.dropFirst(2).joined(separator: " "))
        case ("thing", "rename"): try renameThing(Array(arguments.dropFirst(2)))
        case ("thing", "delete"): try deleteThing(Array(arguments.dropFirst(2)))
        case ("sync", _): sync(waitSeconds: Self.number(after: "--wait", in: arguments) ?? 60)
        case ("status", _):
            host.print(try status(json: arguments.contains("--json")))
            host.finish()
        case (nil, _):
            say(try status(json: false))
            say(
                "The menus come in the next version. Use assist run collect-videos with consent, thing, sync or status."
            )
            host.finish()
        case (let other?, _):
            throw PluginError(
                "Unknown collect-videos command \(other). Use consent, thing add, thing rename, thing delete, sync or status."
            )
        }
    }

    func say(_ text: String) { host.say(text) }

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
            if try store.thing(labelled: trimmed) != nil {
                throw PluginError("You already have a thing called \(trimmed).")
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
            for file in try store.delete(thing) { try? host.deleteMedia(file) }
            say("\(thing.label) deleted, with its videos.")
        } catch let error as PluginError {
            throw error
        } catch {
            throw PluginError("The thing could not be deleted: \(error).")
        }
        pumpThenFinish()
    }

    /// Hands what waits to the outbox, then finishes (the outbox sends in the background and after restarts).
    private func pumpThenFinish() {
        pump()
        host.finish()
    }

    // MARK: Status

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
                    "things": things.map { ["label": $0.label, "server_id": $0.orbitID as Any, "videos": 0] },
                    "waiting": waiting.count,
                    "failed": waiting.filter { $0.state == "failed" }.map { $0.lastError ?? "" },
                    "study_start": period.start as Any, "study_end": period.end as Any,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                return String(decoding: data, as: UTF8.self)
            }
            var parts: [String] = []
            if let problem = configuration.problem { parts.append(problem) }
            parts.append(
                credential() == nil ? "You have not given consent on this device yet." : "You are taking part.")
            parts.append(
                "\(things.count) of 5 things\(things.isEmpty ? "." : ": " + things.map(\.label).joined(separator: ", ") + ".")"
            )
            if !waiting.isEmpty {
                parts.append("\(waiting.count) change\(waiting.count == 1 ? "" : "s") waiting to be sent.")
            }
            for failed in waiting where failed.state == "failed" { parts.append(failed.lastError ?? "") }
            return parts.joined(separator: " ")
        } catch {
            throw PluginError("The status cannot be read: \(error).")
        }
    }
}

import Foundation
import PluginKit

/// The labels from the command line: `labels`, `forget NAME|CODE [--yes]`, `rename OLD NEW`, `export FILE`,
/// `import FILE` (barcode.md, "Your labels").
extension Barcode {
    /// The sentence of a failure from the labels' database or from the plugin's own checks.
    static func sentence(_ error: any Error) -> String {
        (error as? PluginError)?.message ?? (error as? PluginStatus)?.message ?? "\(error)"
    }

    func listLabels() {
        do {
            let labels = try store().all()
            if labels.isEmpty { host.speak(text("no-labels")) }
            for label in labels {
                host.speak(text("label-line", ["name": label.name, "kind": label.kind, "code": label.code]))
            }
            host.finish()
        } catch { fail(Self.sentence(error), status: .io) }
    }

    func forget(_ name: String, confirmed: Bool) {
        do {
            let store = try store()
            guard let label = try store.label(named: name) else {
                return fail(text("label-unknown", ["name": NameKey.cleaned(name)]), status: .notFound)
            }
            let forget = { [self] in
                do {
                    try store.delete(key: label.key)
                    host.speak(text("label-forgotten", ["name": label.name]))
                    host.finish()
                } catch { fail(Self.sentence(error), status: .io) }
            }
            if confirmed { return forget() }
            host.confirm(text("label-forget-ask", ["name": label.name]), defaultYes: false, timeoutMilliseconds: 15_000)
            { [self] yes in
                guard yes else {
                    host.speak(text("label-kept", ["name": label.name]))
                    return host.finish(.cancelled)
                }
                forget()
            }
        } catch { fail(Self.sentence(error), status: .io) }
    }

    func rename(_ old: String, to new: String) {
        do {
            let store = try store()
            guard var label = try store.label(named: old) else {
                return fail(text("label-unknown", ["name": NameKey.cleaned(old)]), status: .notFound)
            }
            let clash = try store.label(named: new)
            if let problem = LabelName.problem(new, existing: clash, forKey: label.key) {
                return fail(
                    text(problem, ["name": NameKey.cleaned(new), "longest": String(LabelName.longest)]),
                    status: .invalid)
            }
            let before = label.name
            label.name = NameKey.cleaned(new)
            try store.save(label)
            host.speak(text("label-renamed", ["old": before, "name": label.name]))
            host.finish()
        } catch { fail(Self.sentence(error), status: .io) }
    }

    func export(to path: String) {
        do {
            let labels = try store().all()
            let csv = LabelsCSV.write(labels.map { [$0.kind, $0.code, $0.name] })
            do {
                try Data(csv.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                return fail(text("export-failed", ["path": path]), status: .io)
            }
            host.speak(text("exported", ["count": String(labels.count), "path": path]))
            host.finish()
        } catch { fail(Self.sentence(error), status: .io) }
    }

    /// Reads a CSV of labels: each good row saved (a code already named gets the new name), each bad row
    /// said with its line and skipped; nothing is saved from a file that is not CSV or not labels.
    func importLabels(from path: String) {
        let url = URL(fileURLWithPath: path)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= 5_000_000, let data = try? Data(contentsOf: url),
            let content = String(data: data, encoding: .utf8)
        else {
            return fail(text("import-unreadable", ["path": path]), status: .invalid)
        }
        guard case .success(let rows) = LabelsCSV.read(content), let header = rows.first,
            header.fields.map({ $0.lowercased() }) == LabelsCSV.header
        else {
            return fail(text("import-not-labels", ["path": path]), status: .invalid)
        }
        do {
            let store = try store()
            var added = 0
            var updated = 0
            var skipped = 0
            for (line, fields) in rows.dropFirst() {
                guard let problem = try importRow(fields, into: store, added: &added, updated: &updated) else {
                    continue
                }
                skipped += 1
                host.speak(text("import-skipped", ["line": String(line), "reason": problem]))
            }
            host.speak(
                text("imported", ["added": String(added), "updated": String(updated), "skipped": String(skipped)]))
            host.finish(skipped > 0 && added + updated == 0 ? .invalid : .ok)
        } catch { fail(Self.sentence(error), status: .io) }
    }

    /// Saves one row; the reason it cannot be, as a sentence, or nil.
    private func importRow(_ fields: [String], into store: LabelStore, added: inout Int, updated: inout Int)
        throws(PluginError) -> String?
    {
        guard fields.count == 3 else { return text("import-fields") }
        guard let kind = FoundCode.Kind(rawValue: fields[0]) else {
            return text("import-kind", ["kind": CodeText.clean(fields[0])])
        }
        let code = FoundCode(kind: kind, text: fields[1])
        guard !fields[1].isEmpty, CodeText.clean(fields[1]) == fields[1], CodeText.checkDigitHolds(code) else {
            return text("import-code", ["code": CodeText.clean(fields[1])])
        }
        let key = CodeText.key(code)
        do {
            if let problem = LabelName.problem(fields[2], existing: try store.label(named: fields[2]), forKey: key) {
                return text(problem, ["name": NameKey.cleaned(fields[2]), "longest": String(LabelName.longest)])
            }
            let name = NameKey.cleaned(fields[2])
            let before = try store.label(forKey: key)
            guard before?.name != name else { return nil }  // the same name again: nothing to do
            try store.save(LabelStore.Label(key: key, kind: kind.rawValue, code: fields[1], name: name))
            if before == nil { added += 1 } else { updated += 1 }
            return nil
        } catch { throw PluginError(unreadableLabels(error)) }
    }

    /// Why the labels cannot be read; when their file is damaged, the way out (`labels --start-again`).
    func unreadableLabels(_ error: PluginStatus) -> String {
        if LabelStore.file.isDamaged(in: host.dataDirectory, failing: error) {
            return text("labels-damaged")
        }
        // The storage service's reason is a sentence of its own: its full stop is the phrase's.
        var reason = error.message
        while reason.hasSuffix(".") { reason.removeLast() }
        return text("labels-unreadable", ["reason": reason])
    }

    /// `labels --start-again`: a damaged labels file is kept aside (`labels.sqlite.damaged-DATE`, with its
    /// journal), and the next label starts a new one. A file that can be read is left alone.
    func startLabelsAgain() throws(PluginError) {
        guard let folder = host.dataDirectory else { throw PluginError(text("labels-usage")) }
        let outcome: DamagedDatabase.StartedAgain
        do {
            outcome = try LabelStore.file.startAgain(in: folder) { () throws(PluginStatus) in
                _ = try LabelStore(host: host)
            }
        } catch {
            switch error {
            case .unreadable(let error): throw PluginError(unreadableLabels(error))
            case .notMoved(let reason): throw PluginError(text("labels-not-moved", ["reason": reason]))
            }
        }
        guard case .keptAside(let kept) = outcome else { throw PluginError(text("labels-not-damaged")) }
        host.speak(text("labels-kept-aside", ["path": kept]))
        host.finish()
    }

}

import Foundation

/// Keeps every event as a JSON line in `<data>/events.jsonl` (mode 0600) so `assist events --follow` in
/// another process can print them; the file starts over (keeping one `.1`) past 1 MB. Writes happen on a
/// queue of its own, never on the main loop.
package final class EventJournal: Sendable {
    /// The journal file.
    package let url: URL
    private let queue = DispatchQueue(label: "assist-event-journal")
    private static let limitBytes = 1 << 20

    /// Starts recording `bus`'s events into `<dataDirectory>/events.jsonl`.
    package init(bus: EventBus, dataDirectory: URL) {
        url = dataDirectory.appendingPathComponent("events.jsonl")
        let queue = self.queue
        let url = self.url
        bus.subscribe(prefix: "") { name, json in
            guard !Self.isLiveOnly(name) else { return }
            let time = ISO8601DateFormatter().string(from: Date())
            let line = Self.line(time: time, name: name, json: json)
            queue.async { Self.append(line, to: url) }
        }
    }

    /// Events for live viewers only (`<id>.view.…`: what read-text is reading, for the low-vision view) are never
    /// kept: what a person reads or sees is not written to disk.
    package static func isLiveOnly(_ name: String) -> Bool { name.lowercased().contains(".view.") }

    /// One journal line: `{"time":…,"name":…,"payload":…}`.
    package static func line(time: String, name: String, json: String) -> String {
        let escapedName =
            String(data: (try? JSONEncoder().encode(name)) ?? Data("\"\"".utf8), encoding: .utf8) ?? "\"\""
        return #"{"time":"\#(time)","name":\#(escapedName),"payload":\#(json)}"# + "\n"
    }

    private static func append(_ line: String, to url: URL) {
        let manager = FileManager.default
        if let size = (try? manager.attributesOfItem(atPath: url.path))?[.size] as? Int, size > limitBytes {
            let old = url.appendingPathExtension("1")
            try? manager.removeItem(at: old)
            try? manager.moveItem(at: url, to: old)
        }
        if !manager.fileExists(atPath: url.path) {
            try? AssistPaths.ensurePrivateDirectory(url.deletingLastPathComponent())
            _ = manager.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        guard let handle = try? FileHandle(forWritingTo: url) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(line.utf8))
    }

    /// The well-formed events in `data` (lines of the journal), whose name starts with `prefix`, and how many
    /// lines were damaged: not UTF-8, not a JSON object, or without a string `name`. Blank lines are neither.
    package static func parse(_ data: Data, prefix: String = "") -> (lines: [String], skipped: Int) {
        var lines: [String] = []
        var skipped = 0
        for raw in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let text = String(validating: raw, as: UTF8.self),
                let object = try? JSONSerialization.jsonObject(with: Data(raw)) as? [String: Any],
                let name = object["name"] as? String
            else {
                if raw.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) { skipped += 1 }
                continue
            }
            if name.hasPrefix(prefix) { lines.append(text) }
        }
        return (lines, skipped)
    }

    /// Waits until every event published so far is written (tests, shutdown).
    package func flush() {
        queue.sync {}
    }
}

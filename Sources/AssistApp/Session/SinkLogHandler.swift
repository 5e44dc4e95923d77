import AssistCore
import Foundation
import Logging

/// Where a `SinkLogHandler` writes a line: the log file or the journal.
package protocol LogSink: Sendable {
    /// Writes one line of `label`'s logger with all its metadata (the handler's, its provider's, the line's).
    func write(label: String, event: LogEvent, metadata: Logger.Metadata)
}

/// A log handler that hands each line, with its metadata merged, to a sink; one per logger label.
package struct SinkLogHandler<Sink: LogSink>: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let sink: Sink

    package init(label: String, level: Logger.Level, sink: Sink) {
        self.label = label
        self.logLevel = level
        self.sink = sink
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The handler's metadata, then its provider's, then the line's own, later ones winning.
    package func log(event: LogEvent) {
        var all = metadata
        if let extra = metadataProvider?.get() { all.merge(extra) { _, new in new } }
        if let explicit = event.metadata { all.merge(explicit) { _, new in new } }
        sink.write(label: label, event: event, metadata: all)
    }
}

/// Log lines in `<data>/logs/assist.log` (0600, in a 0700 folder): where they go when standard error is a
/// terminal a person reads and `--verbose` was not given, so warnings meant for admins never land between the
/// lines Assist says. The file is opened at the first line; one over 1 MB is moved to `assist.log.1` then. Every
/// handler of the process shares it.
package final class LogFile: LogSink, @unchecked Sendable {  // because: `handle` is guarded by `lock`
    private let lock = NSLock()
    private var url: URL
    private var handle: FileHandle?
    private var failed = false
    /// A file larger than this at the first line is moved aside.
    static let rotateBytes = 1_000_000

    /// The file `assist.log` in `folder`.
    package init(folder: URL) {
        url = folder.appendingPathComponent("assist.log")
    }

    /// Where the lines go.
    package var path: String { lock.withLock { url.path } }

    /// The file `assist.log` in `folder` from now on (the one written so far is closed).
    package func move(to folder: URL) {
        lock.withLock {
            try? handle?.close()
            handle = nil
            failed = false
            url = folder.appendingPathComponent("assist.log")
        }
    }

    package func write(label: String, event: LogEvent, metadata: Logger.Metadata) {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = ISO8601DateFormatter().string(from: Date())
        append("\(time) \(event.level) \(label): \(event.message)\(fields.isEmpty ? "" : " " + fields)")
    }

    func append(_ line: String) {
        lock.withLock {
            guard let handle = handle ?? open() else { return }
            try? handle.write(contentsOf: Data((PlainText.clean(line) + "\n").utf8))
        }
    }

    private func open() -> FileHandle? {
        guard !failed else { return nil }
        let manager = FileManager.default
        do {
            try AssistPaths.ensurePrivateDirectory(url.deletingLastPathComponent())
            if let size = (try? manager.attributesOfItem(atPath: url.path))?[.size] as? Int, size > Self.rotateBytes {
                let old = url.appendingPathExtension("1")
                try? manager.removeItem(at: old)
                try manager.moveItem(at: url, to: old)
            }
            if !manager.fileExists(atPath: url.path) {
                _ = manager.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            let opened = try FileHandle(forWritingTo: url)
            _ = try opened.seekToEnd()
            handle = opened
            return opened
        } catch {
            failed = true
            return nil
        }
    }
}

import AssistCore
import Foundation
import Logging

/// Log lines in `<data>/logs/assist.log` (0600, in a 0700 folder): where they go when standard error is a
/// terminal a person reads and `--verbose` was not given, so warnings meant for admins never land between the
/// lines Assist says. The file is opened at the first line; one over 1 MB is moved to `assist.log.1` then.
package struct FileLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let file: LogFile

    package init(label: String, level: Logger.Level, file: LogFile) {
        self.label = label
        self.logLevel = level
        self.file = file
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let fields = allMetadata(for: event).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
            separator: " ")
        let time = ISO8601DateFormatter().string(from: Date())
        file.append("\(time) \(event.level) \(label): \(event.message)\(fields.isEmpty ? "" : " " + fields)")
    }
}

/// The log file every handler of the process shares.
package final class LogFile: @unchecked Sendable {  // because: `handle` is guarded by `lock`
    private let lock = NSLock()
    private let url: URL
    private var handle: FileHandle?
    private var failed = false
    /// A file larger than this at the first line is moved aside.
    static let rotateBytes = 1_000_000

    /// The file `assist.log` in `folder`.
    package init(folder: URL) {
        url = folder.appendingPathComponent("assist.log")
    }

    /// Where the lines go.
    package var path: String { url.path }

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

extension LogHandler {
    /// The handler's metadata, then its provider's, then the line's own, later ones winning.
    func allMetadata(for event: LogEvent) -> Logger.Metadata {
        var all = metadata
        if let extra = metadataProvider?.get() { all.merge(extra) { _, new in new } }
        if let explicit = event.metadata { all.merge(explicit) { _, new in new } }
        return all
    }
}

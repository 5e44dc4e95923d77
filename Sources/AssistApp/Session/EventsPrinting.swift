import AssistCore
import Foundation
import Runtime

/// `assist events`: the event journal of the data folder as JSON lines on the terminal's output, the last `last`
/// of them (those whose name starts with `prefix`); with `follow`, new ones as they are written, until the
/// terminal hangs up (the process's own: until a signal ends it). Damaged lines are skipped and counted on the
/// terminal's errors.
package enum EventsPrinting {
    package static func run(
        _ options: HostOptions, follow: Bool, prefix: String, last: Int,
        environment: [String: String] = ProcessInfo.processInfo.environment, terminal: SessionTerminal = .standard
    ) throws {
        let paths = AssistPaths.resolve(dataDir: options.dataDir, shareDir: options.shareDir, environment: environment)
        let url = paths.data.appendingPathComponent("events.jsonl")
        var offset: UInt64 = 0
        var folder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &folder), folder.boolValue {
            throw CLIFailure(
                message: "The event journal \(url.path) is a folder, not a file, so no events can be kept or read. "
                    + "Move that folder elsewhere; Assist then starts a new journal.", exitCode: 1)
        }
        if let data = try? Data(contentsOf: url) {
            let complete = completeLines(data)
            let read = EventJournal.parse(complete, prefix: prefix)
            read.lines.suffix(max(0, last)).forEach { terminal.output.writeLine($0) }
            report(skipped: read.skipped, in: url, terminal: terminal)
            // NUL bytes after the last line are what a crash or a full disk leaves, not a line being written.
            let tail = data.suffix(from: complete.count)
            if tail.contains(0) {
                terminal.errors.writeLine(
                    "The last \(tail.count) bytes of \(url.path) are not events (NUL bytes, as a crash or a full "
                        + "disk leaves them); they were skipped.")
            }
            offset = UInt64(complete.count)
        }
        guard follow else { return }
        let ended = Locked(false)
        terminal.hangUp?.watch { ended.withLock { $0 = true } }
        while !ended.withLock({ $0 }) {
            let size =
                ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.uint64Value ?? 0
            if size < offset { offset = 0 }  // the journal started over
            if size > offset, let handle = try? FileHandle(forReadingFrom: url) {
                try? handle.seek(toOffset: offset)
                let data = (try? handle.readToEnd()) ?? Data()
                try? handle.close()
                let complete = completeLines(data)
                offset += UInt64(complete.count)
                let read = EventJournal.parse(complete, prefix: prefix)
                read.lines.forEach { terminal.output.writeLine($0) }
                report(skipped: read.skipped, in: url, terminal: terminal)
            }
            usleep(200_000)
        }
    }

    /// `data` up to and including its last newline: a line still being written waits for the next look.
    private static func completeLines(_ data: Data) -> Data {
        data.lastIndex(of: UInt8(ascii: "\n")).map { data.prefix(through: $0) } ?? Data()
    }

    private static func report(skipped: Int, in url: URL, terminal: SessionTerminal) {
        guard skipped > 0 else { return }
        terminal.errors.writeLine("\(skipped) damaged line\(skipped == 1 ? " was" : "s were") skipped in \(url.path).")
    }
}

import ArgumentParser
import AssistApp
import AssistCore
import Foundation
import Interaction
import PluginHost

/// `assist events [--follow]`: prints the events of running Assist sessions as JSON lines.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print Assist's events as JSON lines (plugins started and stopped, the camera, plugins' own).")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Keep printing new events as they happen, until interrupted.")
    var follow = false

    @Option(help: "Only events whose name starts with this (assist.plugin.).")
    var prefix: String = ""

    // Unconditional: "-1" is taken as the value (and refused below), not as an option named 1.
    @Option(parsing: .unconditional, help: "How many past events to print first (0 to 100000).")
    var last: Int = 20

    func validate() throws {
        guard (0...100_000).contains(last) else {
            throw ValidationError("--last must be a count from 0 to 100000, not \(last)")
        }
    }

    func run() throws {
        let paths = AssistPaths.resolve(dataDir: global.dataDir, shareDir: global.shareDir)
        let url = paths.data.appendingPathComponent("events.jsonl")
        let output = StandardOutput()
        var offset: UInt64 = 0
        var folder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &folder), folder.boolValue {
            throw CLIFailure(
                message: "The event journal \(url.path) is a folder, not a file, so no events can be kept or read. "
                    + "Move that folder elsewhere; Assist then starts a new journal.", exitCode: 1)
        }
        if let data = try? Data(contentsOf: url) {
            let complete = Self.completeLines(data)
            let read = EventJournal.parse(complete, prefix: prefix)
            read.lines.suffix(max(0, last)).forEach { output.writeLine($0) }
            report(skipped: read.skipped, in: url)
            // NUL bytes after the last line are what a crash or a full disk leaves, not a line being written.
            let tail = data.suffix(from: complete.count)
            if tail.contains(0) {
                try? FileHandle.standardError.write(
                    contentsOf: Data(
                        ("The last \(tail.count) bytes of \(url.path) are not events (NUL bytes, as a crash or a full "
                            + "disk leaves them); they were skipped.\n").utf8))
            }
            offset = UInt64(complete.count)
        }
        guard follow else { return }
        while true {
            let size =
                ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.uint64Value ?? 0
            if size < offset { offset = 0 }  // the journal started over
            if size > offset, let handle = try? FileHandle(forReadingFrom: url) {
                try? handle.seek(toOffset: offset)
                let data = (try? handle.readToEnd()) ?? Data()
                try? handle.close()
                let complete = Self.completeLines(data)
                offset += UInt64(complete.count)
                let read = EventJournal.parse(complete, prefix: prefix)
                read.lines.forEach { output.writeLine($0) }
                report(skipped: read.skipped, in: url)
            }
            usleep(200_000)
        }
    }

    /// `data` up to and including its last newline: a line still being written waits for the next look.
    private static func completeLines(_ data: Data) -> Data {
        data.lastIndex(of: UInt8(ascii: "\n")).map { data.prefix(through: $0) } ?? Data()
    }

    private func report(skipped: Int, in url: URL) {
        guard skipped > 0 else { return }
        try? FileHandle.standardError.write(
            contentsOf:
                Data("\(skipped) damaged line\(skipped == 1 ? " was" : "s were") skipped in \(url.path).\n".utf8))
    }
}

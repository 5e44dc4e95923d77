import ArgumentParser
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

    @Option(help: "How many past events to print first.")
    var last: Int = 20

    func run() throws {
        let paths = HostPaths.resolve(dataDir: global.dataDir, shareDir: global.shareDir)
        let url = paths.data.appendingPathComponent("events.jsonl")
        let output = StandardOutput()
        var offset: UInt64 = 0
        if let text = try? String(contentsOf: url, encoding: .utf8) {
            let lines = text.split(separator: "\n").filter(matches)
            lines.suffix(max(0, last)).forEach { output.writeLine(String($0)) }
            offset = UInt64(text.utf8.count)
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
                let complete = data.lastIndex(of: UInt8(ascii: "\n")).map { data.prefix(through: $0) } ?? Data()
                offset += UInt64(complete.count)
                String(decoding: complete, as: UTF8.self).split(separator: "\n").filter(matches).forEach {
                    output.writeLine(String($0))
                }
            }
            usleep(200_000)
        }
    }

    private func matches(_ line: Substring) -> Bool {
        prefix.isEmpty || line.contains(#""name":"\#(prefix)"#)
    }
}

import Foundation
import Logging
import Runtime

/// Log lines to systemd's journal with its native protocol (written here, as in sd_journal_send(3)): one
/// datagram of fields to `/run/systemd/journal/socket`. A plugin's lines carry `PLUGIN_ID=` (the `plugin`
/// metadata), so `journalctl PLUGIN_ID=assist.survey` shows one feature's lines.
///
/// Used only when standard error is the journal (systemd's `JOURNAL_STREAM` names it, as
/// sd_journal_stream_fd(3) advises checking); elsewhere lines go to standard error as before.
package final class JournalSocket: LogSink, @unchecked Sendable {  // because: fixed after init; sendto is thread-safe
    private let descriptor: Int32
    private let address: UnixSocketAddress

    /// syslog priorities: 7 debug … 2 critical.
    package static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    package func write(label: String, event: LogEvent, metadata: Logger.Metadata) {
        let (level, message) = (event.level, event.message)
        var all = metadata
        var fields = [
            ("MESSAGE", message.description), ("PRIORITY", String(Self.priority(level))),
            ("SYSLOG_IDENTIFIER", "assist"), ("ASSIST_LOGGER", label),
        ]
        if case .string(let plugin) = all.removeValue(forKey: "plugin") { fields.append(("PLUGIN_ID", plugin)) }
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            fields.append(("ASSIST_" + key.uppercased().filter { $0.isLetter || $0.isNumber }, "\(value)"))
        }
        if !send(fields) {
            try? FileHandle.standardError.write(contentsOf: Data("\(label): \(level): \(message)\n".utf8))
        }
    }

    /// The journal, when standard error is a journal stream (`JOURNAL_STREAM` is "device:inode" of fd 2);
    /// `ASSIST_JOURNAL_SOCKET` names another socket (tests).
    package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> JournalSocket?
    {
        guard let stream = environment["JOURNAL_STREAM"] else { return nil }
        var info = stat()
        guard fstat(2, &info) == 0, stream == "\(info.st_dev):\(info.st_ino)" else { return nil }
        return JournalSocket(path: environment["ASSIST_JOURNAL_SOCKET"] ?? "/run/systemd/journal/socket")
    }

    package init?(path: String) {
        guard let address = UnixSocketAddress(path) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.address = address
    }

    deinit { close(descriptor) }

    /// Sends one entry; false when the journal did not take it. A value with a line break is sent in the
    /// protocol's binary form (the name, a line break, its length as 64-bit little-endian, the value).
    package func send(_ fields: [(String, String)]) -> Bool {
        var datagram = Data()
        for (name, value) in fields {
            let bytes = Data(value.utf8.prefix(48 * 1024))
            datagram.append(Data(name.utf8))
            if bytes.contains(UInt8(ascii: "\n")) {
                datagram.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { datagram.append(contentsOf: $0) }
            } else {
                datagram.append(UInt8(ascii: "="))
            }
            datagram.append(bytes)
            datagram.append(UInt8(ascii: "\n"))
        }
        return datagram.withUnsafeBytes { bytes in
            address.withSockaddr { pointer, length in
                sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), pointer, length)
            }
        } == datagram.count
    }
}

import BridgeProbe
import Foundation
import HostTesting
import PluginABI
import PluginAPI
import Testing

/// The ABI's one rule for versioned structs, on structs laid out as a newer or older writer would.
struct VersionedStructTests {
    /// A speech-options struct as a 1.1 writer would send it: the 1.0 fields, a field 1.0 does not know,
    /// and 64 bytes more.
    private func newerOptions() -> [UInt8] {
        var options = assist_speech_options()
        options.struct_size = UInt32(MemoryLayout<assist_speech_options>.size + 64)
        options.priority = ASSIST_PRIORITY_TEXT
        options.words_per_minute = 222
        var bytes = withUnsafeBytes(of: options) { Array($0) }
        bytes += [UInt8](repeating: 0xAB, count: 64)
        return bytes
    }

    @Test func aLargerStructFromANewerWriterIsReadAsFarAsThisSideKnowsIt() throws {
        let bytes = newerOptions()
        let read = try #require(bytes.withUnsafeBytes { assist_speech_options.read($0.baseAddress) })
        #expect(read.priority == ASSIST_PRIORITY_TEXT)
        #expect(read.words_per_minute == 222)
        #expect(Int(read.struct_size) == MemoryLayout<assist_speech_options>.size)
    }

    @Test func aStructOfExactlyTheMinimumReadsZerosBeyondIt() throws {
        // A writer that knew only the 1.0 fields and sent no reserved tail; the local's tail stays zero even
        // though the bytes after the struct are not.
        var bytes = withUnsafeBytes(of: assist_speech_options()) { Array($0) }.map { _ in UInt8(0xCD) }
        let minimum = assist_speech_options.minimumSize
        var header = UInt32(minimum)
        withUnsafeBytes(of: &header) { for (index, byte) in $0.enumerated() { bytes[index] = byte } }
        let read = try #require(bytes.withUnsafeBytes { assist_speech_options.read($0.baseAddress) })
        #expect(Int(read.struct_size) == minimum)
        withUnsafeBytes(of: read) { raw in
            #expect(raw[minimum...].allSatisfy { $0 == 0 })
            #expect(raw[4..<minimum].allSatisfy { $0 == 0xCD })
        }
        #expect(assist_speech_options.has(\.flags, in: read.struct_size))
        #expect(!assist_speech_options.has(\.reserved, in: read.struct_size))
    }

    @Test func aStructBelowTheMinimumOrNullIsRefused() {
        var small = assist_speech_options()
        small.struct_size = UInt32(assist_speech_options.minimumSize - 1)
        #expect(withUnsafeBytes(of: small) { assist_speech_options.read($0.baseAddress) } == nil)
        #expect(assist_speech_options.read(nil) == nil)
        var zero = assist_entry()
        zero.struct_size = 0
        #expect(withUnsafeBytes(of: zero) { assist_entry.read($0.baseAddress) } == nil)
    }

    @Test func arraysAreWalkedByTheElementsStructSize() throws {
        // Three header fields from a 1.1 writer whose elements are 16 bytes longer than this side's.
        let stride = MemoryLayout<assist_http_field>.size + 16
        let texts: [String] = ["A", "B", "C"]
        let names: [UnsafeMutablePointer<CChar>?] = texts.map { (text: String) in strdup(text) }
        defer { names.forEach { free($0) } }
        var bytes = [UInt8](repeating: 0x77, count: stride * 3)
        for index in 0..<3 {
            var field = assist_http_field()
            field.struct_size = UInt32(stride)
            field.name = UnsafePointer(names[index]!)
            field.value = UnsafePointer(names[2 - index]!)
            withUnsafeBytes(of: field) { raw in
                for (offset, byte) in raw.enumerated() { bytes[index * stride + offset] = byte }
            }
        }
        let read = try #require(bytes.withUnsafeBytes { assist_http_field.readArray($0.baseAddress, count: 3) })
        #expect(read.map { String(cString: $0.name) } == ["A", "B", "C"])
        #expect(read.map { String(cString: $0.value) } == ["C", "B", "A"])

        // Elements of different sizes, a NULL array with a count, and a short stride are refused.
        bytes[stride] = 0x10
        #expect(bytes.withUnsafeBytes { assist_http_field.readArray($0.baseAddress, count: 3) } == nil)
        #expect(assist_http_field.readArray(nil, count: 1) == nil)
        #expect(assist_http_field.readArray(nil, count: 0)?.isEmpty == true)
    }

    @Test func anOutStructIsFilledOnlyAsFarAsItsOwnerDeclared() {
        // A 1.0 caller's stats buffer, declared at the 1.0 minimum, followed by guard bytes.
        let minimum = assist_camera_stats.minimumSize
        var buffer = [UInt8](repeating: 0xEE, count: MemoryLayout<assist_camera_stats>.size + 8)
        buffer.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(minimum), as: UInt32.self) }
        var stats = assist_camera_stats()
        stats.struct_size = UInt32(MemoryLayout<assist_camera_stats>.size)
        stats.delivered = 5
        stats.converted = 9
        let written = buffer.withUnsafeMutableBytes { assist_camera_stats.write(stats, to: $0.baseAddress!) }
        #expect(written)
        #expect(buffer[minimum...].allSatisfy { $0 == 0xEE })
        buffer.withUnsafeBytes { raw in
            #expect(raw.load(as: UInt32.self) == UInt32(minimum))
            #expect(raw.loadUnaligned(fromByteOffset: minimum - 8, as: UInt64.self) == 9)
        }
        // Below the minimum nothing is written.
        buffer.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(8), as: UInt32.self) }
        let before = buffer
        #expect(!buffer.withUnsafeMutableBytes { assist_camera_stats.write(stats, to: $0.baseAddress!) })
        #expect(buffer == before)
    }

    @Test func everyMinimumEndsAtOrBeforeTheReservedTail() {
        // The 1.0 sizes are the fields' ends, so a field appended before the tail never changes them.
        #expect(assist_entry.minimumSize <= MemoryLayout<assist_entry>.offset(of: \assist_entry.reserved)!)
        #expect(assist_plugin.minimumSize <= MemoryLayout<assist_plugin>.offset(of: \assist_plugin.reserved)!)
        #expect(assist_outbox_request.minimumSize <= MemoryLayout<assist_outbox_request>.size)
        #expect(assist_value.minimumSize <= MemoryLayout<assist_value>.size)
    }
}

/// Every versioned struct crosses a helper process whole, both ways: the fixture plugin sends each with every
/// field set, a probe host records what arrives and sends one of each back. `make abi-compat` runs this suite
/// against a simulated ABI 1.1 whose structs all gain a field: it arrives too, from a 1.1 plugin, and reads
/// as zero from a 1.0 one (scripts/abi-compat.sh).
struct WholeStructsThroughAHelperTests {
    @Test func everyStructArrivesWithEveryFieldItsWriterSet() throws {
        let root = try TemporaryDirectory("assist-whole-structs")
        let library = root.path("libwhole.so").path
        try CPluginBuilder(root: root.url).compile(
            defines: [], output: URL(fileURLWithPath: library), source: "whole_structs_plugin.c")
        var report = [CChar](repeating: 0, count: 8192)
        let broken = bridge_probe_run(BuildProducts.assist, library, &report, report.count)
        let text = String(decoding: report.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(broken == 0, "\(lines)")
        // The plugin's header, 1.1 under abi-compat with its added field set.
        #expect(lines.first == "abi \(BuildProducts.headerABI)", "\(lines)")
        // One line for each struct and each array element, the plugin's checks included.
        for what in [
            "speech options", "short speech options", "camera request", "camera stats", "outbox request",
            "header 1", "header 2", "text part", "file part", "storage parameter 1", "storage parameter 2",
            "storage row", "dialog result", "outbox outcome", "frame",
        ] {
            #expect(lines.contains("\(what) whole"), "\(what): \(lines)")
        }
    }
}

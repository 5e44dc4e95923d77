// Storage figures for issue 5, printed as plain lines: 100k row inserts through assist.storage/1 by a C
// plugin (bound parameters, one transaction), beside the same inserts with GRDB directly, in the same run.
// Medians over ROUNDS (default 5).
import Foundation
import GRDB
import HostTesting
import PluginHost

let rows = Int(ProcessInfo.processInfo.environment["ROWS"] ?? "") ?? 100_000
let rounds = Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 5
let work = try TemporaryDirectory("assist-storage-bench")

// Native: GRDB with a cached prepared statement in one transaction.
func native(_ round: Int) throws -> Double {
    var configuration = Configuration()
    configuration.journalMode = .wal
    let queue = try DatabaseQueue(path: work.path("native-\(round).sqlite").path, configuration: configuration)
    try queue.write { db in try db.execute(sql: "CREATE TABLE rows (n INTEGER, label TEXT)") }
    let start = DispatchTime.now().uptimeNanoseconds
    try queue.inTransaction { db in
        let statement = try db.cachedStatement(sql: "INSERT INTO rows (n, label) VALUES (?, ?)")
        for n in 0..<rows { try statement.execute(arguments: [n, "a row of the benchmark"]) }
        return .commit
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

// Through the ABI: the C storage fixture, loaded by a real in-process host.
let plugins = work.path("plugins")
try CPluginBuilder(root: plugins).build(
    folder: "storage",
    manifest: CPluginBuilder.manifest(id: "org.test.storage", extra: ["services": ["required": ["assist.storage/1"]]]),
    source: "storage_plugin.c")
func throughABI() throws -> Double {
    let host = try TestHost(pluginDirectories: [plugins])
    let features = host.features
    guard let plugin = features.record(id: "org.test.storage") else { throw CocoaError(.fileNoSuchFile) }
    let done = DoneFlag()
    features.onFeatureEnded = { _, _ in done.set() }
    host.run(timeoutSeconds: 120, until: { done.value }) {
        _ = features.activate(plugin, arguments: ["bench", String(rows)])
    }
    guard let line = host.output.lines.first(where: { $0.hasPrefix("Inserted") }),
        let micros = line.split(separator: " ").dropFirst(4).first.flatMap({ Double($0) })
    else { throw CocoaError(.fileReadCorruptFile) }
    return micros / 1_000
}

final class DoneFlag: @unchecked Sendable {  // because: guarded by `lock`
    private let lock = NSLock()
    private var done = false
    func set() { lock.withLock { done = true } }
    var value: Bool { lock.withLock { done } }
}

var nativeTimes: [Double] = []
var abiTimes: [Double] = []
for round in 0..<rounds {
    nativeTimes.append(try native(round))
    abiTimes.append(try throughABI())
}
let median = BenchFigures.median
let abi = median(abiTimes)
let direct = median(nativeTimes)
print("storage benchmark: \(rows) inserts with 2 bound parameters in one transaction, \(rounds) rounds, medians")
print(String(format: "through assist.storage/1 (C plugin): %.0f ms (%.0f rows/s)", abi, Double(rows) / abi * 1_000))
print(String(format: "GRDB directly: %.0f ms; ratio %.2f (goal <= 2)", direct, abi / direct))

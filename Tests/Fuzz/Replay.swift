import Foundation

/// Without libFuzzer (an ordinary build; the fuzz build renames this entry point away so libFuzzer's own main
/// runs): replays files through the target ASSIST_FUZZ_TARGET names. `assist-fuzz FILE|DIR …` prints one line
/// per file and exits 0 when every one returned. The tests run the seed corpus and every crash found this way.
@main
enum Replay {
    static func main() {
        _ = FuzzTargets.selected  // an unknown target is said before anything runs
        var replayed = 0
        for argument in CommandLine.arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("\(argument) does not exist.\n".utf8))
                exit(66)
            }
            let files =
                isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []).sorted().map {
                    "\(argument)/\($0)"
                } : [argument]
            for file in files {
                let data = FileManager.default.contents(atPath: file) ?? Data()
                _ = data.withUnsafeBytes {
                    assistFuzzOne($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
                }
                replayed += 1
            }
        }
        print("\(replayed) inputs replayed, 0 failed")
    }
}

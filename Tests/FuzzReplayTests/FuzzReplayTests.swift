import Foundation
import HostTesting
import Testing

/// Every fuzz target's seed corpus and every input a fuzzer ever crashed on (`Tests/Fuzz/regressions/<target>`)
/// go through the same parser functions in an ordinary build: each must return, quickly.
@Suite("Fuzz corpus and regressions replayed")
struct FuzzReplayTests {
    static let targets = [
        "manifest", "config", "journal", "outbox-job", "multipart", "elf", "keys", "phrases", "picture", "photo",
        "plain-text", "page-geometry", "survey-definition", "media-header",
        "media-details", "study-text", "helper-protocol", "package", "services", "wav", "barcode",
    ]

    @Test(arguments: targets)
    func everySavedInputReturns(target: String) throws {
        let root = BuildProducts.packageRoot.appendingPathComponent("Tests/Fuzz")
        let folders = ["corpus", "regressions"].map { root.appendingPathComponent("\($0)/\(target)").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        try #require(!folders.isEmpty, "a seed corpus for \(target)")
        // The targets that read paths write each input to a scratch folder: nothing is left in the temporary folder.
        let temporary = try TemporaryDirectory("fuzz-replay")
        let result = try ProcessRunner.run(
            BuildProducts.directory.appendingPathComponent("AssistFuzz").path, folders,
            environment: ["ASSIST_FUZZ_TARGET": target, "TMPDIR": temporary.url.path], timeoutSeconds: 60)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.lines.last?.hasSuffix("inputs replayed, 0 failed") == true, "\(result.standardOutput)")
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.url.path)
        #expect(left.isEmpty, "left in the temporary folder: \(left)")
    }

    @Test func anUnknownTargetIsNamedWithTheKnownOnes() throws {
        let result = try ProcessRunner.run(
            BuildProducts.directory.appendingPathComponent("AssistFuzz").path, [],
            environment: ["ASSIST_FUZZ_TARGET": "nonsense"])
        #expect(result.status == 64)
        #expect(
            result.standardError.hasPrefix("Set ASSIST_FUZZ_TARGET to one of: barcode, config, elf, helper-protocol,"))
    }
}

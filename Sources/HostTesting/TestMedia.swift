import Digest
import Foundation

/// What tests make to hear, film or read, made once for the package's build folder and copied to each test that
/// asks for the same: ffmpeg's videos from its test patterns or the test photos, pages drawn and photographed by
/// ImageMagick, and natural-voice sets rendered from a seed (scripts/voice-set.py). Each is the same for the same
/// arguments and inputs, and the suite made them again and again: nine collect-videos tests each encoded the
/// same 12 s camera clip (3 s of a core each), and each of `make memcheck`'s two lanes made again every video,
/// page and voice `make test` had made (some 140 s of a core in ffmpeg alone). What is tested, Assist on that
/// input, runs every time. Speech drawn anew each run (NaturalVoice.speak) is not kept.
package enum TestMedia {
    /// Where they are kept between tests and runs: `.build/test-media`, each named by what made it.
    static var folder: URL { BuildProducts.packageRoot.appendingPathComponent(".build/test-media") }

    /// `/usr/bin/ffmpeg` with `arguments` (its options and inputs) writing `output`. ffmpeg's result when it
    /// fails (nothing is kept then); an empty success otherwise.
    package static func ffmpeg(_ arguments: [String], output: String, timeoutSeconds: Double = 120) throws
        -> ProcessResult
    {
        try program("/usr/bin/ffmpeg", arguments, output: output, timeoutSeconds: timeoutSeconds)
    }

    /// `program` with `arguments` and then `output`, the file it writes (ffmpeg, ImageMagick's convert: a
    /// program that makes the same file from the same arguments and input files). Its result when it fails;
    /// an empty success otherwise.
    package static func program(_ program: String, _ arguments: [String], output: String, timeoutSeconds: Double = 120)
        throws -> ProcessResult
    {
        let name = key([program] + arguments) + "." + URL(fileURLWithPath: output).pathExtension
        return try copy(name, to: URL(fileURLWithPath: output)) { making in
            try ProcessRunner.run(program, arguments + [making.path], timeoutSeconds: timeoutSeconds)
        }
    }

    /// scripts/voice-set.py with `options` (its phrases, renderings and seed) writing the folder `set`, with
    /// the natural voice's Python `python`. The script's result when it fails; an empty success otherwise.
    package static func voiceSet(_ options: [String], into set: URL, python: String) throws -> ProcessResult {
        let script = BuildProducts.packageRoot.appendingPathComponent("scripts/voice-set.py").path
        let model = (try? NaturalVoice.model().path) ?? "no voice"
        return try copy("voice-set-" + key([python, script, model] + options), to: set) { making in
            try ProcessRunner.run(python, [script, making.path] + options, timeoutSeconds: 600)
        }
    }

    /// `destination` copied from the kept `name`, made first by `make` (into the URL it is given) when it is
    /// not kept yet.
    static func copy(_ name: String, to destination: URL, make: (URL) throws -> ProcessResult) throws
        -> ProcessResult
    {
        let kept = folder.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: kept.path) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // Made beside under a name of its own, then renamed: two test processes making the same at once each
            // rename a whole one (the second finds the first's there and drops its own), and a test never copies
            // one half made.
            let making = folder.appendingPathComponent("making-\(UUID().uuidString)-" + name)
            let made = try make(making)
            guard made.status == 0 else {
                try? FileManager.default.removeItem(at: making)
                return made
            }
            if rename(making.path, kept.path) != 0 {
                try? FileManager.default.removeItem(at: making)
                guard FileManager.default.fileExists(atPath: kept.path) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: kept.path])
                }
            }
        }
        try? FileManager.default.removeItem(at: destination)
        // A copy, not a link: a test may cut or damage its own.
        try FileManager.default.copyItem(at: kept, to: destination)
        return ProcessResult(status: 0, standardOutput: "", standardError: "", signalled: false)
    }

    /// What names a thing made: the program and its arguments, every file among them by its content (a test
    /// photo fetched again, another ffmpeg, a changed script, or an input a test made, which differs in path
    /// from run to run but not in content when it was itself copied from here).
    static func key(_ arguments: [String]) -> String {
        var digest = SHA256Digest()
        for argument in arguments {
            if let attributes = try? FileManager.default.attributesOfItem(atPath: argument),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let file = FileHandle(forReadingAtPath: argument)
            {
                digest.update(data: Data("file\u{0}".utf8))
                while let chunk = try? file.read(upToCount: 1 << 20), !chunk.isEmpty { digest.update(data: chunk) }
                try? file.close()
            } else {
                digest.update(data: Data((argument + "\u{0}").utf8))
            }
            digest.update(data: Data("\u{0}".utf8))
        }
        return digest.finalize().prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}

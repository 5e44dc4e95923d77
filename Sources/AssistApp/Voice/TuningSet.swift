import Audio
import Foundation
import Voice

/// A tuning folder's files: positives by phrase, negatives, and how long the negatives last.
package struct TuningSet {
    package var positives: [String: [URL]] = [:]
    package var negatives: [URL] = []
    package var negativeSeconds = 0.0

    package static func read(_ root: URL) throws -> TuningSet {
        var set = TuningSet()
        let files = FileManager.default
        guard let folders = try? files.contentsOfDirectory(at: root, includingPropertiesForKeys: nil) else {
            throw CLIFailure(
                message:
                    "\(root.path) cannot be read: check the path (a folder with a folder of WAV files for each phrase).",
                exitCode: 66)
        }
        for folder in folders.sorted(by: { $0.path < $1.path }) where folder.hasDirectoryPath {
            let wavs = ((try? files.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
                .filter { $0.pathExtension.lowercased() == "wav" }.sorted { $0.path < $1.path }
            if folder.lastPathComponent == "negatives" {
                set.negatives = wavs
                for wav in wavs {
                    if let file = try? WavFile.read(wav) {
                        set.negativeSeconds +=
                            Double(file.samples.count) / Double(file.format.sampleRateHz * file.format.channels)
                    }
                }
            } else if !wavs.isEmpty {
                let phrase = KeyPhrase.normalise(folder.lastPathComponent.replacingOccurrences(of: "_", with: " "))
                set.positives[phrase] = wavs
            }
        }
        return set
    }
}

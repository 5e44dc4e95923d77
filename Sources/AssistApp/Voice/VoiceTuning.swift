import AssistCore
import Audio
import Foundation
import Voice

/// `assist voice tune DIR`: reads `DIR/<phrase>/*.wav` (the phrase with `_` or spaces between words; positives)
/// and `DIR/negatives/*.wav` (speech that is no command), decodes all of it once per threshold from 1e-1
/// (strict) to 1e-80 (lenient), and keeps for each phrase the threshold with the best recall whose false alarms
/// stay within 1 per 10 minutes of negatives. Each line it reports goes to `report`.
package enum VoiceTuning {
    /// From strict to lenient: the threshold bounds how much likelier the phrase must be than any other sound
    /// (pocketsphinx's kws_threshold), so a smaller value lets more through (measured on the natural voice
    /// set: "what time is it" at 1e-40 is heard in sentences that 1e-30 refuses; "collect videos" is heard
    /// 10 times in 10 at 1e-40, 7 at 1e-20).
    package static let levels: [Double] = [1e-1, 1e-5, 1e-10, 1e-20, 1e-30, 1e-40, 1e-50, 1e-60, 1e-80]

    /// Tunes the phrases recorded under `folder` and writes their thresholds to `output` (default:
    /// `<data folder>/voice/thresholds-<lang>.txt`).
    package static func tune(
        folder: String, output: String?, options: HostOptions, report print: (String) -> Void
    ) throws {
        let (session, model) = try VoicePhrases.openSession(options)
        let language = model.language
        let root = URL(fileURLWithPath: folder)
        let set = try TuningSet.read(root)
        guard !set.positives.isEmpty else {
            throw CLIFailure(message: "\(folder) has no phrase folders with WAV files in them.", exitCode: 66)
        }
        let phrases = set.positives.keys.sorted()
        print(
            "Tuning \(phrases.count) phrases on \(set.positives.values.map(\.count).reduce(0, +)) recordings and \(String(format: "%.1f", set.negativeSeconds / 60)) minutes of other speech."
        )
        var results: [String: [Double: (hits: Int, falseAlarms: Int)]] = [:]
        for level in levels {
            let spotter: KeywordSpotter
            do {
                spotter = try KeywordSpotter(
                    model: model, phrases: phrases.map { KeyPhrase($0, threshold: level) })
            } catch {
                throw CLIFailure(message: error.description, exitCode: 69)
            }
            for line in VoicePhrases.unknownWordLines(spotter) where level == levels[0] { print(line) }
            var hits: [String: Int] = [:]
            var falseAlarms: [String: Int] = [:]
            for (phrase, files) in set.positives {
                for file in files {
                    let heard = Set(try decode(file, with: spotter).map(\.phrase))
                    if heard.contains(phrase) { hits[phrase, default: 0] += 1 }
                    for other in heard where other != phrase { falseAlarms[other, default: 0] += 1 }
                }
            }
            for file in set.negatives {
                for heard in try decode(file, with: spotter) { falseAlarms[heard.phrase, default: 0] += 1 }
            }
            for phrase in phrases {
                results[phrase, default: [:]][level] = (hits[phrase] ?? 0, falseAlarms[phrase] ?? 0)
            }
        }
        // 1 false alarm per 10 minutes of negatives, shared among the phrases.
        let allowed = Int(set.negativeSeconds / 600 / Double(phrases.count))
        var chosen = VoiceThresholds()
        for phrase in phrases {
            let total = set.positives[phrase]?.count ?? 0
            let fitting = levels.filter { (results[phrase]?[$0]?.falseAlarms ?? .max) <= allowed }
            // Best recall; among equals the strictest (largest) threshold.
            let best = fitting.max { a, b in
                let (ha, hb) = (results[phrase]?[a]?.hits ?? 0, results[phrase]?[b]?.hits ?? 0)
                return ha != hb ? ha < hb : a < b
            }
            // None within the budget: the strictest, which errs towards silence.
            let level = best ?? levels[0]
            chosen.values[phrase] = level
            let figures = results[phrase]?[level] ?? (0, 0)
            print(
                "\(phrase): \(String(format: "%.0e", level)), recall \(figures.hits) of \(total), \(figures.falseAlarms) false alarm\(figures.falseAlarms == 1 ? "" : "s")"
            )
        }
        let target =
            output.map { URL(fileURLWithPath: $0) }
            ?? VoiceThresholds.file(in: session.paths.data.appendingPathComponent("voice"), language: language)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let partial = target.appendingPathExtension("partial")
        let text = chosen.text(heading: "assist voice tune \(root.lastPathComponent): thresholds for \(language)")
        guard FileManager.default.createFile(atPath: partial.path, contents: Data(text.utf8)),
            rename(partial.path, target.path) == 0
        else { throw CLIFailure(message: "\(target.path) cannot be written.", exitCode: 73) }
        print("Wrote \(target.path).")
    }

    /// Everything heard in one file.
    static func decode(_ file: URL, with spotter: KeywordSpotter) throws -> [Detection] {
        let input = try WavFileInput(url: file, format: VoiceListener.format)
        var heard: [Detection] = []
        while true {
            let chunk = try input.read(frames: VoiceListener.chunkFrames)
            if chunk.isEmpty { break }
            heard += spotter.feed(chunk)
        }
        // Silence after the file, so a phrase at its very end is finished, then what is held.
        heard += spotter.feed(VoiceListener.quietRoom(tenths: 3))
        return heard + spotter.flush()
    }
}

import Foundation

/// Per-phrase thresholds, as `assist voice tune` writes them: `share/assist/voice/thresholds-<lang>.txt`, one
/// `phrase<TAB>threshold` a line (`#` starts a comment). A phrase not listed gets the default.
package struct VoiceThresholds: Equatable, Sendable {
    package var values: [String: Double]

    package init(_ values: [String: Double] = [:]) {
        self.values = values
    }

    /// The file for `language` in `folder` (the share folder's `voice/`).
    package static func file(in folder: URL, language: String) -> URL {
        folder.appendingPathComponent("thresholds-\(language).txt")
    }

    /// The thresholds in force for `language`: a user's tuning (`<data>/voice/`) over the shipped file
    /// (`<share>/voice/`), phrase by phrase.
    package static func load(data: URL, share: URL, language: String) -> VoiceThresholds {
        read(file(in: data.appendingPathComponent("voice"), language: language))
            .merged(over: read(file(in: share.appendingPathComponent("voice"), language: language)))
    }

    /// Reads `url`; missing or unreadable lines are skipped (an empty table when the file is missing).
    package static func read(_ url: URL) -> VoiceThresholds {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return VoiceThresholds() }
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "\t")
            guard parts.count == 2, let value = Double(parts[1].trimmingCharacters(in: .whitespaces)), value > 0,
                value < 1
            else { continue }
            values[KeyPhrase.normalise(String(parts[0]))] = value
        }
        return VoiceThresholds(values)
    }

    /// The file's text, phrases sorted, with a heading comment.
    package func text(heading: String) -> String {
        "# \(heading)\n"
            + values.keys.sorted().map { "\($0)\t\(String(format: "%.0e", values[$0] ?? 0))\n" }.joined()
    }

    /// These values, with `other`'s for phrases these do not set (a user's tuning over the shipped one).
    package func merged(over other: VoiceThresholds) -> VoiceThresholds {
        VoiceThresholds(values.merging(other.values) { mine, _ in mine })
    }

    /// `phrases` with their thresholds (the default where none is set).
    package func apply(to phrases: [String]) -> [KeyPhrase] {
        phrases.map { text in
            let phrase = KeyPhrase(text)
            return KeyPhrase(phrase.text, threshold: values[phrase.text] ?? KeyPhrase.defaultThreshold)
        }
    }
}

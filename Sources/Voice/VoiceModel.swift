import Foundation

/// What the recogniser needs for one language: pocketsphinx's acoustic model folder and its pronunciation
/// dictionary.
///
/// English uses Debian's `pocketsphinx-en-us`. Debian has no model for Russian or Chinese; an admin adds one
/// as a folder `voice/<lang>/` holding `acoustic-model/` (the folder pocketsphinx's `-hmm` takes: `mdef`,
/// `means`, `variances`, ...), `dictionary.dict` and, for dictation, `language-model.lm.bin`, in the user's
/// data folder, in `/etc/assist`, or in the share folder (docs/voice.md). The same layout for English replaces Debian's model.
package struct VoiceModel: Equatable, Sendable {
    package var language: String
    package var acousticModel: URL
    package var dictionary: URL
    /// The language model for dictation (open text after "find text"), when the model has one.
    package var languageModel: URL?
    /// Words Assist's own commands say that a dictionary may lack ("barcode"), in its format: Assist's share
    /// folder's `voice/words-<lang>.dict`. Each is added to the decoders when the dictionary has no word of
    /// that name.
    package var addedWords: URL?

    package init(
        language: String, acousticModel: URL, dictionary: URL, languageModel: URL? = nil, addedWords: URL? = nil
    ) {
        self.language = language
        self.acousticModel = acousticModel
        self.dictionary = dictionary
        self.languageModel = languageModel
        self.addedWords = addedWords
    }

    /// True when dictation can be taken with this model.
    package var dictates: Bool {
        languageModel.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
    }

    /// Debian's English model (pocketsphinx-en-us).
    static let debianEnglish = VoiceModel(
        language: "en", acousticModel: URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us/en-us"),
        dictionary: URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"),
        languageModel: URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"))

    /// The folders searched for `voice/<lang>/`, first found wins.
    package static func searchFolders(data: URL, share: URL) -> [URL] {
        [
            data.appendingPathComponent("voice"), URL(fileURLWithPath: "/etc/assist/voice"),
            share.appendingPathComponent("voice"),
        ]
    }

    /// The model for `language`, or why there is none (one sentence saying what to do).
    package static func find(language: String, data: URL, share: URL) -> Result<VoiceModel, VoiceError> {
        let words = share.appendingPathComponent("voice/words-\(language).dict")
        let added = FileManager.default.fileExists(atPath: words.path) ? words : nil
        return model(language: language, data: data, share: share).map { found in
            var model = found
            model.addedWords = added
            return model
        }
    }

    private static func model(language: String, data: URL, share: URL) -> Result<VoiceModel, VoiceError> {
        let files = FileManager.default
        for folder in searchFolders(data: data, share: share) {
            let base = folder.appendingPathComponent(language)
            let model = VoiceModel(
                language: language, acousticModel: base.appendingPathComponent("acoustic-model"),
                dictionary: base.appendingPathComponent("dictionary.dict"),
                languageModel: base.appendingPathComponent("language-model.lm.bin"))
            if files.fileExists(atPath: model.acousticModel.appendingPathComponent("mdef").path),
                files.fileExists(atPath: model.dictionary.path)
            {
                return .success(model)
            }
        }
        if language == "en" {
            if files.fileExists(atPath: debianEnglish.acousticModel.appendingPathComponent("mdef").path),
                files.fileExists(atPath: debianEnglish.dictionary.path)
            {
                return .success(debianEnglish)
            }
            return .failure(.noModel("en", "install Debian's pocketsphinx-en-us package"))
        }
        let name = ["ru": "Russian", "zh": "Chinese", "es": "Spanish"][language] ?? language
        return .failure(
            .noModel(
                language,
                "there is no \(name) voice model on this device; typed and key commands work as before, and docs/voice.md says how an admin adds one"
            ))
    }
}

/// Why voice commands cannot be heard, as one sentence.
package enum VoiceError: Error, Equatable, CustomStringConvertible {
    case noModel(String, String)
    case library(String)
    case microphone(String)
    case noPhrases
    case echoCancellerUnavailable(String)

    package var description: String {
        switch self {
        case .noModel(let language, let what): return "Voice commands in \(language) are not available: \(what)."
        case .library(let why): return "Voice commands are not available: \(why)."
        case .microphone(let why): return "Voice commands cannot hear: \(why)"
        case .noPhrases: return "Voice commands are not available: no phrase could be listened for."
        case .echoCancellerUnavailable(let why):
            return "Voice cannot hear over Assist's own speech: \(why). Commands are heard while Assist is quiet."
        }
    }
}

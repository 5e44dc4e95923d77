import Digest
import Foundation

/// Why the detector cannot be used: a sentence for the user and what to do, in English, and the phrase a feature
/// says it with in the person's language (`phrase`, filled with `values`: each feature's phrases hold it).
public struct DetectionError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public let phrase: String
    public let values: [String: String]
    public var description: String { message }

    init(_ message: String, phrase: String, values: [String: String] = [:]) {
        (self.message, self.phrase, self.values) = (message, phrase, values)
    }

    public static let modelMissing = DetectionError(
        "Object model not installed. Install it with 'assist setup models' ('make models' in the source tree).",
        phrase: "model-missing")
    public static func modelUnusable(_ cause: String) -> DetectionError {
        DetectionError(
            "The object model cannot be loaded: \(cause). Reinstall it with 'assist setup models'.",
            phrase: "model-unusable", values: ["cause": cause])
    }
    public static let thingsModelMissing = DetectionError(
        "The model that learns your own things is missing or damaged. Install it with 'assist setup models' ('make models' in the source tree).",
        phrase: "things-model-missing")
    public static func thingsModelUnusable(_ cause: String) -> DetectionError {
        DetectionError(
            "The model that learns your own things cannot be loaded: \(cause). Reinstall it with 'assist setup models'.",
            phrase: "things-model-unusable", values: ["cause": cause])
    }
    /// A custom model that fails its check: the admin must fix its folder.
    public static func customModel(_ id: String, _ why: String) -> DetectionError {
        DetectionError(
            "The custom model \(id) cannot be used: \(why). Fix its folder or remove it.",
            phrase: "custom-model-unusable",
            values: ["id": id, "why": why])
    }
}

/// The detector's files (find-object.md §1): where they are and whether they are the published ones, by size
/// and SHA-256. A successful check is remembered by size and modification time, so the 24 MB are hashed once.
public enum ModelFiles {
    public static let expected: [(name: String, size: Int, sha256: String)] = [
        ("yolov4-tiny.weights", 24_251_276, "cf9fbfd0f6d4869b35762f56100f50ed05268084078805f0e7989efe5bb8ca87"),
        ("yolov4-tiny.cfg", 3_027, "6cbf5ece15235f66112e0bedebb324f37199b31aee385b7e18f0bbfb536b258e"),
        ("coco.names", 625, "634a1132eb33f8091d60f2c346ababe8b905ae08387037aed883953b7329af84"),
    ]

    /// Folders searched, first match wins: `$ASSIST_MODELS_DIR`, beside the plugin's share folder, in the host's
    /// share folder (`modelsFolders`), the host's data folder (where `assist setup models` puts them for a user
    /// who cannot write the share folder), then the system's. `data` is the plugin's own data folder, `<host data>/plugins/<id>`.
    public static func candidates(share: String?, data: String? = nil, hostShare: [String]? = nil) -> [String] {
        var folders = modelsFolders(share: share, hostShare: hostShare).map { $0 + "/yolov4-tiny" }
        if let data {
            let host = URL(fileURLWithPath: data).deletingLastPathComponent().deletingLastPathComponent()
            folders.append(host.appendingPathComponent("models/yolov4-tiny").path)
        }
        return folders + ["/usr/local/share/assist/models/yolov4-tiny", "/usr/share/assist/models/yolov4-tiny"]
    }

    /// The models folders a plugin's share folder implies: `$ASSIST_MODELS_DIR`, then `models` beside it (an
    /// installed plugin's share is `share/assist/<short id>`), then the host's own `share/assist/models`: in
    /// `$ASSIST_SHARE_DIR` (the host sets it to the share folder it uses), else found from the running
    /// executable, beside an installed prefix or in the source tree of a build folder (where a first-party
    /// plugin's share is `Plugins/<Name>/share`, with no models beside it).
    /// `hostShare` stands in for the host's share folders (a test's choice); nil finds them.
    static func modelsFolders(share: String?, hostShare: [String]? = nil) -> [String] {
        var folders: [String] = []
        if let env = ProcessInfo.processInfo.environment["ASSIST_MODELS_DIR"] { folders.append(env) }
        if let share {
            folders.append(
                URL(fileURLWithPath: share).deletingLastPathComponent().appendingPathComponent("models").path)
        }
        let hostFolders =
            hostShare ?? ProcessInfo.processInfo.environment["ASSIST_SHARE_DIR"].map { [$0] }
            ?? hostShareFolders(executable: executable)
        for folder in hostFolders where !folders.contains(folder + "/models") { folders.append(folder + "/models") }
        return folders
    }

    /// The running executable (`assist`, or a test runner), links resolved.
    static var executable: String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") }

    /// The host's `share/assist` folders an executable implies: `<prefix>/share/assist` for `<prefix>/bin/…`,
    /// and `<root>/share/assist` for one under `<root>/.build…/` beside `<root>/Package.swift`.
    package static func hostShareFolders(executable: String?) -> [String] {
        guard let executable else { return [] }
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        var found = [folder.deletingLastPathComponent().appendingPathComponent("share/assist").path]
        for _ in 0..<5 where folder.path != "/" {
            if folder.lastPathComponent.hasPrefix(".build") {
                let root = folder.deletingLastPathComponent()
                if FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
                    found.append(root.appendingPathComponent("share/assist").path)
                }
                break
            }
            folder = folder.deletingLastPathComponent()
        }
        return found
    }

    /// The SHA-256 of the file at `path` in lower-case hex; nil when it cannot be read.
    static func sha256(of path: String) -> String? {
        SHA256Digest.hex(ofFileAt: URL(fileURLWithPath: path))
    }

    /// The first folder holding all three files with the right sizes and hashes; `cache` (a file in the
    /// plugin's data folder) remembers folders already checked.
    public static func locate(
        share: String?, data: String? = nil, cache: URL?, hostShare: [String]? = nil
    ) throws(DetectionError) -> String {
        for folder in candidates(share: share, data: data, hostShare: hostShare) where verify(folder, cache: cache) {
            return folder
        }
        throw .modelMissing
    }

    /// True when every expected file in `folder` (the detector's, or `files`) has its size and SHA-256.
    public static func verify(
        _ folder: String, files: [(name: String, size: Int, sha256: String)] = expected, cache: URL?
    ) -> Bool {
        let stamps = files.map { file -> String? in
            let path = URL(fileURLWithPath: folder).appendingPathComponent(file.name).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = attributes[.size] as? NSNumber, size.intValue == file.size,
                let modified = attributes[.modificationDate] as? Date
            else { return nil }
            return "\(path) \(size) \(modified.timeIntervalSince1970)"
        }
        guard stamps.allSatisfy({ $0 != nil }) else { return false }
        let stamp = stamps.compactMap { $0 }.joined(separator: "\n")
        if let cache, (try? String(contentsOf: cache, encoding: .utf8)) == stamp { return true }
        for file in files where sha256(of: folder + "/" + file.name) != file.sha256 { return false }
        if let cache { writeBeside(Data(stamp.utf8), to: cache) }
        return true
    }

    /// Writes `data` to a temporary file beside `url` and renames it over `url`: never half a file, and
    /// nothing left in /tmp (Foundation's `atomically: true` leaves an empty `TemporaryDirectory.*` there on
    /// Linux each time).
    static func writeBeside(_ data: Data, to url: URL) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid())")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data) else { return }
        if rename(temporary.path, url.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
    }

    /// The model's class names, one per class id (`coco.names`, or `file`, in `folder`; Darknet spellings).
    public static func classNames(in folder: String, file: String = "coco.names") throws(DetectionError) -> [String] {
        guard let text = try? String(contentsOfFile: folder + "/" + file, encoding: .utf8) else {
            throw .modelMissing
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
    }
}

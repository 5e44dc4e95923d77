import Camera
import Foundation
import HostTesting
import Logging
import PluginHost
import Testing

/// A C plugin drives assist.camera/1 against the synthetic pattern source.
@Suite("Camera service through the ABI")
struct CameraServiceABITests {
    /// In process, and in a helper process where frames travel in shared memory: the plugin cannot tell.
    @Test(arguments: [false, true])
    func aPluginGetsConvertedFramesRetainsWithinItsBudgetAndZooms(inHelper: Bool) throws {
        let root = try TemporaryDirectory("assist-camera-abi")
        let manifest = CPluginBuilder.manifest(
            id: "org.test.camera", extra: ["services": ["required": ["assist.camera/1"]]])
        try CPluginBuilder(root: root.url).build(folder: "camera", manifest: manifest, source: "camera_plugin.c")
        let camera = CameraService(
            spec: .pattern, framesPerSecond: 30, sample: root.path("none.jpg"), logger: Logger(label: "test"),
            onNotice: { _ in })
        let host = try TestHost(pluginDirectories: [root.url], camera: camera, inHelperProcesses: inHelper)
        let features = host.features
        let plugin = try #require(features.record(id: "org.test.camera"))
        let ended = EndRecorder()
        features.onFeatureEnded = { record, status in ended.record(record.id, status) }
        host.run(timeoutSeconds: 10, until: { !ended.events.isEmpty }) { _ = features.activate(plugin) }
        #expect(
            host.output.lines.contains(
                "Frames many, wrong 0, out of order 0, widths 640 then 320, retained 4, refused 1, stats ASSIST_OK counted."
            ), "\(host.output.lines)")
        #expect(camera.statistics().subscribers.isEmpty, "unsubscribed")
    }
}

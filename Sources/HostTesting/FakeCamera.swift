import Foundation

/// The fake V4L2 camera (`Tests/Fixtures/camera/fake_v4l2.c`) built as a preload library, and the
/// environment that points `assist` at it. The real libv4l2 capture path runs against it.
package struct FakeCamera {
    /// The device path the fake answers for.
    package static let devicePath = "/dev/video-fake0"
    /// The built library.
    package let library: URL

    /// Compiles the fake into `folder`.
    package init(folder: URL) throws {
        library = folder.appendingPathComponent("fake_v4l2.so")
        let source = BuildProducts.packageRoot.appendingPathComponent("Tests/Fixtures/camera/fake_v4l2.c").path
        let result = try ProcessRunner.run(
            ProcessRunner.which("cc") ?? "/usr/bin/cc",
            [
                "-std=gnu99", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", source, "-o", library.path, "-ldl",
                "-lpthread",
            ])
        guard result.status == 0 else {
            throw CPluginBuilder.BuildFailure(message: "cc failed: \(result.standardError)")
        }
    }

    /// The environment for a process that should see the fake camera: `frames` (a raw file for YUYV and RGB3,
    /// JPEG paths joined by ':' for MJPG) and any extra FAKE_V4L2_* settings.
    package func environment(
        format: String = "YUYV", width: Int = 640, height: Int = 480, frames: String, extra: [String: String] = [:]
    ) -> [String: String] {
        var environment = [
            "LD_PRELOAD": library.path, "FAKE_V4L2_PATH": Self.devicePath, "FAKE_V4L2_FORMAT": format,
            "FAKE_V4L2_WIDTH": String(width), "FAKE_V4L2_HEIGHT": String(height), "FAKE_V4L2_FRAMES": frames,
        ]
        environment.merge(extra) { _, new in new }
        return environment
    }
}
